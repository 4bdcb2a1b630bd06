import { describe, expect, it } from "vitest";
import { checkElicitationAnswer, readElicitationForm } from "./elicitation-form.js";

/** The form of `schema` (JSON text, as a server's request arrives: JSON.parse keeps `__proto__` as a key). */
function form(schema: string) {
  const read = readElicitationForm("m", JSON.parse(schema));
  if ("error" in read) throw new Error(read.error);
  return read.ok;
}

describe("elicitation form: field names that are Object.prototype's", () => {
  it("a required field named constructor or toString must be given: an empty accept is refused", () => {
    const f = form(
      '{"type":"object","properties":{"constructor":{"type":"string"},"toString":{"type":"boolean"}},"required":["constructor","toString"]}',
    );
    expect(checkElicitationAnswer(f, { action: "accept", content: {} })).toEqual({
      error: "constructor is required",
    });
    expect(
      checkElicitationAnswer(f, { action: "accept", content: { constructor: "x", toString: true } }),
    ).toEqual({ ok: { action: "accept", content: { constructor: "x", toString: true } } });
  });

  it("a field named __proto__ (its value would be lost on the way) is not asked", () => {
    const read = readElicitationForm(
      "m",
      JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"]}'),
    );
    expect(read).toEqual({ error: 'field "__proto__": a field by this name cannot be answered' });
  });
});

describe("elicitation form: dates", () => {
  const date = form('{"type":"object","properties":{"d":{"type":"string","format":"date"}}}');
  const dateTime = form('{"type":"object","properties":{"d":{"type":"string","format":"date-time"}}}');
  const check = (f: typeof date, d: string) =>
    "ok" in checkElicitationAnswer(f, { action: "accept", content: { d } });

  it("a day the calendar does not have is refused (Date.parse rolls 2024-02-31 over into March)", () => {
    for (const d of ["2024-02-30", "2024-02-31", "2023-02-29", "2024-04-31", "2024-13-01", "2024-00-10"])
      expect([d, check(date, d)]).toEqual([d, false]);
    expect(check(dateTime, "2024-02-30T10:00:00Z")).toBe(false);
  });

  it("a date and time is RFC 3339's, as the server's validator reads it: seconds and an offset, hours to 23", () => {
    for (const d of [
      "2024-01-01T10:00",
      "2024-01-01T10:00:00",
      "2024-01-01T24:00:00Z",
      "2024-01-01 10:00:00Z",
    ])
      expect([d, check(dateTime, d)]).toEqual([d, false]);
    for (const d of ["2024-01-01T10:00:00Z", "2024-01-01T10:00:00.123+09:00", "2024-06-30T23:59:60Z"])
      expect([d, check(dateTime, d)]).toEqual([d, true]);
  });

  it("real days are taken, leap days and early years too", () => {
    for (const d of ["2024-02-29", "2000-02-29", "2024-12-31", "0050-01-01"])
      expect([d, check(date, d)]).toEqual([d, true]);
    expect(check(dateTime, "2024-02-29T10:00:00Z")).toBe(true);
  });
});
