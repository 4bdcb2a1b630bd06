import { describe, expect, it } from "vitest";
import { expandInline } from "./expand-inline.js";

describe("expandInline", () => {
  it("runs commands in order, inlines files once, and never expands what they bring in", async () => {
    const ran: string[] = [];
    const out = await expandInline("A: !`one` B: !`two` see @a.md and @a.md, @b.md.", {
      runCommand: async (command) => {
        ran.push(command);
        return command === "one" ? "!`three` @a.md\n" : "2";
      },
      readFile: async (path) => (path === "a.md" ? { path, text: "alpha\n" } : undefined),
    });
    expect(ran).toEqual(["one", "two"]);
    expect(out).toBe(
      'A: !`three` @a.md B: 2 see a.md and a.md, @b.md.\n\n<file path="a.md">\nalpha\n</file>',
    );
  });

  it("says in place why a command did not run", async () => {
    const out = await expandInline("x !`rm -rf /` y", {
      runCommand: async () => {
        throw new Error("Permission to use Bash(rm -rf /) was denied.");
      },
    });
    expect(out).toBe("x [!`rm -rf /` was not run: Permission to use Bash(rm -rf /) was denied.] y");
    expect(await expandInline("!`ls`", {})).toBe("[!`ls` was not run: commands cannot run here]");
  });

  it("leaves e-mail addresses, npm scopes and plain backquotes alone", async () => {
    const text = "mail me@example.com, install @types/node, run `npm test`";
    const out = await expandInline(text, { readFile: async () => undefined, runCommand: async () => "X" });
    expect(out).toBe(text);
  });
});
