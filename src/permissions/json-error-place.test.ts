import { describe, expect, it } from "vitest";
import { jsonErrorPlace } from "./json-error-place.js";

describe("jsonErrorPlace", () => {
  it("names the line and column where JSON stops being valid", () => {
    expect(jsonErrorPlace('{\n "permissions": {\n  "allow": ["x",]\n }\n}\n')).toBe(
      'line 3, column 17: unexpected "]"',
    );
    expect(jsonErrorPlace('{\n "a": 1\n "b": 2\n}')).toBe('line 3, column 2: unexpected "\\""');
    expect(jsonErrorPlace('{"a": tru}')).toBe('line 1, column 10: unexpected "}"');
    expect(jsonErrorPlace('{"a": "\\u12x4"}')).toBe('line 1, column 12: unexpected "x"');
    expect(jsonErrorPlace('{"a": [1, 2')).toBe("line 1, column 12: unexpected end");
    expect(jsonErrorPlace("{} x")).toBe('line 1, column 4: unexpected "x"');
  });

  it("is undefined for valid JSON", () => {
    for (const text of ['{"a": [1, -2.5e3, true, false, null, "\\u00e9\\n"]}', " [] ", '"x"']) {
      expect(jsonErrorPlace(text), text).toBeUndefined();
    }
  });
});
