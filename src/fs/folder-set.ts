import { realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { absolutePath, isInside } from "./real-path.js";

/** One folder of the set: as it was named (made absolute) and its real path, fixed when it was added. */
export interface AddedFolder {
  readonly path: string;
  readonly real: string;
  /** False for a folder kept as named (`adopt`, or one missing at start-up): its users resolve it themselves. */
  readonly resolved: boolean;
}

/** What `FolderSet.add` did. */
export interface FolderAdded {
  /** The real path now in the set. */
  real: string;
  /** False when the folder (or one around it) was already reachable: nothing changed. */
  added: boolean;
  /** Why this folder deserves a second look (`/`, the home folder), shown to whoever added it. */
  warning?: string;
}

/**
 * The workspace folders besides the working folder (`--add-dir`, `permissions.additionalDirectories`, a hook's or
 * an SDK answer's `addDirectories`, `/add-dir`), as one live value: the permission checker, the file tools (Read,
 * Write, Edit, Glob, Grep) and the sandbox read it at each call, so a folder added mid-session is reachable at
 * once and one removed is refused at once. Each folder's real path is taken when it is added and kept: a link
 * swapped afterwards (the folder replaced by a link to `/etc`) does not widen what the set covers.
 */
export class FolderSet {
  private folders: AddedFolder[] = [];

  /**
   * @param cwd the working folder: relative paths resolve against it, and a folder inside it adds nothing.
   * @param home the home folder, for the warning about adding it whole.
   */
  constructor(
    readonly cwd: string,
    readonly home: string = homedir(),
  ) {}

  /** The folders' real paths, in the order they were added. */
  list(): string[] {
    return this.folders.map((folder) => folder.real);
  }

  /**
   * The folders' real paths: each as fixed when it was added (resolving it again would follow a link swapped in
   * since); one kept as named (`adopt`, or missing at start-up) resolved now by `resolveNamed`.
   */
  realPaths(resolveNamed: (path: string) => Promise<string>): Promise<string[]> {
    return Promise.all(this.folders.map((f) => (f.resolved ? f.real : resolveNamed(f.real))));
  }

  /** The folders, as named and as resolved. */
  entries(): readonly AddedFolder[] {
    return [...this.folders];
  }

  /**
   * Adds `path` (relative to the working folder; `~/` is the home folder) once resolved to its real path. Throws,
   * with a message for the user, when it does not exist or is not a folder.
   */
  async add(path: string): Promise<FolderAdded> {
    const absolute = this.absolute(path);
    let real: string;
    try {
      real = await realpath(absolute);
    } catch {
      throw new Error(`${absolute} does not exist`);
    }
    if (!(await stat(real)).isDirectory()) throw new Error(`${absolute} is not a folder`);
    const warning = await this.warningFor(real);
    const cwdReal = await realpath(this.cwd).catch(() => this.cwd);
    const covered = [cwdReal, ...this.list()].some((root) => isInside(root, real));
    if (covered) return { real, added: false, ...(warning ? { warning } : {}) };
    this.folders.push({ path: absolute, real, resolved: true });
    return { real, added: true, ...(warning ? { warning } : {}) };
  }

  /**
   * Adds a folder named at start-up (settings, `--add-dir`): as `add`, but a folder that does not exist (yet) is
   * kept by its absolute path, as before, rather than refused.
   */
  async addAtStart(path: string): Promise<FolderAdded> {
    try {
      return await this.add(path);
    } catch {
      this.adopt(path);
      return { real: this.absolute(path), added: true };
    }
  }

  /**
   * Adds `path` as given, made absolute, without resolving it (a caller that has no await: a checker made with
   * `additionalDirectories`, whose users resolve links when they compare).
   */
  adopt(path: string): void {
    const absolute = this.absolute(path);
    if (!this.folders.some((f) => f.path === absolute))
      this.folders.push({ path: absolute, real: absolute, resolved: false });
  }

  /** Removes the folders `path` names (as named or as resolved); returns their real paths. Holds at once. */
  async remove(path: string): Promise<string[]> {
    const absolute = this.absolute(path);
    const real = await realpath(absolute).catch(() => absolute);
    const gone = this.folders.filter((f) => f.path === absolute || f.real === absolute || f.real === real);
    this.folders = this.folders.filter((f) => !gone.includes(f));
    return gone.map((f) => f.real);
  }

  private absolute(path: string): string {
    return absolutePath(path, this.cwd, this.home);
  }

  private async warningFor(real: string): Promise<string | undefined> {
    if (real === "/") return "/ is the whole filesystem: the file tools can now read every file on it";
    const home = await realpath(this.home).catch(() => this.home);
    if (real === home)
      return `${real} is your home folder: the file tools can now read every file in it (keys and dotfiles too, unless a deny rule names them)`;
    return undefined;
  }
}
