import { describe, expect, it } from "vitest";
import { globRelativeTo } from "./exclude-globs.js";

describe("globRelativeTo", () => {
  it("keeps a pattern written for the search root", () => {
    expect(globRelativeTo("/p", "/secrets/**", "/p")).toBe("/secrets/**");
    expect(globRelativeTo("/p", "*.key", "/p")).toBe("*.key");
  });
  it("rewrites a pattern of a folder above the root, or drops it when it leads elsewhere", () => {
    expect(globRelativeTo("/h", "/projects/p/secrets/**", "/h/projects/p")).toBe("/secrets/**");
    expect(globRelativeTo("/h", "/.ssh/**", "/h/projects/p")).toBeUndefined();
    expect(globRelativeTo("/h", "/**/.env", "/h/projects/p")).toBe("/**/.env");
    expect(globRelativeTo("/h", "*.pem", "/h/projects/p")).toBe("*.pem");
  });
  it("prefixes a pattern of a folder below the root", () => {
    expect(globRelativeTo("/p/sub", "/secrets/**", "/p")).toBe("/sub/secrets/**");
    expect(globRelativeTo("/p/sub", ".env", "/p")).toBe("/sub/**/.env");
  });
  it("drops a pattern of an unrelated folder", () => {
    expect(globRelativeTo("/q", "/secrets/**", "/p")).toBeUndefined();
  });
});
