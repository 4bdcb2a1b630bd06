import { describe, expect, test } from "vitest";
import { chunkedResponse, splitBytes, wireBody } from "../../test/fixtures.js";
import { JsonAccumulator } from "./json-accumulator.js";
import type { JsonResult } from "./json-result.js";
import { decodeSse } from "./sse-decoder.js";

/** Runs a recorded Anthropic stream through decodeSse and one JsonAccumulator per tool_use block. */
async function toolInputs(name: string, seed: number) {
  const body = chunkedResponse(splitBytes(wireBody(name), seed, 13)).body!;
  const accumulators = new Map<number, JsonAccumulator>();
  const shown = new Map<number, string>();
  for await (const sse of decodeSse(body)) {
    const event = JSON.parse(sse.data) as {
      type: string;
      index?: number;
      content_block?: { type: string };
      delta?: { type: string; partial_json?: string };
    };
    if (event.type === "content_block_start" && event.content_block?.type === "tool_use") {
      accumulators.set(event.index!, new JsonAccumulator());
    } else if (event.type === "content_block_delta" && event.delta?.type === "input_json_delta") {
      const acc = accumulators.get(event.index!)!;
      for (const chunk of acc.push(event.delta.partial_json!)) {
        shown.set(event.index!, `${shown.get(event.index!) ?? ""}${chunk.path.join(".")}=${chunk.text};`);
      }
    }
  }
  const results = new Map<number, JsonResult>();
  for (const [index, acc] of accumulators) results.set(index, acc.finish());
  return { results, shown };
}

describe("tool input from recorded Anthropic streams", () => {
  test.each([1, 2, 3])("a basic tool call parses, whatever the byte split (seed %i)", async (seed) => {
    const { results } = await toolInputs("anthropic-tool-use-basic.sse", seed);
    expect(results.get(1)).toMatchObject({ status: "ok", value: { location: "Paris" } });
  });

  test("a bare word makes the input invalid, and the verdict says where", async () => {
    const { results } = await toolInputs("anthropic-tool-use-invalid-json.sse", 4);
    const result = results.get(1)!;
    expect(result).toMatchObject({ status: "invalid", raw: '{"location": "Paris", "unit": celsius}' });
    expect(result.status === "invalid" && result.error).toBe("unexpected character 'c' at offset 30");
  });

  test("a max_tokens cut leaves the input incomplete, with its strings shown so far", async () => {
    const { results, shown } = await toolInputs("anthropic-tool-use-max-tokens-cut.sse", 5);
    const [index, result] = [...results][0]!;
    expect(result.status).toBe("incomplete");
    expect(shown.get(index)).toContain("filename=");
  });

  test("an input with no fragments but an empty one is incomplete, not {}", async () => {
    const { results } = await toolInputs("anthropic-tool-use-no-args.json", 6);
    for (const result of results.values()) expect(result).toEqual({ status: "incomplete", raw: "" });
  });
});
