import type { JsonSchema } from "../../messages/index.js";
import { isPlainObject } from "../is-plain-object.js";

/** Keywords Gemini's `Schema` (an OpenAPI 3.0 subset) accepts; everything else is dropped. */
const KEPT = [
  "title",
  "description",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "pattern",
  "default",
  "example",
  "propertyOrdering",
] as const;

/** `format` values Gemini accepts, per type. Others (`uri`, `email`, …) are rejected, so dropped. */
const FORMATS: Record<string, ReadonlySet<string>> = {
  string: new Set(["enum", "date-time"]),
  number: new Set(["float", "double"]),
  integer: new Set(["int32", "int64"]),
};

/** Local `$ref`s are inlined this deep; a recursive schema is cut below that to a bare object. */
const MAX_REF_DEPTH = 8;

/**
 * A tool's JSON Schema as Gemini's `parameters` (OpenAPI 3.0 subset). Returns undefined for an object without
 * properties: Gemini rejects an empty `properties`, and a tool without parameters simply has none.
 *
 * The conversion:
 * - kept: `type`, `properties`, `required` (only names that exist), `items`, `enum` (string enums only), `format`
 *   (string: `enum`/`date-time`; number: `float`/`double`; integer: `int32`/`int64`), `nullable`, `anyOf`, and
 *   `title`, `description`, `default`, `example`, the min/max bounds, `pattern`, `propertyOrdering`;
 * - `type: [T, "null"]` → `type: T, nullable: true`; several non-null types → `anyOf` of each;
 *   `anyOf`/`oneOf` with a `{type: "null"}` branch → `nullable: true`; `oneOf` → `anyOf`; a single-branch
 *   `anyOf` is inlined; `allOf` of one schema is inlined, of several merged property by property;
 * - `const: "x"` → `enum: ["x"]`; local `$ref`s (`#/$defs/…`, `#/definitions/…`) inlined;
 * - dropped: `$schema`, `$id`, `$defs`, `additionalProperties`, `patternProperties`, `not`, `if`/`then`/`else`,
 *   `exclusiveMinimum`/`exclusiveMaximum`, `examples`, non-string enums, unknown formats and any other keyword.
 */
export function toGeminiSchema(schema: JsonSchema): JsonSchema | undefined {
  const converted = convert(schema, schema, 0);
  if (converted.type === "object" && !isPlainObject(converted.properties)) return undefined;
  return converted;
}

function convert(node: unknown, root: JsonSchema, depth: number): JsonSchema {
  if (!isPlainObject(node)) return {};
  let schema: Record<string, unknown> = node;
  if (typeof schema.$ref === "string") {
    const target = resolveRef(schema.$ref, root);
    if (target === undefined || depth >= MAX_REF_DEPTH) return { type: "object" };
    const { $ref: _ref, ...rest } = schema;
    return convert({ ...target, ...rest }, root, depth + 1);
  }
  if (Array.isArray(schema.allOf)) schema = mergeAllOf(schema);
  const out: JsonSchema = {};

  const union = Array.isArray(schema.anyOf)
    ? schema.anyOf
    : Array.isArray(schema.oneOf)
      ? schema.oneOf
      : undefined;
  if (union) {
    const branches = union.filter((b) => !(isPlainObject(b) && b.type === "null"));
    const nullable = branches.length < union.length;
    if (branches.length === 1) {
      const { anyOf: _a, oneOf: _o, ...rest } = schema;
      const inlined = convert({ ...rest, ...(branches[0] as object) }, root, depth);
      return nullable ? { ...inlined, nullable: true } : inlined;
    }
    out.anyOf = branches.map((b) => convert(b, root, depth));
    if (nullable) out.nullable = true;
  }

  let type = schema.type;
  if (Array.isArray(type)) {
    const types = type.filter((t) => t !== "null");
    if (types.length < type.length) out.nullable = true;
    if (types.length > 1 && !out.anyOf) {
      const { type: _t, ...rest } = schema;
      out.anyOf = types.map((t) => convert({ ...rest, type: t }, root, depth));
      return copyKept(schema, out);
    }
    type = types[0];
  }
  if (typeof type === "string" && type !== "null") out.type = type;

  if (schema.const !== undefined && typeof schema.const === "string") {
    out.type ??= "string";
    out.enum = [schema.const];
  } else if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === "string")) {
    out.enum = schema.enum;
  }
  if (
    typeof schema.format === "string" &&
    typeof out.type === "string" &&
    FORMATS[out.type]?.has(schema.format)
  ) {
    out.format = schema.format;
  }
  if (isPlainObject(schema.properties)) {
    const properties: Record<string, JsonSchema> = {};
    for (const [name, value] of Object.entries(schema.properties))
      properties[name] = convert(value, root, depth);
    if (Object.keys(properties).length > 0) {
      out.properties = properties;
      out.type ??= "object";
      if (Array.isArray(schema.required)) {
        const required = schema.required.filter((r): r is string => typeof r === "string" && r in properties);
        if (required.length > 0) out.required = required;
      }
    }
  }
  if (schema.items !== undefined) {
    const items = Array.isArray(schema.items) ? schema.items[0] : schema.items;
    out.items = convert(items, root, depth);
    out.type ??= "array";
  }
  return copyKept(schema, out);
}

function copyKept(from: Record<string, unknown>, to: JsonSchema): JsonSchema {
  for (const key of KEPT) if (from[key] !== undefined) to[key] = from[key];
  return to;
}

function resolveRef(ref: string, root: JsonSchema): Record<string, unknown> | undefined {
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (!match) return undefined;
  const defs = root[match[1]!];
  if (!isPlainObject(defs)) return undefined;
  const name = match[2]!.replaceAll("~1", "/").replaceAll("~0", "~");
  const target = defs[name];
  return isPlainObject(target) ? target : undefined;
}

/** `allOf` folded into its parent: properties and `required` united, other keywords from the first that has them. */
function mergeAllOf(schema: Record<string, unknown>): Record<string, unknown> {
  const { allOf, ...rest } = schema;
  const merged: Record<string, unknown> = { ...rest };
  for (const part of allOf as unknown[]) {
    if (!isPlainObject(part)) continue;
    for (const [key, value] of Object.entries(part)) {
      if (key === "properties" && isPlainObject(value)) {
        merged.properties = { ...(isPlainObject(merged.properties) ? merged.properties : {}), ...value };
      } else if (key === "required" && Array.isArray(value)) {
        merged.required = [...(Array.isArray(merged.required) ? merged.required : []), ...value];
      } else if (merged[key] === undefined) {
        merged[key] = value;
      }
    }
  }
  return merged;
}
