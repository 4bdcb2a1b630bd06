import { describe, expect, test } from "vitest";
import { prng } from "../../test/fixtures.js";
import { JsonAccumulator } from "./json-accumulator.js";
import type { JsonResult } from "./json-result.js";
import { JsonScanner } from "./json-scanner.js";
import type { StringChunk } from "./stream-event.js";

type Rand = () => number;
type Status = JsonResult["status"];

/** Feeds `fragments` to a fresh accumulator; returns the verdict and every push's chunks. */
function accumulate(fragments: readonly string[], live = true) {
  const acc = new JsonAccumulator({ live });
  const pushes = fragments.map((f) => acc.push(f));
  return { acc, result: acc.finish(), pushes };
}

function pick<T>(rand: Rand, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)]!;
}

/** Cuts `text` into fragments of 1..max code units (so pairs, escapes, numbers and literals split anywhere). */
function fragmentsOf(text: string, rand: Rand, max: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; ) {
    const n = 1 + Math.floor(rand() * max);
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

/**
 * An independent oracle: a plain recursive-descent reading of RFC 8259 as JSON.parse applies it. Running out of
 * text means "incomplete", a wrong character means "invalid". Deliberately written differently from the scanner.
 */
function referenceStatus(t: string): Status {
  const END = new Error("end");
  const BAD = new Error("bad");
  let i = 0;
  const peek = (): string => {
    if (i >= t.length) throw END;
    return t[i]!;
  };
  const ws = () => {
    while (i < t.length && " \t\n\r".includes(t[i]!)) i++;
  };
  const expectChar = (ch: string) => {
    if (peek() !== ch) throw BAD;
    i++;
  };
  const digits = (required: boolean) => {
    if (required && !/[0-9]/.test(peek())) throw BAD;
    while (i < t.length && /[0-9]/.test(t[i]!)) i++;
  };
  const string = () => {
    expectChar('"');
    for (;;) {
      const c = peek();
      i++;
      if (c === '"') return;
      if (c === "\\") {
        const e = peek();
        i++;
        if (e === "u") {
          for (let k = 0; k < 4; k++) {
            if (!/[0-9a-fA-F]/.test(peek())) throw BAD;
            i++;
          }
        } else if (!'"\\/bfnrt'.includes(e)) throw BAD;
      } else if (c.charCodeAt(0) < 0x20) throw BAD;
    }
  };
  const value = (): void => {
    ws();
    const c = peek();
    if (c === "{" || c === "[") {
      i++;
      ws();
      if (peek() === (c === "{" ? "}" : "]")) {
        i++;
        return;
      }
      for (;;) {
        if (c === "{") {
          ws();
          string();
          ws();
          expectChar(":");
        }
        value();
        ws();
        const d = peek();
        i++;
        if (d === (c === "{" ? "}" : "]")) return;
        if (d !== ",") throw BAD;
      }
    }
    if (c === '"') {
      string();
      return;
    }
    for (const word of ["true", "false", "null"]) {
      if (c === word[0]) {
        for (const ch of word) expectChar(ch);
        return;
      }
    }
    if (c === "-") i++;
    if (peek() === "0") i++;
    else digits(true);
    if (i < t.length && t[i] === ".") {
      i++;
      digits(true);
    }
    if (i < t.length && (t[i] === "e" || t[i] === "E")) {
      i++;
      if (i < t.length && (t[i] === "+" || t[i] === "-")) i++;
      digits(true);
    }
  };
  try {
    value();
    ws();
    return i < t.length ? "invalid" : "ok";
  } catch (error) {
    if (error === END) return "incomplete";
    if (error === BAD) return "invalid";
    throw error;
  }
}

// Characters for generated strings: ASCII, escapes, controls, BMP, astral (pairs), lone surrogates, BOM, U+2028.
const STRING_CHARS = [
  ..."abz XYZ09{}[]:,",
  '"',
  "\\",
  "/",
  "\n",
  "\t",
  "\r",
  "\b",
  "\f",
  "\u0000",
  "\u001f",
  "\u007f",
  "é",
  "日",
  "本",
  "😀",
  "🎉",
  "\u2028",
  "\ufeff",
  "\ud800",
  "\udfff",
];
const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "/": "\\/",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};
const WHITESPACE = ["", "", "", " ", "\n", "\t", "\r\n  "];

function genString(rand: Rand, maxLength: number): string {
  let decoded = "";
  const n = Math.floor(rand() * maxLength);
  for (let k = 0; k < n; k++) decoded += pick(rand, STRING_CHARS);
  let out = '"';
  for (let k = 0; k < decoded.length; k++) {
    const ch = decoded[k]!;
    const code = ch.charCodeAt(0);
    const mustEscape = code < 0x20 || ch === '"' || ch === "\\";
    const r = rand();
    if (!mustEscape && r < 0.6) out += ch;
    else if (SHORT_ESCAPES[ch] !== undefined && r < 0.85) out += SHORT_ESCAPES[ch];
    else {
      const hex = code.toString(16).padStart(4, "0");
      out += `\\u${rand() < 0.5 ? hex : hex.toUpperCase()}`;
    }
  }
  return `${out}"`;
}

function genNumber(rand: Rand): string {
  let out = rand() < 0.3 ? "-" : "";
  out +=
    rand() < 0.3 ? "0" : String(1 + Math.floor(rand() * 9)) + "0123456789".slice(0, Math.floor(rand() * 4));
  if (rand() < 0.4) out += `.${String(Math.floor(rand() * 1000))}`;
  if (rand() < 0.3) out += `${pick(rand, ["e", "E"])}${pick(rand, ["", "+", "-"])}${Math.floor(rand() * 30)}`;
  return out;
}

/** Random valid JSON text with random whitespace and escaping; unique keys per object. */
function genJson(rand: Rand, depth: number): string {
  const ws = () => pick(rand, WHITESPACE);
  const r = rand();
  if (depth > 0 && r < 0.25) {
    const keys = new Set<string>();
    const members: string[] = [];
    const n = Math.floor(rand() * 5);
    for (let k = 0; k < n; k++) {
      const key = genString(rand, 6);
      const decodedKey = JSON.parse(key) as string;
      if (keys.has(decodedKey)) continue;
      keys.add(decodedKey);
      members.push(`${ws()}${key}${ws()}:${ws()}${genJson(rand, depth - 1)}${ws()}`);
    }
    return members.length === 0 ? `{${ws()}}` : `{${members.join(",")}}`;
  }
  if (depth > 0 && r < 0.5) {
    const n = Math.floor(rand() * 5);
    const items = Array.from({ length: n }, () => `${ws()}${genJson(rand, depth - 1)}${ws()}`);
    return n === 0 ? `[${ws()}]` : `[${items.join(",")}]`;
  }
  if (r < 0.75) return genString(rand, 12);
  if (r < 0.9) return genNumber(rand);
  return pick(rand, ["true", "false", "null"]);
}

const INSERTS = [
  ...'{}[]:,"\\ 0123456789-+.eEtfnulx',
  "\n",
  "\u0000",
  "\u001f",
  "\u00a0",
  "\ufeff",
  "\ud83d",
  "celsius",
  "tru",
  "nul",
  "NaN",
  "Infinity",
  "'a'",
  ".5",
  "+1",
  "0x1",
  "01",
  "1.",
  "\\u12",
  "\\x",
  "//",
  ",]",
  ",}",
];

function mutate(text: string, rand: Rand): string {
  const at = Math.floor(rand() * (text.length + 1));
  const r = rand();
  if (r < 0.25) return text.slice(0, at);
  if (r < 0.55) return text.slice(0, at) + pick(rand, INSERTS) + text.slice(at);
  if (r < 0.75) return text.slice(0, at) + text.slice(at + 1);
  return text.slice(0, at) + pick(rand, INSERTS) + text.slice(at + 1);
}

function parseStatus(text: string): "ok" | "fail" {
  try {
    JSON.parse(text);
    return "ok";
  } catch {
    return "fail";
  }
}

/** Every string value in `value` by path (as a JSON key), the oracle for the live chunks. */
function stringsByPath(value: unknown, path: (string | number)[] = [], out = new Map<string, string>()) {
  if (typeof value === "string") {
    if (value.length > 0) out.set(JSON.stringify(path), value);
  } else if (Array.isArray(value)) {
    value.forEach((item, k) => {
      stringsByPath(item, [...path, k], out);
    });
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) stringsByPath(item, [...path, key], out);
  }
  return out;
}

/** Checks the live chunks of one fragmentation against the parsed value, and the per-push chunk contract. */
function checkChunks(pushes: readonly (readonly StringChunk[])[], value: unknown) {
  const joined = new Map<string, string[]>();
  for (const chunks of pushes) {
    const seen = new Set<string>();
    for (const chunk of chunks) {
      const key = JSON.stringify(chunk.path);
      expect(seen.has(key), `two chunks for ${key} in one push`).toBe(false);
      seen.add(key);
      expect(chunk.text.length).toBeGreaterThan(0);
      expect(Object.isFrozen(chunk.path)).toBe(true);
      const list = joined.get(key) ?? [];
      list.push(chunk.text);
      joined.set(key, list);
    }
  }
  const actual = new Map<string, string>();
  for (const [key, list] of joined) {
    // A surrogate pair is never split between two chunks.
    for (let k = 0; k + 1 < list.length; k++) {
      const last = list[k]!.charCodeAt(list[k]!.length - 1);
      const next = list[k + 1]!.charCodeAt(0);
      const split = last >= 0xd800 && last <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
      expect(split, `a pair of ${key} split between chunks`).toBe(false);
    }
    actual.set(key, list.join(""));
  }
  expect(actual).toEqual(stringsByPath(value));
}

describe("JsonAccumulator verdicts", () => {
  const cases: [string, Status][] = [
    ["", "incomplete"],
    [" \n\t\r", "incomplete"],
    ["{}", "ok"],
    ['{"a":1}', "ok"],
    ["12", "ok"],
    ["12 ", "ok"],
    ["0", "ok"],
    ["-0.5e-3", "ok"],
    ["1E+2", "ok"],
    ['"x"', "ok"],
    ["true", "ok"],
    ["null \n", "ok"],
    ['"\\ud800"', "ok"],
    ['"\ud800"', "ok"],
    ["-", "incomplete"],
    ["1.", "incomplete"],
    ["1e", "incomplete"],
    ["1e-", "incomplete"],
    ["tru", "incomplete"],
    ["[", "incomplete"],
    ['{"a"', "incomplete"],
    ['{"a":', "incomplete"],
    ['{"a":1,', "incomplete"],
    ['"\\u00', "incomplete"],
    ['"\\', "incomplete"],
    ["[1, 2", "incomplete"],
    ["01", "invalid"],
    ["-01", "invalid"],
    ["1 2", "invalid"],
    ["[1,]", "invalid"],
    ['{"a":1,}', "invalid"],
    ["trux", "invalid"],
    ["{,}", "invalid"],
    ['{"a"}', "invalid"],
    ["1.e5", "invalid"],
    [".5", "invalid"],
    ["+1", "invalid"],
    ["NaN", "invalid"],
    ["'a'", "invalid"],
    ['"a\nb"', "invalid"],
    ['"\\x"', "invalid"],
    ['"\\u12g4"', "invalid"],
    ["\ufeff{}", "invalid"],
    ["\u00a0{}", "invalid"],
    ["{} {}", "invalid"],
    ["[1}", "invalid"],
    ['{"a":1]', "invalid"],
    ['{"unit": celsius}', "invalid"],
  ];
  test.each(cases)("%j is %s, whole and in 1-character fragments", (text, status) => {
    expect(referenceStatus(text)).toBe(status);
    for (const fragments of [[text], [...text.split("")], [text.slice(0, 1), text.slice(1)]]) {
      const { result } = accumulate(fragments);
      expect(result.status).toBe(status);
      expect(result.raw).toBe(text);
      if (result.status === "ok") expect(result.value).toEqual(JSON.parse(text));
      expect(accumulate(fragments, false).result).toEqual(result);
    }
  });

  test("invalid verdicts say what and where", () => {
    const errorOf = (text: string) => {
      const { result } = accumulate(text.split(""));
      return result.status === "invalid" ? result.error : result.status;
    };
    expect(errorOf('{"location": "Paris", "unit": celsius}')).toBe("unexpected character 'c' at offset 30");
    expect(errorOf("1 2")).toBe("unexpected character '2' after the JSON value at offset 2");
    expect(errorOf('"a\nb"')).toBe("unescaped control character U+000A in a string at offset 2");
    expect(errorOf('"\\q"')).toBe("invalid escape: 'q' after a backslash at offset 2");
    expect(errorOf('"\\u12g4"')).toBe("invalid hex digit 'g' in a \\u escape at offset 5");
    expect(errorOf("\u00a0{}")).toBe("unexpected character U+00A0 at offset 0");
    expect(errorOf('{"a": é}')).toBe("unexpected character 'é' (U+00E9) at offset 6");
  });

  test("finish can be called again and sees later pushes", () => {
    const acc = new JsonAccumulator();
    acc.push('{"a":');
    expect(acc.finish().status).toBe("incomplete");
    acc.push("[1]}");
    expect(acc.finish()).toEqual({ status: "ok", value: { a: [1] }, raw: '{"a":[1]}' });
    expect(acc.text).toBe('{"a":[1]}');
  });

  test("an invalid verdict is final whatever follows", () => {
    const acc = new JsonAccumulator();
    acc.push("[1,]");
    acc.push("]");
    expect(acc.finish()).toMatchObject({ status: "invalid", error: "unexpected character ']' at offset 3" });
  });

  test("deep nesting needs no recursion", () => {
    const depth = 50_000;
    const text = `${'{"a":['.repeat(depth)}"x"${"]}".repeat(depth)}`;
    const { result, pushes } = accumulate(fragmentsOf(text, prng(7), 64));
    expect(result.status).toBe("ok");
    const chunk = pushes.flat()[0]!;
    expect(chunk.text).toBe("x");
    expect(chunk.path).toHaveLength(depth * 2);
    expect(accumulate([text.slice(0, -1)]).result.status).toBe("incomplete");
  });
});

describe("JsonAccumulator string chunks", () => {
  test("delivers decoded characters at their path, one chunk per string per push", () => {
    const acc = new JsonAccumulator();
    expect(acc.push('{"file_path": "a.txt", "edits": [{"new_string": "he')).toEqual([
      { path: ["file_path"], text: "a.txt" },
      { path: ["edits", 0, "new_string"], text: "he" },
    ]);
    expect(acc.push("llo\\nwor")).toEqual([{ path: ["edits", 0, "new_string"], text: "llo\nwor" }]);
    expect(acc.push('ld"}, {"new_string": "\\u00e9"}]}')).toEqual([
      { path: ["edits", 0, "new_string"], text: "ld" },
      { path: ["edits", 1, "new_string"], text: "é" },
    ]);
    expect(acc.finish().status).toBe("ok");
  });

  test("keys, numbers and literals produce no chunks; the empty result is shared and frozen", () => {
    const acc = new JsonAccumulator();
    const a = acc.push('{"key": 1, "b": true, "c": ""');
    const b = acc.push("}");
    expect(a).toBe(b);
    expect(a).toHaveLength(0);
    expect(Object.isFrozen(a)).toBe(true);
  });

  test("holds an escape split across pushes until it is complete", () => {
    const acc = new JsonAccumulator();
    expect(acc.push('["ab\\')).toEqual([{ path: [0], text: "ab" }]);
    expect(acc.push("u00")).toEqual([]);
    expect(acc.push('41c", "\\')).toEqual([{ path: [0], text: "Ac" }]);
    expect(acc.push('n"]')).toEqual([{ path: [1], text: "\n" }]);
  });

  test("never ends a chunk between the halves of a surrogate pair", () => {
    const escaped = new JsonAccumulator();
    expect(escaped.push('"x\\ud83d')).toEqual([{ path: [], text: "x" }]);
    expect(escaped.push('\\ude00y"')).toEqual([{ path: [], text: "😀y" }]);

    const raw = new JsonAccumulator();
    expect(raw.push('"x\ud83d')).toEqual([{ path: [], text: "x" }]);
    expect(raw.push('\ude00"')).toEqual([{ path: [], text: "😀" }]);
  });

  test("still delivers a lone high surrogate once the string shows it is lone", () => {
    const end = new JsonAccumulator();
    expect(end.push('"\\ud800')).toEqual([]);
    expect(end.push('"')).toEqual([{ path: [], text: "\ud800" }]);
    const followed = new JsonAccumulator();
    expect(followed.push('"\ud800')).toEqual([]);
    expect(followed.push('a"')).toEqual([{ path: [], text: "\ud800a" }]);
  });

  test("a path snapshot is not changed by what follows", () => {
    const acc = new JsonAccumulator();
    const [first] = acc.push('["a');
    acc.push('", "b", {"k": "v"}]');
    expect(first?.path).toEqual([0]);
  });

  test("live: false stores fragments only, and judges at the end", () => {
    const acc = new JsonAccumulator({ live: false });
    expect(acc.push('{"a": "b"')).toHaveLength(0);
    expect(acc.finish()).toEqual({ status: "incomplete", raw: '{"a": "b"' });
    acc.push("}");
    expect(acc.finish()).toEqual({ status: "ok", value: { a: "b" }, raw: '{"a": "b"}' });
  });
});

describe("JsonAccumulator against JSON.parse (differential fuzz)", () => {
  const rand = prng(20240611);
  const valid = Array.from({ length: 1200 }, (_, k) => genJson(rand, k % 10 === 0 ? 8 : 4));
  const mutated = valid.flatMap((text) => [mutate(text, rand), mutate(mutate(text, rand), rand)]);

  /** The verdict of every fragmentation must be the same, agree with JSON.parse and with the oracle. */
  function checkAll(text: string, expected: Status | undefined) {
    const status = referenceStatus(text);
    expect(status === "ok", `oracle vs JSON.parse on ${JSON.stringify(text)}`).toBe(
      parseStatus(text) === "ok",
    );
    if (expected !== undefined) expect(status).toBe(expected);
    const whole = accumulate([text]).result;
    expect(whole.status, JSON.stringify(text)).toBe(status);
    const scanner = new JsonScanner();
    scanner.scan(text);
    expect(scanner.verdict().status, `scanner alone on ${JSON.stringify(text)}`).toBe(status);
    expect(accumulate([text], false).result).toEqual(whole);
    const splits = [text.split(""), fragmentsOf(text, rand, 4), fragmentsOf(text, rand, 24)];
    for (const fragments of splits) {
      const { result, pushes } = accumulate(fragments);
      expect(result, JSON.stringify(fragments)).toEqual(whole);
      if (result.status === "ok" && expected === "ok") checkChunks(pushes, result.value);
      if (status !== "invalid") {
        // Valid so far: the live scanner's fast path must have handled every run itself (a performance guard).
        const live = new JsonScanner({ strings: true });
        for (const fragment of fragments) live.scan(fragment);
        expect(live.fastPathMisses, JSON.stringify(fragments)).toBe(0);
      }
    }
  }

  test("generated valid texts: ok, with chunks that rebuild every string", () => {
    for (const text of valid) checkAll(text, "ok");
  });

  test("every truncation of valid texts is incomplete (or ok, like a cut number)", () => {
    for (const text of valid.slice(0, 150)) {
      for (let k = 0; k < text.length; k++) {
        const prefix = text.slice(0, k);
        const status = parseStatus(prefix) === "ok" ? "ok" : "incomplete";
        expect(accumulate([prefix]).result.status, JSON.stringify(prefix)).toBe(status);
        expect(accumulate(fragmentsOf(prefix, rand, 3)).result.status).toBe(status);
      }
    }
  });

  test("mutated texts: ok / incomplete / invalid as the oracle says, under every fragmentation", () => {
    const seen = new Set<Status>();
    for (const text of mutated) {
      checkAll(text, undefined);
      seen.add(referenceStatus(text));
    }
    expect([...seen].sort()).toEqual(["incomplete", "invalid", "ok"]);
  });

  test("every two-piece split of texts with escapes, pairs, numbers and literals", () => {
    const texts = [
      '{"a":"\\ud83d\\ude00\\u00E9\\n\\"\\\\\\/","b":[-12.5e+3,0,true,false,null],"c":"😀日本"}',
      '["\\u12', // incomplete inside \u
      "[1.5e-",
      "[-0.0E10, 1e5 ,2]",
      '{"k\\u0041y": "v\\tv"}',
    ];
    for (const text of texts) {
      const whole = accumulate([text]);
      for (let k = 0; k <= text.length; k++) {
        const { result, pushes } = accumulate([text.slice(0, k), text.slice(k)]);
        expect(result).toEqual(whole.result);
        if (result.status === "ok") checkChunks(pushes, result.value);
      }
    }
  });
});

describe("JsonScanner linearity", () => {
  test("examines each character a bounded number of times, whatever the fragment size", () => {
    const content = 'line with \\"quotes\\" and \\u00e9 and 😀\\n'.repeat(5000);
    const text = `{"file_path": "big.txt", "n": [1, 22, 3.5e3], "content": "${content}"}`;
    for (const size of [1, 7, 64, 4096]) {
      const live = new JsonScanner({ strings: true });
      const verdictOnly = new JsonScanner();
      let received = "";
      for (let i = 0; i < text.length; i += size) {
        const fragment = text.slice(i, i + size);
        for (const chunk of live.scan(fragment)) received += chunk.text;
        verdictOnly.scan(fragment);
      }
      expect(live.verdict().status).toBe("ok");
      expect(verdictOnly.verdict().status).toBe("ok");
      // The character loop: once each, plus the three characters that end numbers.
      expect(verdictOnly.examined).toBeLessThanOrEqual(text.length + 3);
      // The live fast path: a search and a JSON.parse per run.
      expect(live.examined).toBeLessThanOrEqual(2 * text.length + 3);
      expect(received).toBe(`big.txt${JSON.parse(`"${content}"`) as string}`);
    }
  });
});
