import { describe, expect, it } from "vitest";
import { assignServerParts } from "./assign-server-parts.js";

describe("assignServerParts", () => {
  it("gives every server a part of its own; the user's keeps the plain one, whatever the names' order", () => {
    const { parts, renamed } = assignServerParts([
      { name: ".github", scope: "cli" },
      { name: "github.", scope: "project" },
      { name: "github", scope: "user" },
    ]);
    expect(parts.get("github")).toBe("github");
    expect(new Set(parts.values()).size).toBe(3);
    expect(renamed.map((r) => [r.server, r.holder])).toEqual([
      [".github", "github"],
      ["github.", "github"],
    ]);
  });

  it("stays unique when a server is named like another's second part", () => {
    const first = assignServerParts([
      { name: "a", scope: "user" },
      { name: "a.", scope: "user" },
    ]).parts.get("a.")!;
    const { parts } = assignServerParts([
      { name: "a", scope: "user" },
      { name: "a.", scope: "user" },
      { name: first, scope: "project" },
    ]);
    expect(new Set(parts.values()).size).toBe(3);
  });
});
