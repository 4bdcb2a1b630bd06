import { describe, expect, it } from "vitest";
import { testCommand, testSkill } from "../testing/test-skill.js";
import { expandInvocation, findSlashTarget, parseSlash, splitArguments } from "./expand-command.js";

// biome-ignore lint/suspicious/noTemplateCurlyInString: the literal placeholder a skill body contains
const MITSU_DIR = "${MITSU_SKILL_DIR}";
// biome-ignore lint/suspicious/noTemplateCurlyInString: the literal placeholder a skill body contains
const CLAUDE_DIR = "${CLAUDE_SKILL_DIR}";

describe("parseSlash", () => {
  it("splits the name from the arguments", () => {
    expect(parseSlash("/deploy stg")).toEqual({ name: "deploy", args: "stg" });
    expect(parseSlash("  /frontend:button  big red \n")).toEqual({
      name: "frontend:button",
      args: "big red",
    });
    expect(parseSlash("/commit")).toEqual({ name: "commit", args: "" });
    expect(parseSlash("/review main\nfocus on tests")).toEqual({
      name: "review",
      args: "main\nfocus on tests",
    });
  });

  it("leaves paths, a lone slash and ordinary text alone", () => {
    expect(parseSlash("/usr/bin/env is broken")).toBeUndefined();
    expect(parseSlash("/")).toBeUndefined();
    expect(parseSlash("/ deploy")).toBeUndefined();
    expect(parseSlash("please /deploy")).toBeUndefined();
  });
});

describe("findSlashTarget", () => {
  const catalog = {
    skills: [testSkill("deploy"), testSkill("hidden", { userInvocable: false })],
    commands: [testCommand("ns:build")],
  };
  it("finds skills and namespaced commands, but not skills hidden from /", () => {
    expect(findSlashTarget("deploy", catalog)?.name).toBe("deploy");
    expect(findSlashTarget("/ns:build", catalog)?.kind).toBe("command");
    expect(findSlashTarget("hidden", catalog)).toBeUndefined();
    expect(findSlashTarget("nope", catalog)).toBeUndefined();
  });
});

describe("splitArguments", () => {
  it("respects shell quoting and keeps $VAR, operators, globs and #words literal", () => {
    expect(splitArguments(`stg "hello world" 'a b' c\\ d`)).toEqual(["stg", "hello world", "a b", "c d"]);
    expect(splitArguments("$HOME *.ts a|b fix #123 now")).toEqual([
      "$HOME",
      "*.ts",
      "a",
      "|",
      "b",
      "fix",
      "#123",
      "now",
    ]);
  });

  it("splits on whitespace when an apostrophe leaves a quote open", () => {
    expect(splitArguments("don't touch tests")).toEqual(["don't", "touch", "tests"]);
  });

  it("gives nothing for empty input", () => {
    expect(splitArguments("   ")).toEqual([]);
  });
});

describe("expandInvocation", () => {
  it("replaces $ARGUMENTS with the whole argument string", () => {
    const command = testCommand("deploy", { body: "Deploy to $ARGUMENTS now.\nThen check $ARGUMENTS." });
    expect(expandInvocation(command, " stg  --fast ")).toBe(
      "Deploy to stg  --fast now.\nThen check stg  --fast.",
    );
  });

  it("replaces $0…$9 and $ARGUMENTS[N] counted from zero, as Claude Code does today; quotes respected, missing ones empty", () => {
    const command = testCommand("pr", { body: "PR $0 to $1 by [$2] ($9) $ARGUMENTS[1]" });
    expect(expandInvocation(command, `42 "release branch"`)).toBe(
      "PR 42 to release branch by [] () release branch",
    );
  });

  it("replaces the names listed in `arguments` (Claude Code's named arguments), and leaves other $WORDS", () => {
    const command = testCommand("migrate", {
      body: "Migrate $component from $from to $to; keep $HOME and $components.",
      argumentNames: ["component", "from", "to"],
    });
    expect(expandInvocation(command, "SearchBar React Vue")).toBe(
      "Migrate SearchBar from React to Vue; keep $HOME and $components.",
    );
  });

  it("leaves $10 alone and never re-expands text from the arguments", () => {
    const command = testCommand("x", { body: "$0 $10 $ARGUMENTS" });
    expect(expandInvocation(command, "a$2 $1")).toBe("a$2 $10 a$2 $1");
  });

  it("appends the arguments when the body has no placeholder", () => {
    const command = testCommand("lint");
    expect(expandInvocation(command, "src/")).toBe("Run lint.\n\nARGUMENTS: src/");
    expect(expandInvocation(command, "")).toBe("Run lint.");
  });

  it("starts a skill's text with its folder and files, and fills the skill-folder placeholders", () => {
    const skill = testSkill("deploy", {
      body: `Run ${MITSU_DIR}/scripts/deploy.sh $0 (or ${CLAUDE_DIR}).`,
      files: ["references/notes.md", "scripts/deploy.sh"],
    });
    expect(expandInvocation(skill, "stg")).toBe(
      [
        "Base directory for this skill: /skills/deploy",
        "Files in this folder (read one only when the instructions need it):",
        "- references/notes.md",
        "- scripts/deploy.sh",
        "",
        "Run /skills/deploy/scripts/deploy.sh stg (or /skills/deploy).",
      ].join("\n"),
    );
  });

  it("leaves the skill-folder placeholder in a command as written", () => {
    expect(expandInvocation(testCommand("c", { body: MITSU_DIR }), "")).toBe(MITSU_DIR);
  });
});
