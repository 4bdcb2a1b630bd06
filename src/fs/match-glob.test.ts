import { describe, expect, it } from "vitest";
import { compileGlob } from "./match-glob.js";

const matches = (pattern: string, path: string) => compileGlob(pattern)?.(path) ?? false;

describe("compileGlob", () => {
  it("matches as Claude Code's rules globs do", () => {
    expect(matches("src/**/*.ts", "src/a/b/c.ts")).toBe(true);
    expect(matches("src/**/*.ts", "src/c.ts")).toBe(true);
    expect(matches("src/**/*.ts", "lib/c.ts")).toBe(false);
    expect(matches("src/*.ts", "src/a/c.ts")).toBe(false);
    expect(matches("*.md", "docs/deep/readme.md")).toBe(true);
    expect(matches("src/**/*.{ts,tsx}", "src/ui/app.tsx")).toBe(true);
    expect(matches("src/**/*.{ts,tsx}", "src/ui/app.js")).toBe(false);
    expect(matches("src/api/**", "src/api/v1/x.ts")).toBe(true);
    expect(matches("test?.[jt]s", "test1.ts")).toBe(true);
    expect(matches("test?.[!jt]s", "test1.ts")).toBe(false);
    expect(matches("./lib/*.ts", "lib/x.ts")).toBe(true);
  });

  it("refuses patterns it cannot bound: empty, too long, too many brace alternatives", () => {
    expect(compileGlob("")).toBeUndefined();
    expect(compileGlob("a".repeat(2_000))).toBeUndefined();
    expect(compileGlob("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}")).toBeUndefined();
    expect(compileGlob(`${"**/".repeat(300)}x`)).toBeUndefined();
    expect(compileGlob(`${"**/".repeat(100)}x`)).toBeDefined();
  });

  it("pathological patterns stay fast (no backtracking regex): 200 matches each against a long path in well under the bound", () => {
    const star = `${"*a".repeat(60)}*b`;
    const deep = `${"**/".repeat(200)}x`;
    const name = "a".repeat(200);
    const path = Array.from({ length: 200 }, () => "a").join("/");
    const started = performance.now();
    for (let i = 0; i < 100; i++) {
      expect(matches(star, name)).toBe(false);
      expect(matches(deep, path)).toBe(false);
    }
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
