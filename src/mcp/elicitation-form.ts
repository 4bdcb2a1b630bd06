import { isPlainObject } from "../providers/is-plain-object.js";
import type { McpElicitationAnswer } from "./mcp-elicitation.js";

/** One choice of an enum field: the value sent back and the title shown (the value when it has none). */
export interface ElicitationChoice {
  value: string;
  title: string;
}

/**
 * One field of a form, as MCP's elicitation allows them (flat primitives): a string (maybe with a `format` and
 * length bounds), a number or integer (maybe bounded), a boolean, a single choice (`enum`, or `oneOf` with titles)
 * or several choices (an array of such).
 */
export interface ElicitationField {
  name: string;
  title: string;
  description?: string;
  kind: "string" | "number" | "integer" | "boolean" | "choice" | "choices";
  required: boolean;
  format?: "email" | "uri" | "date" | "date-time";
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  choices?: ElicitationChoice[];
  minItems?: number;
  maxItems?: number;
  default?: string | number | boolean | string[];
}

/** A server's form, read: its fields in the server's order. */
export interface ElicitationForm {
  fields: ElicitationField[];
}

/** What a form may hold at most: beyond, the request is refused before anyone is asked. */
export const FORM_LIMITS = {
  fields: 50,
  choices: 200,
  message: 10_000,
  title: 200,
  description: 2_000,
  stringValue: 100_000,
} as const;

type Result<T> = { ok: T } | { error: string };

const FORMATS = new Set(["email", "uri", "date", "date-time"]);

/**
 * The server's `requestedSchema` read as a form, or why it cannot be asked: not an object schema, more than
 * `FORM_LIMITS.fields` fields, a nested object or other type MCP does not allow, an over-long title.
 */
export function readElicitationForm(
  message: string,
  schema: Record<string, unknown>,
): Result<ElicitationForm> {
  if (message.length > FORM_LIMITS.message)
    return { error: `its message is ${message.length} characters long (at most ${FORM_LIMITS.message})` };
  if (schema.type !== undefined && schema.type !== "object")
    return { error: "its requested schema is not an object schema" };
  const properties = schema.properties ?? {};
  if (!isPlainObject(properties)) return { error: "its requested schema's properties are not an object" };
  const names = Object.keys(properties);
  if (names.length > FORM_LIMITS.fields)
    return { error: `its form has ${names.length} fields (at most ${FORM_LIMITS.fields})` };
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === "string") : [],
  );
  const fields: ElicitationField[] = [];
  for (const name of names) {
    const field = readField(name, properties[name], required.has(name));
    if ("error" in field) return { error: `field ${JSON.stringify(clip(name))}: ${field.error}` };
    fields.push(field.ok);
  }
  for (const name of required)
    if (!names.includes(name))
      return { error: `it requires a field it does not describe: ${JSON.stringify(clip(name))}` };
  return { ok: { fields } };
}

function readField(name: string, raw: unknown, required: boolean): Result<ElicitationField> {
  if (name.length > FORM_LIMITS.title) return { error: "its name is too long" };
  // An object's key that is not an ordinary one: what the user gave for it would be lost on the way.
  if (name === "__proto__") return { error: "a field by this name cannot be answered" };
  if (!isPlainObject(raw)) return { error: "not a schema" };
  const title = typeof raw.title === "string" ? raw.title : name;
  if (title.length > FORM_LIMITS.title) return { error: `its title is over ${FORM_LIMITS.title} characters` };
  const description = typeof raw.description === "string" ? raw.description : undefined;
  if (description !== undefined && description.length > FORM_LIMITS.description)
    return { error: `its description is over ${FORM_LIMITS.description} characters` };
  const base = { name, title, required, ...(description ? { description } : {}) };
  const bounds = (keys: readonly string[]) => {
    const out: Record<string, number> = {};
    for (const key of keys)
      if (typeof raw[key] === "number" && Number.isFinite(raw[key])) out[key] = raw[key] as number;
    return out;
  };
  const choices = readChoices(raw);
  if (choices) {
    if ("error" in choices) return choices;
    const def = typeof raw.default === "string" ? { default: raw.default } : {};
    return { ok: { ...base, kind: "choice", choices: choices.ok, ...def } };
  }
  switch (raw.type) {
    case "string": {
      const format =
        typeof raw.format === "string" && FORMATS.has(raw.format)
          ? { format: raw.format as NonNullable<ElicitationField["format"]> }
          : {};
      const def = typeof raw.default === "string" ? { default: raw.default } : {};
      return { ok: { ...base, kind: "string", ...format, ...bounds(["minLength", "maxLength"]), ...def } };
    }
    case "number":
    case "integer": {
      const def = typeof raw.default === "number" ? { default: raw.default } : {};
      return { ok: { ...base, kind: raw.type, ...bounds(["minimum", "maximum"]), ...def } };
    }
    case "boolean": {
      const def = typeof raw.default === "boolean" ? { default: raw.default } : {};
      return { ok: { ...base, kind: "boolean", ...def } };
    }
    case "array": {
      const items = isPlainObject(raw.items) ? readChoices(raw.items) : undefined;
      if (!items || "error" in items) return { error: "an array whose items are not a list of choices" };
      const def = Array.isArray(raw.default)
        ? { default: raw.default.filter((d) => typeof d === "string") }
        : {};
      return {
        ok: { ...base, kind: "choices", choices: items.ok, ...bounds(["minItems", "maxItems"]), ...def },
      };
    }
    default:
      return { error: `type ${JSON.stringify(String(raw.type ?? "none"))} is not one a form may ask for` };
  }
}

/** `enum` (with `enumNames`) or `oneOf`/`anyOf` of `{ const, title }`: the choices; undefined when neither. */
function readChoices(raw: Record<string, unknown>): Result<ElicitationChoice[]> | undefined {
  let choices: ElicitationChoice[] | undefined;
  if (Array.isArray(raw.enum)) {
    const names = Array.isArray(raw.enumNames) ? raw.enumNames : [];
    choices = raw.enum.map((value, i) => ({
      value: String(value),
      title: typeof names[i] === "string" ? names[i] : String(value),
    }));
    if (!raw.enum.every((v) => typeof v === "string"))
      return { error: "an enum of values that are not strings" };
  } else {
    const list = Array.isArray(raw.oneOf) ? raw.oneOf : Array.isArray(raw.anyOf) ? raw.anyOf : undefined;
    if (!list) return undefined;
    choices = [];
    for (const entry of list) {
      if (!isPlainObject(entry) || typeof entry.const !== "string")
        return { error: "a choice without a string const" };
      choices.push({
        value: entry.const,
        title: typeof entry.title === "string" ? entry.title : entry.const,
      });
    }
  }
  if (choices.length === 0) return { error: "no choices" };
  if (choices.length > FORM_LIMITS.choices)
    return { error: `${choices.length} choices (at most ${FORM_LIMITS.choices})` };
  if (choices.some((c) => c.title.length > FORM_LIMITS.title))
    return { error: "a choice's title is too long" };
  return { ok: choices };
}

type Value = string | number | boolean | string[];

/**
 * One field's value checked against its schema: undefined when it is fine, else why not ("at least 3
 * characters", "one of: a, b").
 */
export function checkFieldValue(field: ElicitationField, value: unknown): string | undefined {
  switch (field.kind) {
    case "string": {
      if (typeof value !== "string") return "must be text";
      if (value.length > FORM_LIMITS.stringValue) return "is too long";
      if (field.minLength !== undefined && value.length < field.minLength)
        return `must be at least ${field.minLength} characters`;
      if (field.maxLength !== undefined && value.length > field.maxLength)
        return `must be at most ${field.maxLength} characters`;
      return field.format ? checkFormat(field.format, value) : undefined;
    }
    case "number":
    case "integer": {
      if (typeof value !== "number" || !Number.isFinite(value)) return "must be a number";
      if (field.kind === "integer" && !Number.isInteger(value)) return "must be a whole number";
      // Past 2^53 a whole number is not kept exactly: 99999999999999999999 would arrive as 100000000000000000000.
      if (field.kind === "integer" && !Number.isSafeInteger(value)) return "is too large to be sent exactly";
      if (field.minimum !== undefined && value < field.minimum) return `must be at least ${field.minimum}`;
      if (field.maximum !== undefined && value > field.maximum) return `must be at most ${field.maximum}`;
      return undefined;
    }
    case "boolean":
      return typeof value === "boolean" ? undefined : "must be yes or no";
    case "choice":
      return typeof value === "string" && field.choices?.some((c) => c.value === value)
        ? undefined
        : `must be one of: ${choiceList(field)}`;
    case "choices": {
      if (
        !Array.isArray(value) ||
        !value.every((v) => typeof v === "string" && field.choices?.some((c) => c.value === v))
      )
        return `must be a list of: ${choiceList(field)}`;
      if (new Set(value).size !== value.length) return "names a choice twice";
      if (field.minItems !== undefined && value.length < field.minItems)
        return `needs at least ${field.minItems}`;
      if (field.maxItems !== undefined && value.length > field.maxItems)
        return `takes at most ${field.maxItems}`;
      return undefined;
    }
  }
}

/**
 * An answer checked against the form before it goes to the server: `accept` must carry an object holding only the
 * form's fields, each valid, every required one present; `decline` and `cancel` carry nothing. The answer as it
 * will be sent, or why it cannot be.
 */
export function checkElicitationAnswer(form: ElicitationForm, answer: unknown): Result<McpElicitationAnswer> {
  if (!isPlainObject(answer)) return { error: "the answer is not an object" };
  if (answer.action === "decline" || answer.action === "cancel") return { ok: { action: answer.action } };
  if (answer.action !== "accept") return { error: "the answer's action is not accept, decline or cancel" };
  const content = answer.content ?? {};
  if (!isPlainObject(content)) return { error: "the accepted content is not an object" };
  const out: Record<string, Value> = {};
  for (const key of Object.keys(content)) {
    const field = form.fields.find((f) => f.name === key);
    if (!field) return { error: `the form has no field ${JSON.stringify(clip(key))}` };
    const why = checkFieldValue(field, content[key]);
    if (why) return { error: `${field.title} ${why}` };
    out[key] = content[key] as Value;
  }
  for (const field of form.fields)
    if (field.required && !Object.hasOwn(out, field.name)) return { error: `${field.title} is required` };
  return { ok: { action: "accept", content: out } };
}

function checkFormat(format: NonNullable<ElicitationField["format"]>, value: string): string | undefined {
  switch (format) {
    case "email":
      return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value) ? undefined : "must be an email address";
    case "uri":
      return /^[a-z][a-z0-9+.-]*:\S+$/i.test(value) ? undefined : "must be a URI (https://…)";
    case "date":
      return /^\d{4}-\d{2}-\d{2}$/.test(value) && isCalendarDay(value)
        ? undefined
        : "must be a date (YYYY-MM-DD)";
    case "date-time":
      // RFC 3339, as JSON Schema's date-time is (and a server's validator checks): seconds and an offset are part
      // of it; 2024-01-01T10:00 would pass here and fail there.
      return DATE_TIME.test(value) && isCalendarDay(value)
        ? undefined
        : "must be a date and time (YYYY-MM-DDThh:mm:ssZ)";
  }
}

const DATE_TIME =
  /^\d{4}-\d{2}-\d{2}[Tt]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

/** Whether `value` starts with a day the calendar has: Date.parse takes 2023-02-29 and 2024-02-31 as March. */
function isCalendarDay(value: string): boolean {
  const [year, month, day] = value.slice(0, 10).split("-").map(Number) as [number, number, number];
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function choiceList(field: ElicitationField): string {
  const values = (field.choices ?? []).map((c) => c.value);
  return values.length > 10 ? `${values.slice(0, 10).join(", ")}, …` : values.join(", ");
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
