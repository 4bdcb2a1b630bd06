import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempTree } from "../../test/support/file-tree.js";
import { pathRulesSource } from "./path-rules-source.js";
import { instructionsChanged, loadProjectInstructions } from "./project-instructions.js";

const tree = (files: Record<string, string>) => tempTree("mitsu-rules-", files);

const collect = (source: ReturnType<typeof pathRulesSource>) =>
  source.collect({ turn: 1, round: 1, messages: [], now: new Date(), firstUserMessage: false });

describe(".claude/rules (Claude Code's modular rules)", () => {
  it("reads rules recursively, the user's first, each folder's after its .claude/CLAUDE.md and before CLAUDE.local.md; .mitsu/rules too", async () => {
    const root = tree({
      "home/.claude/rules/mine.md": "user rule",
      "repo/.git/HEAD": "ref: refs/heads/main",
      "repo/CLAUDE.md": "root claude",
      "repo/CLAUDE.local.md": "root local",
      "repo/.claude/rules/style.md": "style rule",
      "repo/.claude/rules/api/design.md": "api rule",
      "repo/.claude/rules/INDEX.txt": "not a rule",
      "repo/.mitsu/rules/own.md": "mitsu rule",
    });
    const result = await loadProjectInstructions({ cwd: join(root, "repo"), home: join(root, "home") });
    expect(result.files.map((f) => [f.path.slice(root.length), f.kind])).toEqual([
      ["/home/.claude/rules/mine.md", "user"],
      ["/repo/CLAUDE.md", "project"],
      ["/repo/.claude/rules/style.md", "project"],
      ["/repo/.claude/rules/api/design.md", "project"],
      ["/repo/.mitsu/rules/own.md", "project"],
      ["/repo/CLAUDE.local.md", "local"],
    ]);
    expect(result.text).not.toContain("not a rule");
    // A new rule file is a change (its folder's mtime moves).
    expect(await instructionsChanged(result.stamps)).toBe(false);
    writeFileSync(join(root, "repo/.claude/rules/api/new.md"), "new rule");
    expect(await instructionsChanged(result.stamps)).toBe(true);
  });

  it("a rule with paths: is not in the text; it is sent once a matching file is read, once", async () => {
    const root = tree({
      "repo/.git/HEAD": "ref: refs/heads/main",
      "repo/.claude/rules/api.md": '---\npaths:\n  - "src/api/**/*.ts"\n---\nValidate every request.',
      "repo/.claude/rules/tests.md": '---\npaths: "tests/**, **/*.test.ts"\n---\nUse vitest.',
    });
    const repo = join(root, "repo");
    const result = await loadProjectInstructions({ cwd: repo, home: join(root, "home") });
    expect(result.text).not.toContain("Validate every request.");
    expect(result.conditional.map((r) => r.globs)).toEqual([
      ["src/api/**/*.ts"],
      ["tests/**", "**/*.test.ts"],
    ]);
    const read: Array<{ path: string; mtimeMs: number }> = [];
    const source = pathRulesSource(
      () => result.conditional,
      () => read,
    );
    expect(await collect(source)).toBeUndefined();
    read.push({ path: join(repo, "src/other.ts"), mtimeMs: 1 });
    expect(await collect(source)).toBeUndefined();
    read.push({ path: join(repo, "src/api/v1/users.ts"), mtimeMs: 1 });
    const sent = await collect(source);
    expect(sent).toContain("Validate every request.");
    expect(sent).not.toContain("Use vitest.");
    expect(await collect(source)).toBeUndefined();
    read.push({ path: join(repo, "lib/x.test.ts"), mtimeMs: 1 });
    expect(await collect(source)).toContain("Use vitest.");
    source.reset?.();
    expect(await collect(source)).toContain("Validate every request.");
  });

  it("hostile repository: links to /etc/passwd and out of the repository, a link to itself, a folder loop, a huge file, a pathological glob", async () => {
    const root = tree({
      "repo/.git/HEAD": "ref: refs/heads/main",
      "outside/secret.md": "SECRET OUTSIDE",
      "repo/.claude/rules/ok.md": "fine rule",
      "repo/.claude/rules/big.md": `${"x".repeat(2_000_000)}`,
      "repo/.claude/rules/slow.md": `---\npaths: "${"*a".repeat(400)}*b"\n---\nslow rule`,
    });
    const rules = join(root, "repo/.claude/rules");
    symlinkSync("/etc/passwd", join(rules, "passwd.md"));
    symlinkSync(join(root, "outside/secret.md"), join(rules, "secret.md"));
    symlinkSync(join(root, "outside"), join(rules, "shared"));
    symlinkSync(join(rules, "self.md"), join(rules, "self.md"));
    symlinkSync(rules, join(rules, "loop"));
    const repo = join(root, "repo");
    const result = await loadProjectInstructions({ cwd: repo, home: join(root, "home") });
    expect(result.files.map((f) => f.path.slice(root.length))).toEqual(["/repo/.claude/rules/ok.md"]);
    expect(result.text).not.toContain("root:");
    expect(result.text).not.toContain("SECRET OUTSIDE");
    expect(result.notes.join("\n")).toMatch(/passwd\.md links to \/etc\/passwd, outside the project/);
    expect(result.notes.join("\n")).toMatch(/secret\.md links to .*outside\/secret\.md, outside the project/);
    expect(result.notes.join("\n")).toMatch(/self\.md is a symbolic link loop/);
    expect(result.notes.join("\n")).toMatch(/big\.md was not read: .* is larger than 1000000 bytes/);
    // The pathological glob is matched without backtracking.
    const [slow] = result.conditional;
    const started = performance.now();
    expect(slow?.matches(join(repo, `${"a".repeat(5_000)}c`))).toBe(false);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("hostile globs in bulk: 200 rules of 20 costly globs each against 50 files read stay quick, each pair matched once", async () => {
    const heavy = Array.from({ length: 20 }, (_, i) => `"${"**/".repeat(120)}*a*a*a*a*a*${i}"`).join(", ");
    const files: Record<string, string> = { "repo/.git/HEAD": "ref: refs/heads/main" };
    for (let i = 0; i < 200; i++)
      files[`repo/.claude/rules/r${i}.md`] = `---\npaths: [${heavy}]\n---\nrule ${i}`;
    const root = tree(files);
    const repo = join(root, "repo");
    const result = await loadProjectInstructions({ cwd: repo, home: join(root, "home") });
    // 1,000 globs in all: the rules past that budget have none left, and are notes.
    expect(result.conditional).toHaveLength(50);
    expect(result.notes.join("\n")).toContain("only the first 0 are used");
    const read = Array.from({ length: 50 }, (_, i) => ({
      path: join(repo, ...Array.from({ length: 12 }, () => "aaaaaaaaaa"), `f${i}.ts`),
      mtimeMs: 1,
    }));
    const source = pathRulesSource(
      () => result.conditional,
      () => read,
    );
    const started = performance.now();
    expect(await collect(source)).toBeUndefined();
    const first = performance.now() - started;
    expect(first).toBeLessThan(10_000);
    // The same files again: nothing is matched twice.
    const again = performance.now();
    expect(await collect(source)).toBeUndefined();
    expect(performance.now() - again).toBeLessThan(first / 5 + 50);
  });

  it("a repository whose .claude or rules folder is a link out of it: nothing there is read", async () => {
    const root = tree({
      "repo/.git/HEAD": "ref: refs/heads/main",
      "repo/sub/.git/HEAD": "ref: refs/heads/main",
      "elsewhere/rules/leak.md": "LEAKED FROM OUTSIDE",
    });
    symlinkSync(join(root, "elsewhere"), join(root, "repo/.claude"));
    mkdirSync(join(root, "repo/sub/.mitsu"), { recursive: true });
    symlinkSync(join(root, "elsewhere/rules"), join(root, "repo/sub/.mitsu/rules"));
    for (const cwd of [join(root, "repo"), join(root, "repo/sub")]) {
      const result = await loadProjectInstructions({ cwd, home: join(root, "home") });
      expect(result.text).not.toContain("LEAKED FROM OUTSIDE");
      expect(result.notes.join("\n")).toMatch(/resolves to .*elsewhere\/rules, outside the project/);
    }
  });

  it("the user's own rules may link anywhere (shared rules), as Claude Code follows them", async () => {
    const root = tree({
      "repo/.git/HEAD": "ref: refs/heads/main",
      "dotfiles/shared.md": "shared user rule",
    });
    mkdirSync(join(root, "home/.claude/rules"), { recursive: true });
    symlinkSync(join(root, "dotfiles/shared.md"), join(root, "home/.claude/rules/shared.md"));
    const result = await loadProjectInstructions({ cwd: join(root, "repo"), home: join(root, "home") });
    expect(result.text).toContain("shared user rule");
  });
});
