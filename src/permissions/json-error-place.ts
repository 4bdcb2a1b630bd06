/**
 * Where JSON text stops being valid, as a person finds it in an editor: `line 3, column 14: unexpected "]"` (or
 * `unexpected end`). Undefined when the text parses. JSON.parse's own messages give a position only for some
 * errors and echo the whole text for others.
 */
export function jsonErrorPlace(text: string): string | undefined {
  const at = firstError(text);
  if (at === undefined) return undefined;
  const before = text.slice(0, at);
  const line = before.split("\n").length;
  const column = at - (before.lastIndexOf("\n") + 1) + 1;
  const what = at >= text.length ? "unexpected end" : `unexpected ${JSON.stringify(text[at])}`;
  return `line ${line}, column ${column}: ${what}`;
}

/** The offset of the first character that makes `text` invalid JSON, or undefined when it is valid. */
function firstError(text: string): number | undefined {
  let i = 0;
  const space = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const literal = (word: string) => {
    for (const ch of word) {
      if (text[i] !== ch) fail();
      i++;
    }
  };
  const string = () => {
    i++; // the opening quote
    for (;;) {
      const ch = text[i];
      if (ch === undefined || ch < " ") fail();
      if (ch === '"') return void i++;
      if (ch === "\\") {
        i++;
        if (text[i] === "u") {
          i++;
          for (let k = 0; k < 4; k++, i++) if (!/[0-9a-fA-F]/.test(text[i] ?? "")) fail();
        } else if ('"\\/bfnrt'.includes(text[i] ?? "x")) i++;
        else fail();
      } else i++;
    }
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!match || match[0] === "-") fail();
    i += match![0].length;
  };
  const value = (): void => {
    space();
    const ch = text[i];
    if (ch === "{") {
      i++;
      space();
      if (text[i] === "}") return void i++;
      for (;;) {
        space();
        if (text[i] !== '"') fail();
        string();
        space();
        if (text[i] !== ":") fail();
        i++;
        value();
        space();
        if (text[i] === ",") i++;
        else if (text[i] === "}") return void i++;
        else fail();
      }
    }
    if (ch === "[") {
      i++;
      space();
      if (text[i] === "]") return void i++;
      for (;;) {
        value();
        space();
        if (text[i] === ",") i++;
        else if (text[i] === "]") return void i++;
        else fail();
      }
    }
    if (ch === '"') string();
    else if (ch === "t") literal("true");
    else if (ch === "f") literal("false");
    else if (ch === "n") literal("null");
    else if (ch === "-" || (ch !== undefined && ch >= "0" && ch <= "9")) number();
    else fail();
  };
  try {
    value();
    space();
    return i < text.length ? i : undefined;
  } catch (at) {
    return Math.min(at as number, text.length);
  }
}
