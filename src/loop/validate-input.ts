import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import { lazyRequire } from "../fs/lazy-require.js";
import type { JsonSchema } from "../messages/index.js";
import type { Tool } from "./tool.js";

const ajvLib = lazyRequire<typeof import("ajv")>("ajv");

/** At most this many schema errors are named in one message: enough to fix the call, short enough to read. */
const MAX_ERRORS = 8;

/** Created on first use, not at import: most runs of the CLI never validate anything before the first call. */
let ajv: Ajv | undefined;

/** A compiled validator, or the reason the schema could not be compiled; cached per schema object. */
type Compiled = { validate: ValidateFunction } | { error: string };
const cache = new WeakMap<JsonSchema, Compiled>();

function compile(schema: JsonSchema): Compiled {
  const cached = cache.get(schema);
  if (cached) return cached;
  // Loaded here, not imported: ajv costs tens of milliseconds to load, and most commands never validate.
  ajv ??= new (ajvLib().Ajv)({
    allErrors: true,
    strict: false,
    // No ajv-formats here: `format` is advice to the model, not something we can check reliably.
    validateFormats: false,
    logger: false,
    // Tool schemas come from everywhere (MCP servers, users); two may share an `$id` without being the same.
    addUsedSchema: false,
  });
  let compiled: Compiled;
  try {
    // `$schema` names a meta-schema (often 2020-12) that a draft-07 Ajv does not know; the keywords that
    // tools use mean the same under both, so validate the schema itself and ignore the declaration.
    const { $schema: _ignored, ...rest } = schema;
    compiled = { validate: ajv.compile(rest) };
  } catch (error) {
    compiled = { error: error instanceof Error ? error.message : String(error) };
  }
  cache.set(schema, compiled);
  return compiled;
}

/** `/file_path must be string`; the root path is left out (`must have required property 'file_path'`). */
function describe(error: ErrorObject): string {
  const where = error.instancePath === "" ? "" : `${error.instancePath} `;
  const params = error.params as Record<string, unknown>;
  let detail = "";
  if (typeof params.additionalProperty === "string") detail = `: ${params.additionalProperty}`;
  else if (Array.isArray(params.allowedValues))
    detail = `: ${params.allowedValues.map((v) => JSON.stringify(v)).join(", ")}`;
  return `${where}${error.message ?? "is invalid"}${detail}`;
}

/**
 * Checks a tool call's input against the tool's `inputSchema`. Returns `undefined` when the input is valid,
 * otherwise the message for the model, naming each field at fault, e.g.
 * `Invalid input for Read: /file_path must be string`. A schema that does not compile is reported the same
 * way (the call cannot be checked, so it must not run).
 */
export function validateInput(
  tool: Pick<Tool<never>, "name" | "inputSchema">,
  input: unknown,
): string | undefined {
  const compiled = compile(tool.inputSchema);
  if ("error" in compiled)
    return `Tool ${tool.name} has an invalid input schema, so it cannot be called: ${compiled.error}`;
  if (compiled.validate(input)) return undefined;
  const lines = [...new Set((compiled.validate.errors ?? []).map(describe))];
  const shown = lines.slice(0, MAX_ERRORS);
  if (lines.length > shown.length) shown.push(`and ${lines.length - shown.length} more`);
  return `Invalid input for ${tool.name}: ${shown.join("; ") || "does not match the input schema"}`;
}
