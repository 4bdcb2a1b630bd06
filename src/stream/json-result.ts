/**
 * The verdict on accumulated JSON text. It agrees exactly with `JSON.parse` of the same text:
 * `ok` iff JSON.parse succeeds (and then `value` deep-equals its result); otherwise `incomplete` iff the
 * text is a proper prefix of some valid JSON text (it was cut), else `invalid`.
 */
export type JsonResult =
  | { status: "ok"; value: unknown; raw: string }
  | { status: "incomplete"; raw: string }
  | { status: "invalid"; raw: string; error: string };
