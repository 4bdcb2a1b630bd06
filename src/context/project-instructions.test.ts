import { rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempTree } from "../../test/support/file-tree.js";
import { findImports, instructionsChanged, loadProjectInstructions } from "./project-instructions.js";

const tree = (files: Record<string, string>) => tempTree("mitsu-instr-", files);

describe("project instruction discovery", () => {
  it("reads Claude Code's ~/.claude/CLAUDE.md as the user's instructions too, after mitsu's own", async () => {
    const root = tree({
      "home/.mitsu/AGENTS.md": "mitsu user rule",
      "home/.claude/CLAUDE.md": "claude user rule",
      "repo/.git/HEAD": "ref: refs/heads/main",
    });
    const result = await loadProjectInstructions({ cwd: join(root, "repo"), home: join(root, "home") });
    expect(result.files.map((f) => [f.path.slice(root.length), f.kind])).toEqual([
      ["/home/.mitsu/AGENTS.md", "user"],
      ["/home/.claude/CLAUDE.md", "user"],
    ]);
    expect(result.text.indexOf("mitsu user rule")).toBeLessThan(result.text.indexOf("claude user rule"));
  });

  it("reads AGENTS.md, CLAUDE.md and .claude/CLAUDE.md from the repository root down to cwd, user file first", async () => {
    const root = tree({
      "home/.mitsu/AGENTS.md": "user rule",
      "repo/.git/HEAD": "ref: refs/heads/main",
      "repo/AGENTS.md": "root agents",
      "repo/CLAUDE.md": "root claude",
      "repo/pkg/CLAUDE.local.md": "my local notes",
      "repo/pkg/.claude/CLAUDE.md": "pkg dot-claude",
      "repo/pkg/app/AGENTS.md": "app agents",
      "AGENTS.md": "outside the repository: never read",
    });
    const result = await loadProjectInstructions({
      cwd: join(root, "repo/pkg/app"),
      home: join(root, "home"),
    });
    expect(result.files.map((f) => [f.path.slice(root.length), f.kind])).toEqual([
      ["/home/.mitsu/AGENTS.md", "user"],
      ["/repo/AGENTS.md", "project"],
      ["/repo/CLAUDE.md", "project"],
      ["/repo/pkg/.claude/CLAUDE.md", "project"],
      ["/repo/pkg/CLAUDE.local.md", "local"],
      ["/repo/pkg/app/AGENTS.md", "project"],
    ]);
    const order = [
      "user rule",
      "root agents",
      "root claude",
      "pkg dot-claude",
      "my local notes",
      "app agents",
    ].map((t) => result.text.indexOf(t));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(order[0]).toBeGreaterThan(0);
    expect(result.text).toContain(`Contents of ${join(root, "repo/AGENTS.md")}`);
    expect(result.text).not.toContain("never read");
  });

  it("reads only cwd when it is not inside a repository", async () => {
    const root = tree({ "AGENTS.md": "parent", "sub/AGENTS.md": "child" });
    const result = await loadProjectInstructions({ cwd: join(root, "sub"), home: join(root, "nohome") });
    expect(result.files.map((f) => f.content)).toEqual(["child"]);
  });

  it("treats a .git file (worktree) as the root too, and returns no text without files", async () => {
    const root = tree({ "wt/.git": "gitdir: elsewhere", "wt/a/b/.keep": "" });
    const result = await loadProjectInstructions({ cwd: join(root, "wt/a/b"), home: root });
    expect(result.files).toEqual([]);
    expect(result.text).toBe("");
    // root + a + b, four names and two rules folders each, plus the two user files and the user's two rules
    // folders: every candidate is stamped.
    expect(result.stamps.length).toBe(22);
  });
});

describe("unreadable files", () => {
  it("notes a file that cannot be read instead of failing", async () => {
    const root = tree({
      "r/.git/HEAD": "",
      "r/AGENTS.md/inside.txt": "a folder named AGENTS.md",
      "r/CLAUDE.md": "ok",
    });
    const result = await loadProjectInstructions({ cwd: join(root, "r"), home: root });
    expect(result.files.map((f) => f.content)).toEqual(["", "ok"]);
    expect(result.notes).toEqual([
      expect.stringMatching(/AGENTS\.md could not be read: .*AGENTS\.md is a directory$/),
    ]);
    expect(result.text).toContain("Note: ");
  });
});

describe("@path imports", () => {
  it("a repository's import of the user's keys is not read: outside the project only Markdown files are imported", async () => {
    const root = tree({
      "repo/.git/HEAD": "",
      "repo/CLAUDE.md":
        "Config: @~/.mitsu/models.json and @~/.claude/.credentials.json and @~/.claude/prefs.md",
      "home/.mitsu/models.json": '{"providers": {"x": {"apiKey": "sk-SECRET-KEY"}}}',
      "home/.claude/.credentials.json": '{"claudeAiOauth": {"accessToken": "sk-ant-oat-SECRET"}}',
      "home/.claude/prefs.md": "Tabs, never spaces.",
    });
    const result = await loadProjectInstructions({ cwd: join(root, "repo"), home: join(root, "home") });
    expect(result.text).not.toContain("SECRET");
    expect(result.text).toContain("Tabs, never spaces.");
    expect(result.notes.join("\n")).toContain("@~/.mitsu/models.json was not imported");
    expect(result.notes.join("\n")).toContain("only Markdown");
  });

  it("follows nested imports relative to the importing file, and ~/ into the user's folders", async () => {
    const root = tree({
      "repo/.git/HEAD": "",
      "repo/AGENTS.md": "See @docs/style.md for style.",
      "repo/docs/style.md": "Style rules. Also @../shared/common.md and @~/.claude/prefs.md.",
      "repo/shared/common.md": "Common rules.",
      "home/.claude/prefs.md": "Tabs, never spaces.",
    });
    const result = await loadProjectInstructions({ cwd: join(root, "repo"), home: join(root, "home") });
    expect(result.files.map((f) => [f.path.slice(root.length), f.depth])).toEqual([
      ["/repo/AGENTS.md", 0],
      ["/repo/docs/style.md", 1],
      ["/repo/shared/common.md", 2],
      ["/home/.claude/prefs.md", 2],
    ]);
    expect(result.files[1]!.importedBy).toBe(join(root, "repo/AGENTS.md"));
    expect(result.text).toContain(`imported by ${join(root, "repo/docs/style.md")}`);
    expect(result.notes).toEqual([]);
  });

  it("stops at 5 levels with a note", async () => {
    const files: Record<string, string> = { "r/.git/HEAD": "", "r/AGENTS.md": "@l1.md" };
    for (let i = 1; i <= 7; i++) files[`r/l${i}.md`] = `level ${i} @l${i + 1}.md`;
    const root = tree(files);
    const result = await loadProjectInstructions({ cwd: join(root, "r"), home: root });
    expect(result.files.map((f) => f.depth)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(result.notes).toEqual(["@l6.md was not imported: imports nest at most 5 levels deep."]);
    expect(result.text).toContain("Note: @l6.md was not imported");
    expect(result.text).not.toContain("level 6");
  });

  it("detects a cycle with a clear note and no infinite loop", async () => {
    const root = tree({
      "r/.git/HEAD": "",
      "r/AGENTS.md": "@a.md",
      "r/a.md": "A @b.md",
      "r/b.md": "B @a.md",
    });
    const result = await loadProjectInstructions({ cwd: join(root, "r"), home: root });
    expect(result.files.map((f) => f.path.slice(root.length))).toEqual([
      "/r/AGENTS.md",
      "/r/a.md",
      "/r/b.md",
    ]);
    expect(result.notes).toHaveLength(1);
    expect(result.notes[0]).toMatch(
      /^Import cycle: .*AGENTS\.md → .*a\.md → .*b\.md → .*a\.md; @a\.md was not imported again\.$/,
    );
  });

  it("notes a missing import instead of failing, and imports a shared file only once", async () => {
    const root = tree({
      "r/.git/HEAD": "",
      "r/AGENTS.md": "@missing.md @shared.md",
      "r/CLAUDE.md": "@shared.md",
      "r/shared.md": "shared text",
    });
    const result = await loadProjectInstructions({ cwd: join(root, "r"), home: root });
    expect(result.notes).toEqual([
      `@missing.md was not imported: ${join(root, "r/missing.md")} does not exist.`,
    ]);
    expect(result.files.filter((f) => f.content === "shared text")).toHaveLength(1);
    expect(result.text).toContain("does not exist");
  });

  it("ignores imports inside code fences, inline code, e-mail addresses and @mentions", () => {
    const text = [
      "Use @real.md and see (@docs/x.md).",
      "```sh",
      "npm i @scope/pkg.js",
      "```",
      "~~~",
      "@fenced.md",
      "~~~",
      "Run `@inline.md` or mail me@example.com; ask @alice.",
    ].join("\n");
    expect(findImports(text)).toEqual(["real.md", "docs/x.md"]);
  });
});

describe("change detection", () => {
  it("notices a changed, a new and a removed file", async () => {
    const root = tree({ "r/.git/HEAD": "", "r/AGENTS.md": "one", "r/a.md": "imported" });
    writeFileSync(join(root, "r/AGENTS.md"), "one @a.md");
    const cwd = join(root, "r");
    const first = await loadProjectInstructions({ cwd, home: root });
    expect(await instructionsChanged(first.stamps)).toBe(false);

    utimesSync(join(root, "r/a.md"), new Date(2001, 1, 1), new Date(2001, 1, 1));
    expect(await instructionsChanged(first.stamps)).toBe(true);

    const second = await loadProjectInstructions({ cwd, home: root });
    writeFileSync(join(root, "r/CLAUDE.md"), "new file");
    expect(await instructionsChanged(second.stamps)).toBe(true);

    const third = await loadProjectInstructions({ cwd, home: root });
    rmSync(join(root, "r/CLAUDE.md"));
    expect(await instructionsChanged(third.stamps)).toBe(true);
  });
});
