import { helperModel, resolveModel } from "../providers/model-registry.js";
import { configuredHeaderNames } from "../providers/models-config.js";
import { withXmlToolProtocol } from "../providers/xml/index.js";
import type { CodingAgentOptions } from "./coding-agent.js";
import { createDumpingFetch } from "./dumping-fetch.js";
import { type ModelChoice, modelSpecFor } from "./model-choice.js";
import { createProxyFetch, proxyConfigured } from "./proxy-fetch.js";
import type { WorkspaceSetup } from "./workspace-setup.js";

/** The harness's models: the session's, how any other spec resolves, and the helper for side calls. */
export interface ModelSetup {
  /** The session's model, its provider (with the XML tool protocol when asked) and the wire provider. */
  resolved: ReturnType<ModelSetup["resolveSpec"]>;
  resolveSpec(spec: string): ReturnType<typeof resolveModel> & {
    wireProvider: ReturnType<typeof resolveModel>["provider"];
  };
  /** A command's or skill's `model`; see `CodingAgent.modelFor`. */
  modelFor(spec: string | undefined): ModelChoice | undefined;
  /** The small model of the same provider for side calls (WebFetch reading a page, a web search). */
  helper: ReturnType<typeof helperModel>;
  /** Writes what it still holds (`--dump-requests`); undefined when not dumping. */
  flushDump: (() => Promise<void>) | undefined;
}

/** The second step of the harness: the provider, over the transport (a proxy's, a dump's) the options choose. */
export async function setUpModels(options: CodingAgentOptions, setup: WorkspaceSetup): Promise<ModelSetup> {
  const { env, home } = setup;
  const baseFetch = options.fetch ?? (proxyConfigured(env) ? await createProxyFetch(env) : fetch);
  const dumping = options.dumpRequests
    ? createDumpingFetch(options.dumpRequests, baseFetch, configuredHeaderNames(setup.models))
    : undefined;
  const fetchImpl = dumping ?? baseFetch;
  const resolveSpec = (spec: string) => {
    const resolved = resolveModel(spec, env, { home, fetch: fetchImpl });
    const provider =
      options.toolProtocol === "xml" ? withXmlToolProtocol(resolved.provider) : resolved.provider;
    return { ...resolved, provider, wireProvider: resolved.provider };
  };
  const resolved = resolveSpec(options.model ?? defaultModel(env, setup.settings.model));
  const modelFor = (spec: string | undefined): ModelChoice | undefined => {
    const full = modelSpecFor(spec, { provider: resolved.entry.provider, model: resolved.model });
    if (full === undefined) return undefined;
    const other = resolveSpec(full);
    return { provider: other.provider, model: other.model, maxOutputTokens: other.entry.maxOutputTokens };
  };
  return {
    resolved,
    resolveSpec,
    modelFor,
    helper: helperModel(resolved.entry, env),
    flushDump: dumping ? () => dumping.flush() : undefined,
  };
}

/** The model when the caller names none. */
export const DEFAULT_MODEL = "anthropic:claude-sonnet-5-5";

/** `MITSU_MODEL`, then `ANTHROPIC_MODEL` (Claude Code's variable), then the settings' `model`, then the default. */
export function defaultModel(env: Record<string, string | undefined>, fromSettings?: string): string {
  const pick = (v: string | undefined) => (v && v.trim() !== "" ? v.trim() : undefined);
  return pick(env.MITSU_MODEL) ?? pick(env.ANTHROPIC_MODEL) ?? pick(fromSettings) ?? DEFAULT_MODEL;
}
