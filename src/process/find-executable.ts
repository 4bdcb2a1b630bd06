import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";

/**
 * Where `command` would be found, as a shell finds it: a name with a `/` as the path it is (relative to `cwd`),
 * a bare name in the folders of `PATH`; undefined when there is no executable file there.
 */
export function findExecutable(command: string, env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  const candidates = command.includes("/")
    ? [isAbsolute(command) ? command : resolve(cwd, command)]
    : (env.PATH ?? "").split(delimiter).map((dir) => join(dir === "" ? "." : dir, command));
  for (const path of candidates) {
    try {
      if (!statSync(path).isFile()) continue;
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not there, or not executable
    }
  }
  return undefined;
}
