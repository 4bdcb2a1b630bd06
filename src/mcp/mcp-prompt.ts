import type { Prompt } from "@modelcontextprotocol/sdk/types.js";
import { splitArguments } from "../skills/index.js";
import { type McpContent, mapMcpContent } from "./map-mcp-content.js";
import { errorText, type McpConnection } from "./mcp-connection.js";

/** An MCP prompt as a slash command: `/mcp__<server>__<prompt> args`. */
export interface McpPrompt {
  /** `mcp__<server>__<prompt>`, normalised like tool names. */
  name: string;
  server: string;
  prompt: Prompt;
  /** One line for `/help`: the description and the arguments, e.g. `<city> [state]`. */
  description: string;
  /**
   * The user message text for `args` (typed after the name; split shell-style, one word per argument in the
   * prompt's order; the last argument takes the rest). Asks the server (`prompts/get`), no model call. Throws an
   * Error whose message says what is wrong (a missing required argument names the usage).
   */
  expand(args: string, signal?: AbortSignal): Promise<string>;
}

export function createMcpPrompt(connection: McpConnection, prompt: Prompt, name: string): McpPrompt {
  const parameters = prompt.arguments ?? [];
  const usage = parameters.map((p) => (p.required ? `<${p.name}>` : `[${p.name}]`)).join(" ");
  const summary =
    prompt.description ?? prompt.title ?? `prompt ${prompt.name} of the MCP server ${connection.name}`;
  return {
    name,
    server: connection.name,
    prompt,
    description: `${summary}${usage ? ` — /${name} ${usage}` : ""} (MCP ${connection.name})`,
    async expand(args, signal) {
      const words = splitArguments(args);
      const values: Record<string, string> = {};
      parameters.forEach((parameter, i) => {
        const last = i === parameters.length - 1;
        const value = last ? words.slice(i).join(" ") : words[i];
        if (value !== undefined && value !== "") values[parameter.name] = value;
      });
      const missing = parameters.filter((p) => p.required && values[p.name] === undefined).map((p) => p.name);
      if (missing.length > 0) {
        throw new Error(`/${name} needs ${missing.join(", ")}: /${name} ${usage}`);
      }
      let result: Awaited<ReturnType<McpConnection["getPrompt"]>>;
      try {
        result = await connection.getPrompt(prompt.name, values, signal);
      } catch (error) {
        throw new Error(
          `The MCP server "${connection.name}" could not give the prompt ${prompt.name}: ${errorText(error)}`,
        );
      }
      const parts: string[] = [];
      for (const message of result.messages) {
        const text = mapMcpContent(message.content as McpContent)
          .map((b) =>
            b.type === "text"
              ? b.text
              : `[image: ${b.source.type === "base64" ? b.source.media_type : "url"}]`,
          )
          .join("\n");
        parts.push(message.role === "assistant" ? `(assistant) ${text}` : text);
      }
      return parts.join("\n\n");
    },
  };
}
