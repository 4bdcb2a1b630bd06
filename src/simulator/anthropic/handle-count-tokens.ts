import type { Exchange, SimContext } from "../sim-context.js";
import { estimateTokens } from "../token-estimate.js";
import { writeJsonHead } from "../write-json-head.js";
import { cacheBlocks } from "./cache-blocks.js";
import { rejectedBeforeValidation, sendError } from "./send-error.js";
import { validatePrompt } from "./validate-request.js";

/**
 * POST /v1/messages/count_tokens: the prompt's token estimate (the same count the cache model splits into
 * read / write / input). Validated like a Messages request without max_tokens; consumes no script turn and
 * touches no cache entry.
 */
export async function handleCountTokens(ctx: SimContext, ex: Exchange): Promise<void> {
  const requestId = ctx.ids.next("req_011");
  if (rejectedBeforeValidation(ex, requestId)) return;
  const invalid = validatePrompt(ex.log.body);
  if (invalid) return sendError(ex, requestId, 400, "invalid_request_error", invalid);
  const chars = cacheBlocks(ex.log.body, ctx.options.charsPerToken).reduce(
    (sum, block) => sum + block.key.length,
    0,
  );
  const json = JSON.stringify({ input_tokens: estimateTokens(chars, ctx.options.charsPerToken) });
  writeJsonHead(ex, 200, json, { "request-id": requestId });
  ex.res.end(json);
}
