/** The longest glob compiled; a longer one matches nothing (a file's `paths:` is text a repository wrote). */
const MAX_PATTERN_CHARS = 1_000;
/** The most alternatives `{a,b}` braces may expand to; beyond it the pattern matches nothing. */
const MAX_ALTERNATIVES = 64;
/** Alternatives times segments: a bound on one match's table, so a hostile pattern costs little per path. */
const MAX_WORK = 256;

/**
 * A glob as Claude Code's rules and `.gitignore`-style tools write them (`src/**\/*.ts`, `*.{ts,tsx}`, `?`,
 * `[a-z]`), matched against a `/`-separated relative path, in time bounded by the pattern's length times the
 * path's: no regular expression is built, so no pattern can backtrack catastrophically (`*a*a*a*a*b`,
 * `**\/**\/**\/x`). `**` as a whole segment matches any number of segments; `*` and `?` never match `/`; a
 * pattern without `/` matches the name in any folder (as `*.md` does in Claude Code's rules). Undefined for a
 * pattern that cannot be used (empty, too long, too many brace alternatives or segments: over 256 of both
 * multiplied).
 */
export function compileGlob(pattern: string): ((path: string) => boolean) | undefined {
  const trimmed = pattern.trim().replace(/^\.\//, "");
  if (trimmed === "" || trimmed.length > MAX_PATTERN_CHARS) return undefined;
  const alternatives = expandBraces(trimmed);
  if (alternatives === undefined) return undefined;
  const compiled = alternatives.map((alternative) => {
    const anywhere = !alternative.includes("/");
    const segments = alternative.split("/").filter((s) => s !== "");
    return anywhere ? ["**", ...segments] : segments;
  });
  if (compiled.reduce((sum, segments) => sum + segments.length, 0) > MAX_WORK) return undefined;
  return (path) => {
    const parts = path.split("/").filter((s) => s !== "" && s !== ".");
    return compiled.some((segments) => matchSegments(segments, parts));
  };
}

/** `{a,b}` alternatives, nested ones included; undefined past `MAX_ALTERNATIVES`. */
function expandBraces(pattern: string): string[] | undefined {
  let results = [pattern];
  for (let round = 0; round < 16; round++) {
    const next: string[] = [];
    let expanded = false;
    for (const item of results) {
      const group = innermostBraces(item);
      if (group === undefined) {
        next.push(item);
        continue;
      }
      expanded = true;
      const [start, end] = group;
      for (const choice of item.slice(start + 1, end).split(",")) {
        next.push(item.slice(0, start) + choice + item.slice(end + 1));
      }
      if (next.length > MAX_ALTERNATIVES) return undefined;
    }
    results = next;
    if (!expanded) return results;
  }
  return undefined;
}

/** The first `{…}` holding a comma and no other brace. */
function innermostBraces(text: string): [number, number] | undefined {
  let open = -1;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "{") open = i;
    else if (text[i] === "}" && open >= 0) {
      if (text.slice(open + 1, i).includes(",")) return [open, i];
      open = -1;
    }
  }
  return undefined;
}

/** Segments against path parts, `**` any run of parts: dynamic programming over (segment, part), O(s·p). */
function matchSegments(segments: readonly string[], parts: readonly string[]): boolean {
  // can[j]: segments[i..] match parts[j..], computed from the last segment back.
  let can = parts.map(() => false);
  can.push(true);
  for (let i = segments.length - 1; i >= 0; i--) {
    const segment = segments[i]!;
    const next = parts.map(() => false);
    next.push(segment === "**" ? can[parts.length]! : false);
    for (let j = parts.length - 1; j >= 0; j--) {
      next[j] = segment === "**" ? can[j]! || next[j + 1]! : can[j + 1]! && matchName(segment, parts[j]!);
    }
    can = next;
  }
  return can[0]!;
}

/**
 * One segment's wildcards against one name: `*`, `?`, `[…]` (with `!`/`^` negation and ranges), `\` escapes. The
 * classic greedy match with one remembered star: each star only moves forward, so O(segment · name).
 */
function matchName(segment: string, name: string): boolean {
  let p = 0;
  let n = 0;
  let starP = -1;
  let starN = 0;
  while (n < name.length) {
    if (p < segment.length && segment[p] === "*") {
      while (p < segment.length && segment[p] === "*") p++;
      starP = p;
      starN = n;
      continue;
    }
    const step = p < segment.length ? matchOne(segment, p, name[n]!) : undefined;
    if (step !== undefined) {
      p = step;
      n++;
      continue;
    }
    if (starP < 0) return false;
    p = starP;
    n = ++starN;
  }
  while (p < segment.length && segment[p] === "*") p++;
  return p === segment.length;
}

/** Whether the pattern element at `p` matches `char`: the index after the element, or undefined. */
function matchOne(segment: string, p: number, char: string): number | undefined {
  const c = segment[p]!;
  if (c === "?") return p + 1;
  if (c === "\\" && p + 1 < segment.length) return segment[p + 1] === char ? p + 2 : undefined;
  if (c === "[") {
    const close = segment.indexOf("]", p + 2);
    if (close > 0) {
      let body = segment.slice(p + 1, close);
      const negated = body[0] === "!" || body[0] === "^";
      if (negated) body = body.slice(1);
      let hit = false;
      for (let i = 0; i < body.length; i++) {
        if (body[i + 1] === "-" && i + 2 < body.length) {
          if (char >= body[i]! && char <= body[i + 2]!) hit = true;
          i += 2;
        } else if (body[i] === char) hit = true;
      }
      return hit !== negated ? close + 1 : undefined;
    }
  }
  return c === char ? p + 1 : undefined;
}
