import { stripControls } from "../terminal-text.js";

const NAMED: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
  copy: "©",
  reg: "®",
  trade: "™",
  hellip: "…",
  mdash: "—",
  ndash: "–",
  larr: "←",
  rarr: "→",
  uarr: "↑",
  darr: "↓",
  times: "×",
  middot: "·",
  bull: "•",
  deg: "°",
};

const ENTITY = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z]{2,8}));/g;

/**
 * `text` with the HTML entities a model writes (`&amp;`, `&lt;`, `&#8212;`) decoded, as a browser would show
 * them. A numeric entity may name a control character (`&#27;` is ESC): what comes out is filtered again.
 */
export function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  const decoded = text.replace(
    ENTITY,
    (whole, dec: string | undefined, hex: string | undefined, name?: string) => {
      if (name !== undefined) return NAMED[name] ?? whole;
      const code = Number.parseInt(dec ?? hex ?? "", dec !== undefined ? 10 : 16);
      if (!Number.isFinite(code) || code <= 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
        return "\ufffd";
      return String.fromCodePoint(code);
    },
  );
  return stripControls(decoded);
}
