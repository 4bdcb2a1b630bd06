import { existsSync, realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { relativeInside } from "../fs/real-path.js";

/**
 * The supported workspace layout for a fleet: one folder (a shared volume, mounted at the same path on every
 * worker) holding one checkout per session. A session's workspace is `<root>/<session id>` unless its first
 * prompt names another folder, which must lie inside `root` too (symbolic links resolved): a client cannot
 * point a worker at the rest of its disk.
 */
export function sessionWorkspaces(
  root: string,
): (sessionId: string, requested: string | undefined) => string {
  if (!existsSync(root)) throw new Error(`The workspaces folder ${root} does not exist`);
  const realRoot = realpathSync(root);
  return (sessionId, requested) => {
    const path = requested === undefined ? join(realRoot, sessionId) : resolve(realRoot, requested);
    const real = existsSync(path) ? realpathSync(path) : path;
    const inside = relativeInside(realRoot, real);
    if (inside === undefined || inside === "")
      throw new Error(
        `The workspace ${requested ?? path} is not a folder inside this worker's workspaces folder ${realRoot}`,
      );
    return real;
  };
}
