import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensurePrivateDir } from "../session/index.js";
import { deleteRegularFile, whyNotRestorable, writeNoFollow } from "./restore-path.js";
import type { RewindFile } from "./rewind-points.js";

/** The most bytes of prior file contents one session keeps; the oldest checkpoints are dropped beyond it. */
export const CHECKPOINT_LIMIT_BYTES = 50 * 1024 * 1024;

/** One file's content before a change made during the prompt at history index `prompt`. */
interface Checkpoint {
  prompt: number;
  path: string;
  /** False: the file did not exist before the change (a restore deletes it). */
  existed: boolean;
  /** The blob's file name in the folder; absent when the file did not exist or the checkpoint was dropped. */
  blob?: string;
  bytes: number;
  /** The file's permission bits then (0600 for a `.env`): a file made again gets them, not the umask's. */
  mode?: number;
  /** Dropped to stay within the limit: this file cannot be restored to before this prompt. */
  dropped?: boolean;
}

/** What a restore did: files written back (or deleted, having not existed), and files it could not restore. */
export interface RestoreResult {
  restored: string[];
  notRestored: Array<{ path: string; why: string }>;
}

/**
 * The files' prior contents, saved before each Write/Edit changes them, keyed by the history index of the user
 * prompt during which the change happened: a rewind to a prompt restores every file changed since. The folder is
 * 0700, its files 0600 (they hold the user's code); `index.json` lists the checkpoints, oldest first. Bounded by
 * `limit` bytes: beyond it the oldest are dropped (their files then say why they were not restored).
 */
export class CheckpointStore {
  private entries: Checkpoint[];
  private next = 0;

  constructor(
    readonly dir: string,
    private readonly options: { limit?: number; warn?: (message: string) => void } = {},
  ) {
    this.entries = this.readIndex();
    for (const entry of this.entries) {
      const n = Number.parseInt(entry.blob ?? "", 10);
      if (Number.isFinite(n) && n >= this.next) this.next = n + 1;
    }
  }

  /** Saves `path`'s content now (or that it does not exist), once per file and prompt: the first change's prior state. */
  save(prompt: number, path: string): void {
    if (this.entries.some((e) => e.prompt === prompt && e.path === path)) return;
    const limit = this.options.limit ?? CHECKPOINT_LIMIT_BYTES;
    let content: Buffer | undefined;
    let existed = false;
    let tooLarge = false;
    let mode: number | undefined;
    try {
      const stats = statSync(path);
      if (!stats.isFile()) return; // a folder or device: Write and Edit refuse it anyway
      existed = true;
      mode = stats.mode & 0o777;
      // Sized before it is read: a file over the limit is never loaded (a Write over a 1 GB file took 1 GB of
      // memory here, only for the checkpoint to be dropped).
      if (stats.size > limit) tooLarge = true;
      else content = readFileSync(path);
    } catch {
      content = undefined;
    }
    ensurePrivateDir(this.dir);
    const entry: Checkpoint = { prompt, path, existed, bytes: content?.length ?? 0 };
    if (mode !== undefined) entry.mode = mode;
    if (tooLarge || (content && content.length > limit)) {
      entry.dropped = true;
      entry.bytes = 0;
      this.options.warn?.(
        `checkpoint of ${path} skipped: larger than the ${limit}-byte limit; /rewind cannot restore it`,
      );
    } else if (content) {
      entry.blob = `${this.next++}.bin`;
      writeFileSync(join(this.dir, entry.blob), content, { mode: 0o600 });
    }
    this.entries.push(entry);
    this.evict(limit);
    this.writeIndex();
  }

  /**
   * The files a restore from the prompt at `prompt` would touch, each once (its earliest checkpoint since), with
   * why one will not be touched: outside `roots` (the workspace of the session now running), a symbolic link on
   * the way, a dropped checkpoint. Shown to the user before the restore is asked for.
   */
  plan(prompt: number, roots: readonly string[]): RewindFile[] {
    return this.firstSince(prompt).map(({ entry }) => planned(entry, roots));
  }

  /**
   * Restores every file changed at or after the prompt at `prompt` to its content before the earliest such
   * change — only inside `roots`, following no symbolic link (`whyNotRestorable`, then O_NOFOLLOW) — then
   * forgets those checkpoints (they belong to the branch cut off).
   */
  restoreFrom(prompt: number, roots: readonly string[]): RestoreResult {
    const result: RestoreResult = { restored: [], notRestored: [] };
    for (const { entry } of this.firstSince(prompt)) {
      const plan = planned(entry, roots);
      if (plan.refused !== undefined) {
        result.notRestored.push({ path: entry.path, why: plan.refused });
        continue;
      }
      try {
        if (plan.action === "delete") deleteRegularFile(entry.path, roots);
        else writeNoFollow(entry.path, readFileSync(join(this.dir, entry.blob ?? "")), roots, entry.mode);
        result.restored.push(entry.path);
      } catch (error) {
        result.notRestored.push({ path: entry.path, why: (error as Error).message });
      }
    }
    this.dropFrom(prompt);
    return result;
  }

  /** The earliest checkpoint of each file from the prompt at `prompt` on. */
  private firstSince(prompt: number): Array<{ entry: Checkpoint }> {
    const seen = new Set<string>();
    const first: Array<{ entry: Checkpoint }> = [];
    for (const entry of this.entries) {
      if (entry.prompt < prompt || seen.has(entry.path)) continue;
      seen.add(entry.path);
      first.push({ entry });
    }
    return first;
  }

  /** Forgets the checkpoints of the prompt at `prompt` and after. */
  dropFrom(prompt: number): void {
    const [gone, kept] = partition(this.entries, (e) => e.prompt >= prompt);
    if (gone.length === 0) return;
    for (const entry of gone) this.removeBlob(entry);
    this.entries = kept;
    this.writeIndex();
  }

  /** Forgets every checkpoint (a compaction: the prompts they belong to are no longer in the history). */
  clear(): void {
    this.entries = [];
    rmSync(this.dir, { recursive: true, force: true });
  }

  private evict(limit: number): void {
    let total = this.entries.reduce((sum, e) => sum + (e.blob ? e.bytes : 0), 0);
    for (const entry of this.entries) {
      if (total <= limit) break;
      if (!entry.blob) continue;
      total -= entry.bytes;
      this.removeBlob(entry);
      entry.dropped = true;
      this.options.warn?.(
        `oldest checkpoint dropped (over the ${limit}-byte limit): /rewind can no longer restore ${entry.path} to before that prompt`,
      );
    }
  }

  private removeBlob(entry: Checkpoint): void {
    if (entry.blob) rmSync(join(this.dir, entry.blob), { force: true });
    delete entry.blob;
  }

  private readIndex(): Checkpoint[] {
    try {
      const parsed: unknown = JSON.parse(readFileSync(join(this.dir, "index.json"), "utf8"));
      // Only well-formed entries with plain blob names: the folder could have been edited by hand.
      return Array.isArray(parsed)
        ? parsed.filter(
            (e): e is Checkpoint =>
              typeof e?.prompt === "number" &&
              typeof e.path === "string" &&
              typeof e.existed === "boolean" &&
              (e.mode === undefined || (Number.isInteger(e.mode) && e.mode >= 0 && e.mode <= 0o777)) &&
              (e.blob === undefined || /^\d+\.bin$/.test(e.blob)),
          )
        : [];
    } catch {
      return [];
    }
  }

  private writeIndex(): void {
    ensurePrivateDir(this.dir);
    writeFileSync(join(this.dir, "index.json"), JSON.stringify(this.entries), { mode: 0o600 });
  }
}

function planned(entry: Checkpoint, roots: readonly string[]): RewindFile {
  const action = entry.existed ? "restore" : "delete";
  const refused = entry.dropped
    ? "its checkpoint was dropped (size limit)"
    : whyNotRestorable(entry.path, roots);
  return refused === undefined ? { path: entry.path, action } : { path: entry.path, action, refused };
}

function partition<T>(items: readonly T[], test: (item: T) => boolean): [T[], T[]] {
  const yes: T[] = [];
  const no: T[] = [];
  for (const item of items) (test(item) ? yes : no).push(item);
  return [yes, no];
}
