import type { Tool } from "../../loop/tool.js";
import { completeText } from "../../providers/complete-text.js";
import { hasWebSearch, webSearch } from "../../providers/web-search.js";
import { createWebFetchTool } from "../../tools/web-fetch-tool.js";
import { createWebSearchTool } from "../../tools/web-search-tool.js";
import type { Capability } from "../capability.js";
import type { ModelSetup } from "../model-setup.js";

/**
 * The web tools: WebFetch (a page read by a small model of the session's provider) and, where the provider has a
 * server-side search, WebSearch. Their side calls go without the XML tool protocol: they use no tools.
 */
export function webCapability(models: ModelSetup): Capability {
  const wire = models.resolved.wireProvider;
  const helper = models.helper;
  const tools: Tool<never>[] = [
    createWebFetchTool({
      fetch: globalThis.fetch,
      complete: (prompt, signal) => completeText(wire, helper, prompt, { signal, maxTokens: 4096 }),
    }) as unknown as Tool<never>,
  ];
  if (hasWebSearch(wire)) {
    tools.push(
      createWebSearchTool({
        search: (query, searchOptions) =>
          webSearch({ provider: wire, model: helper, query, ...searchOptions }),
      }) as unknown as Tool<never>,
    );
  }
  return { name: "web", tools };
}
