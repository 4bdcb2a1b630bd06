import { readdir, readFile, symlink } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, calls, E2eHarness, resultText } from "./e2e-harness.js";

// Workspace confinement through the loop, with every permission given (bypassPermissions): leaving the
// workspace is not a permission question, so nothing may reach outside it whatever the mode.
let h: E2eHarness;
beforeEach(async () => {
  h = await E2eHarness.start();
  await h.put("../outside/secret.txt", "top secret\n");
  await h.put("inside.txt", "fine\n");
  await symlink(join(h.outside, "secret.txt"), h.path("link-out"));
  await symlink(h.outside, h.path("linkdir"));
  await symlink(join(h.outside, "ghost.txt"), h.path("dangling"));
});
afterEach(() => h.close());

/** Read, Grep and Glob may also reach the folder where Bash saves full outputs, which their refusal names too. */
const READABLE = new Set(["dotdot", "absolute", "link", "grep-out", "glob-linkdir"]);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Every file below `folder` with its content, to compare before and after. */
async function snapshot(folder: string): Promise<Record<string, string>> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  const files: Record<string, string> = {};
  for (const entry of entries.filter((e) => e.isFile())) {
    const path = join(entry.parentPath, entry.name);
    files[path] = await readFile(path, "utf8");
  }
  return files;
}

describe("workspace confinement through the loop", () => {
  it("refuses ../, absolute paths elsewhere, links that point out and writes through a linked folder", async () => {
    const before = await snapshot(h.outside);
    const secret = join(h.outside, "secret.txt");
    const { result } = await h.run([
      calls(
        call("dotdot", "Read", { file_path: "../outside/secret.txt" }),
        call("absolute", "Read", { file_path: secret }),
        call("link", "Read", { file_path: "link-out" }),
        call("write-dotdot", "Write", { file_path: "../outside/new.txt", content: "x" }),
        call("write-absolute", "Write", { file_path: join(h.outside, "abs.txt"), content: "x" }),
        call("write-linkdir", "Write", { file_path: "linkdir/planted.txt", content: "x" }),
        call("write-dangling", "Write", { file_path: "dangling", content: "x" }),
        call("edit-link", "Edit", { file_path: "link-out", old_string: "top secret", new_string: "pwned" }),
        call("grep-out", "Grep", { pattern: "secret", path: "../outside" }),
        call("glob-linkdir", "Glob", { pattern: "**/*", path: "linkdir" }),
      ),
      calls(call("inside", "Read", { file_path: "inside.txt" })),
    ]);
    expect(result.reason).toBe("end_turn");

    const where = `The file tools can only reach the working folder ${h.root}`;
    const outsideMessage = (path: string, absolute: string) =>
      `Access denied: ${path} (${absolute}) is outside the workspace. ${where}`;
    const linkMessage = (path: string, real: string) =>
      `Access denied: ${path} resolves through a symbolic link to ${real}, which is outside the workspace. ${where}`;
    const expected: Record<string, string> = {
      dotdot: outsideMessage("../outside/secret.txt", secret),
      absolute: outsideMessage(secret, secret),
      link: linkMessage("link-out", secret),
      "write-dotdot": outsideMessage("../outside/new.txt", join(h.outside, "new.txt")),
      "write-absolute": outsideMessage(join(h.outside, "abs.txt"), join(h.outside, "abs.txt")),
      "write-linkdir": linkMessage("linkdir/planted.txt", join(h.outside, "planted.txt")),
      "write-dangling": linkMessage("dangling", join(h.outside, "ghost.txt")),
      "edit-link": linkMessage("link-out", secret),
      "grep-out": outsideMessage("../outside", h.outside),
      "glob-linkdir": linkMessage("linkdir", h.outside),
    };
    const bashOutputs = `${escapeRegExp(h.base)}/tmp/mitsu-bash-[\\w-]+`;
    for (const [id, message] of Object.entries(expected)) {
      const sent = h.sent(id);
      // Read, Grep and Glob may also reach the folder of saved Bash outputs, and say so as such.
      const also = READABLE.has(id)
        ? `; also the folder where Bash saves full outputs \\(${bashOutputs}\\)`
        : "";
      expect({ id, is_error: sent.is_error }).toEqual({ id, is_error: true });
      expect(resultText(sent)).toMatch(
        new RegExp(
          `^${escapeRegExp(message)} \\(the user can add folders with --add-dir, or /add-dir in an interactive session\\)${also}\\.$`,
        ),
      );
    }
    expect(JSON.stringify(h.sentResults())).not.toContain("top secret");
    // No effect on disk: the folder outside is exactly as it was, and the dangling link still dangles.
    expect(await snapshot(h.outside)).toEqual(before);
    // The workspace itself still works in the same run.
    expect(h.sentText("inside")).toBe("     1\tfine");
  });
});
