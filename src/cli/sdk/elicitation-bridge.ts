import type { Asker } from "../../harness/index.js";
import type { McpElicitationAnswer, McpElicitationRequest } from "../../mcp/index.js";
import { elicitationMessage } from "../../mcp/mcp-elicitation.js";
import type { ControlChannel } from "./control-channel.js";

/**
 * An MCP server's elicitation, asked of the app as Claude Code asks it: an `elicitation` control request (the SDK
 * calls the app's `onElicitation`, or declines without one) with the server's name, message and form
 * (`requested_schema`, and `property_order`: its fields in the server's order). The app's `ElicitResult` is the
 * answer (checked against the form by the harness, which asks again with the reason in `message` when it does not
 * fit); a failed or withdrawn request declines.
 */
export function elicitationAsker(channel: ControlChannel): Asker {
  return {
    kinds: ["elicitation"],
    async ask(question) {
      if (question.kind !== "elicitation") return undefined;
      return ask(channel, question.request);
    },
  };
}

async function ask(channel: ControlChannel, request: McpElicitationRequest): Promise<McpElicitationAnswer> {
  const properties = request.schema.properties;
  const order =
    typeof properties === "object" && properties !== null ? Object.keys(properties as object) : undefined;
  try {
    const response = await channel.request(
      {
        subtype: "elicitation",
        mcp_server_name: request.server,
        message: elicitationMessage(request),
        mode: "form",
        requested_schema: request.schema,
        ...(order ? { property_order: order } : {}),
      },
      request.signal,
    );
    return response as unknown as McpElicitationAnswer;
  } catch {
    return { action: "decline" };
  }
}
