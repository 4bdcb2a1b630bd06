import {
  existsSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CheckpointStore } from "./checkpoint-store.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("CheckpointStore", () => {
  it("a private file deleted since is made again private, not readable by all (review b)", () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "mitsu-checkpoints-")));
    dirs.push(root);
    const env = join(root, ".env");
    writeFileSync(env, "API_KEY=secret\n", { mode: 0o600 });
    const store = new CheckpointStore(join(root, "cp"));
    store.save(0, env);
    rmSync(env); // the model edited it, then deleted it
    expect(new CheckpointStore(join(root, "cp")).restoreFrom(0, [root]).restored).toEqual([env]);
    expect(readFileSync(env, "utf8")).toBe("API_KEY=secret\n");
    expect(statSync(env).mode & 0o777).toBe(0o600);
  });

  it("stays within its limit: the oldest checkpoint is dropped with a note, and its file is reported as not restored", () => {
    const root = mkdtempSync(join(tmpdir(), "mitsu-checkpoints-"));
    dirs.push(root);
    const notes: string[] = [];
    const store = new CheckpointStore(join(root, "cp"), { limit: 10, warn: (m) => notes.push(m) });
    const a = join(root, "a.txt");
    const b = join(root, "b.txt");
    writeFileSync(a, "aaaaaa");
    writeFileSync(b, "bbbbbb");
    store.save(0, a);
    store.save(2, b);
    expect(notes.join("\n")).toContain(`can no longer restore ${a}`);
    writeFileSync(a, "changed");
    writeFileSync(b, "changed");
    // A store reopened from the folder (a resumed session) knows the same checkpoints.
    const result = new CheckpointStore(join(root, "cp")).restoreFrom(0, [root]);
    expect(result.restored).toEqual([b]);
    expect(result.notRestored).toEqual([{ path: a, why: "its checkpoint was dropped (size limit)" }]);
    expect(readFileSync(b, "utf8")).toBe("bbbbbb");
    expect(readFileSync(a, "utf8")).toBe("changed");
    expect(existsSync(join(root, "cp", "0.bin"))).toBe(false);
  });

  it("never loads a file over its limit: a Write over a 400 MB file costs no 400 MB of memory", () => {
    const root = mkdtempSync(join(tmpdir(), "mitsu-checkpoints-"));
    dirs.push(root);
    const big = join(root, "big.bin");
    writeFileSync(big, "");
    truncateSync(big, 400 * 1024 * 1024); // sparse: no disk used, but a read would fill 400 MB of memory
    const notes: string[] = [];
    const store = new CheckpointStore(join(root, "cp"), { warn: (m) => notes.push(m) });
    const before = process.resourceUsage().maxRSS;
    store.save(0, big);
    const grewKb = process.resourceUsage().maxRSS - before;
    expect(grewKb).toBeLessThan(100 * 1024);
    expect(notes.join("\n")).toContain(`checkpoint of ${big} skipped: larger than`);
    expect(store.restoreFrom(0, [root]).notRestored).toEqual([
      { path: big, why: "its checkpoint was dropped (size limit)" },
    ]);
  });
});
