import { homedir } from "node:os";
import { resolve } from "node:path";
import type { FolderSet } from "../fs/folder-set.js";
import { absolutePath, isInside, relativeInside, resolveRealPath } from "../fs/real-path.js";
import { ToolError } from "../loop/tool.js";

/**
 * The folders the file tools may touch. `roots[0]` is the working folder: relative paths resolve against
 * it. A path is accepted only when its real path (symbolic links resolved, also for files that do not
 * exist yet) lies inside the real path of a root, so `..`, absolute paths elsewhere and links that point
 * out are all refused, with a message that tells the model which folders it may use. The `live` folders (a
 * `FolderSet`) come right after the working folder and are read at each call: a folder added mid-session is
 * reachable at once, one removed is refused at once, and their real paths are the ones fixed when they were added.
 */
export class Workspace {
  private readonly fixed: readonly string[];

  /** Roots that are not workspace folders, with what they hold (e.g. the folder of saved Bash outputs). */
  private readonly notes: ReadonlyMap<string, string>;

  constructor(
    roots: string[],
    notes: Record<string, string> = {},
    private readonly live?: FolderSet,
  ) {
    if (roots.length === 0) throw new Error("Workspace needs at least one root folder");
    this.fixed = roots.map((root) => resolve(root));
    this.notes = new Map(Object.entries(notes).map(([root, note]) => [resolve(root), note]));
  }

  /** The folders the tools may reach now: the working folder, the live folders, then the fixed ones. */
  get roots(): readonly string[] {
    const [cwd, ...rest] = this.fixed;
    return [cwd!, ...(this.live?.list() ?? []), ...rest];
  }

  /** The working folder: relative paths resolve against it. */
  get cwd(): string {
    return this.fixed[0]!;
  }

  /** The absolute path `path` names, before links are resolved (`~/` expands to the home folder). */
  absolute(path: string): string {
    return absolutePath(path, this.cwd, homedir());
  }

  /** The real path of `path` if it lies inside a root; otherwise throws a ToolError that says why. */
  async resolve(path: string): Promise<string> {
    if (path.includes("\0"))
      throw new ToolError(`Invalid path ${JSON.stringify(path)}: it contains a NUL byte.`);
    const absolute = this.absolute(path);
    let real: string;
    try {
      real = await resolveRealPath(absolute);
    } catch (error) {
      throw new ToolError(`Cannot resolve ${path}: ${(error as Error).message}`);
    }
    const realRoots = await this.realRoots();
    if (realRoots.some((root) => isInside(root, real))) return real;
    const lexicallyInside =
      this.roots.some((root) => isInside(root, absolute)) ||
      realRoots.some((root) => isInside(root, absolute));
    const where = `The file tools can only reach ${this.describeRoots()}.`;
    if (lexicallyInside) {
      throw new ToolError(
        `Access denied: ${path} resolves through a symbolic link to ${real}, which is outside the workspace. ${where}`,
      );
    }
    throw new ToolError(`Access denied: ${path} (${absolute}) is outside the workspace. ${where}`);
  }

  /** The real paths of the roots (links resolved), where writes must stay. */
  async realRoots(): Promise<string[]> {
    const [[cwd, ...rest], live] = await Promise.all([
      Promise.all(this.fixed.map((root) => resolveRealPath(root))),
      this.live?.realPaths(resolveRealPath) ?? [],
    ]);
    return [cwd!, ...live, ...rest];
  }

  /** `path` relative to the working folder when inside it (shorter for the model), else absolute. */
  display(path: string): string {
    const rel = relativeInside(this.cwd, path);
    if (rel === "") return ".";
    return rel ?? path;
  }

  private describeRoots(): string {
    const [cwd, ...rest] = this.roots;
    const folders = rest.filter((root) => !this.notes.has(root));
    const extra = folders.length > 0 ? ` and ${folders.join(", ")}` : "";
    const noted = rest
      .filter((root) => this.notes.has(root))
      .map((root) => `; also ${this.notes.get(root)} (${root})`);
    return `the working folder ${cwd}${extra} (the user can add folders with --add-dir, or /add-dir in an interactive session)${noted.join("")}`;
  }
}
