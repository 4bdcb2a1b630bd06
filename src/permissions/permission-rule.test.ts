import { describe, expect, it } from "vitest";
import {
  fileRuleMatches,
  PermissionRuleError,
  parsePermissionRule,
  ruleAppliesToTool,
  urlRuleMatches,
} from "./permission-rule.js";

const origin = { source: "/p/.mitsu/settings.json", root: "/p", home: "/home/u" };
const rule = (text: string) => parsePermissionRule(text, origin);
const bash = (text: string, command: string) => rule(text).command!(command.split(" "));

describe("parsePermissionRule", () => {
  it("parses a tool name alone and with a specifier", () => {
    expect(rule("Read")).toMatchObject({ toolName: "Read", text: "Read" });
    expect(rule(" Bash(npm run test:*) ")).toMatchObject({ toolName: "Bash", specifier: "npm run test:*" });
    expect(rule("mcp__github__create_issue")).toMatchObject({ toolName: "mcp__github__create_issue" });
    expect(rule("WebFetch(domain:example.com)")).toMatchObject({ specifier: "domain:example.com" });
  });

  it("rejects malformed rules with a message naming the rule and where it was written", () => {
    const where = "permissions.allow[1] in /p/.mitsu/settings.json";
    const bad = (text: string) => () => parsePermissionRule(text, origin, where);
    expect(bad("Bash(npm test")).toThrow(PermissionRuleError);
    expect(bad("Bash(npm test")).toThrow(
      'Invalid permission rule "Bash(npm test" (permissions.allow[1] in /p/.mitsu/settings.json): it has no closing ")"',
    );
    expect(bad("Bash()")).toThrow(/parentheses are empty/);
    expect(bad("")).toThrow(/it is empty/);
    expect(bad("Read Write")).toThrow(/is not a tool name/);
    expect(bad("mcp__server(x)")).toThrow(/MCP rules take no parentheses/);
    expect(bad("Bash(:*)")).toThrow(/needs a command/);
  });
});

describe("Bash rules", () => {
  it("match exactly, or by whole-word prefix with :*", () => {
    expect(bash("Bash(npm test)", "npm test")).toBe(true);
    expect(bash("Bash(npm test)", "npm test --watch")).toBe(false);
    expect(bash("Bash(npm run test:*)", "npm run test")).toBe(true);
    expect(bash("Bash(npm run test:*)", "npm run test -- --grep x")).toBe(true);
    expect(bash("Bash(npm run test:*)", "npm run testing")).toBe(false);
    expect(bash("Bash(npm run test:*)", "npm run")).toBe(false);
  });

  it("treat other * as wildcards over the whole command", () => {
    expect(bash("Bash(git * --dry-run)", "git push --dry-run")).toBe(true);
    expect(bash("Bash(git * --dry-run)", "git push --force")).toBe(false);
  });
});

describe("file rules", () => {
  const at = (text: string, path: string) => fileRuleMatches(rule(text), path);

  it("resolve ./, bare and single-/ patterns against the settings file's project root", () => {
    expect(at("Read(./secrets/**)", "/p/secrets/key.pem")).toBe(true);
    expect(at("Read(./secrets/**)", "/p/app/secrets/key.pem")).toBe(false);
    expect(at("Write(src/**)", "/p/src/a/b.ts")).toBe(true);
    expect(at("Write(src/**)", "/other/src/a.ts")).toBe(false);
    expect(at("Edit(/docs/*.md)", "/p/docs/a.md")).toBe(true);
    expect(at("Edit(/docs/*.md)", "/docs/a.md")).toBe(false);
  });

  it("match a pattern without a slash at any depth, as gitignore does", () => {
    expect(at("Read(*.env)", "/p/a/b/.env")).toBe(true);
    expect(at("Read(.env)", "/p/a/b/.env")).toBe(true);
    expect(at("Read(*.pem)", "/p/keys/server.pem")).toBe(true);
  });

  it("resolve //abs and ~/ patterns", () => {
    expect(at("Read(//etc/**)", "/etc/passwd")).toBe(true);
    expect(at("Read(~/.ssh/**)", "/home/u/.ssh/id_rsa")).toBe(true);
    expect(at("Read(~/.ssh/**)", "/p/.ssh/id_rsa")).toBe(false);
  });

  it("also match through a real base (a linked project root)", () => {
    expect(fileRuleMatches(rule("Edit(./src/**)"), "/real/p/src/a.ts", "/real/p")).toBe(true);
  });
});

describe("ruleAppliesToTool", () => {
  it("lets Edit cover Write, Read cover Grep and Glob, and mcp__server cover its tools", () => {
    expect(ruleAppliesToTool(rule("Edit"), "Write", "write")).toBe(true);
    expect(ruleAppliesToTool(rule("Edit"), "Grep", "read")).toBe(false);
    expect(ruleAppliesToTool(rule("Write"), "Edit", "write")).toBe(false);
    expect(ruleAppliesToTool(rule("Read"), "Grep", "read")).toBe(true);
    expect(ruleAppliesToTool(rule("Read"), "Write", "write")).toBe(false);
    expect(ruleAppliesToTool(rule("Read"), "Bash")).toBe(false);
    expect(ruleAppliesToTool(rule("mcp__github"), "mcp__github__create_issue")).toBe(true);
    expect(ruleAppliesToTool(rule("mcp__github"), "mcp__githubx__a")).toBe(false);
    expect(ruleAppliesToTool(rule("mcp__github__*"), "mcp__github__list")).toBe(true);
    expect(ruleAppliesToTool(rule("mcp__github__create_issue"), "mcp__github__list")).toBe(false);
  });

  it("reads mcp__* (every MCP tool) and mcp__server__prefix* as Claude Code settings write them", () => {
    expect(ruleAppliesToTool(rule("mcp__*"), "mcp__github__list")).toBe(true);
    expect(ruleAppliesToTool(rule("mcp__*"), "Bash")).toBe(false);
    expect(ruleAppliesToTool(rule("mcp__github__get_*"), "mcp__github__get_issue")).toBe(true);
    expect(ruleAppliesToTool(rule("mcp__github__get_*"), "mcp__github__delete_repo")).toBe(false);
  });
});

describe("WebFetch rules", () => {
  it("match a domain", () => {
    expect(urlRuleMatches(rule("WebFetch(domain:example.com)"), "https://example.com/a")).toBe(true);
    expect(urlRuleMatches(rule("WebFetch(domain:example.com)"), "https://evil.com/example.com")).toBe(false);
  });
});
