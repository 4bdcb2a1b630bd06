/**
 * The benchmark's server, run in a child process so that its CPU time is not counted as the client's:
 * mitsu's simulator streaming one `write_file` tool_use whose `content` is N bytes, in 64-character
 * `input_json_delta` fragments. The size is read from the request's user text ("size=<bytes>").
 */
import { startSimulator } from "../../src/simulator/index.js";
import { makeContent } from "./make-content.js";

const sim = await startSimulator({ inputChunk: 64, textChunk: 64, charsPerToken: 100 }); // 4 MiB of input must fit in max_tokens;
const turns = new Map<number, string>();

function contentFor(size: number): string {
  let content = turns.get(size);
  if (content === undefined) {
    content = makeContent(size);
    turns.set(size, content);
  }
  return content;
}

function entry(request: { body: { messages?: Array<{ content: unknown }> } }) {
  const first = JSON.stringify(request.body.messages?.[0]?.content ?? "");
  const size = Number(/size=(\d+)/.exec(first)?.[1] ?? "0");
  return {
    content: [
      {
        type: "tool_use" as const,
        name: "write_file",
        input: { file_path: "out.txt", content: contentFor(size) },
      },
    ],
  };
}

for (let i = 0; i < 2000; i++) sim.enqueue(entry);
process.stdout.write(`${JSON.stringify({ url: sim.url })}\n`);
process.on("message", async (message) => {
  if (message === "close") {
    await sim.close();
    process.exit(0);
  }
});
