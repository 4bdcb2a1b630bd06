import { describe, expect, it } from "vitest";
import { type PartialArg, PartialArgsWriter, parseJsonPath } from "./partial-args-writer.js";

function write(args: PartialArg[]): string {
  const writer = new PartialArgsWriter();
  return args.map((a) => writer.write(a)).join("") + writer.finish();
}

describe("PartialArgsWriter", () => {
  it("writes {} when no piece came", () => {
    expect(write([])).toBe("{}");
  });

  it("joins string pieces of one path and escapes them", () => {
    const text = write([
      { jsonPath: "$.s", stringValue: 'a"', willContinue: true },
      { jsonPath: "$.s", stringValue: "\\b\n", willContinue: true },
      { jsonPath: "$.s", stringValue: "" },
    ]);
    expect(JSON.parse(text)).toEqual({ s: 'a"\\b\n' });
  });

  it("opens and closes nested containers as paths move on", () => {
    const text = write([
      { jsonPath: "$.a.b[0].c", numberValue: 1 },
      { jsonPath: "$.a.b[0].d", boolValue: true },
      { jsonPath: "$.a.b[1]", stringValue: "x" },
      { jsonPath: "$.a.e", nullValue: "NULL_VALUE" },
      { jsonPath: "$.z[0][0]", numberValue: 2.5 },
    ]);
    expect(JSON.parse(text)).toEqual({ a: { b: [{ c: 1, d: true }, "x"], e: null }, z: [[2.5]] });
  });

  it("closes a string left open when the next path starts", () => {
    const text = write([
      { jsonPath: "$.a", stringValue: "par", willContinue: true },
      { jsonPath: "$.b", stringValue: "q" },
    ]);
    expect(JSON.parse(text)).toEqual({ a: "par", b: "q" });
  });
});

describe("parseJsonPath", () => {
  it("reads dotted names, indices and quoted names", () => {
    expect(parseJsonPath("$")).toEqual([]);
    expect(parseJsonPath("$.edits[12].new_string")).toEqual(["edits", 12, "new_string"]);
    expect(parseJsonPath("$['a b'][\"c]d\"]")).toEqual(["a b", "c]d"]);
  });

  it("names a path it cannot read", () => {
    expect(() => parseJsonPath("edits")).toThrow(/Unsupported JSON path in partialArgs: edits/);
    expect(() => parseJsonPath("$.a[*]")).toThrow(/Unsupported/);
  });
});
