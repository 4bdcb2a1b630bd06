import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../src/simulator/index.js";
import { startSimulator } from "../../src/simulator/index.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "./cli-harness.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/** The smallest valid PNG: 1×1, transparent. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);

describe("images and files in a prompt", () => {
  it("@image attaches an image block, @file inlines a text file", async () => {
    const s = await simulatorEnv({ script: [{ content: [{ type: "text", text: "A dot." }] }] });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    writeFileSync(join(cwd, "shot.png"), PNG);
    writeFileSync(join(cwd, "todo.txt"), "buy milk\n");
    const out = await runMitsu(
      ["-p", "what is in @shot.png? see @todo.txt, cc @someone", "--no-session-log"],
      {
        cwd,
        home,
        env: s.env,
      },
    );
    expect(out.code, out.stderr).toBe(0);
    const content = sim.requests[0]!.body.messages[0].content as Array<Record<string, unknown>>;
    const image = content.find((b) => b.type === "image");
    expect(image).toEqual({
      type: "image",
      source: { type: "base64", media_type: "image/png", data: PNG.toString("base64") },
    });
    const text = content.at(-1)!.text as string;
    expect(text).toBe(
      'what is in [Image #1: shot.png]? see todo.txt, cc @someone\n\n<file path="todo.txt">\nbuy milk\n</file>',
    );
  });

  it("a pasted image path (a file dropped on the terminal, spaces escaped) is attached too", async () => {
    const s = await simulatorEnv({ script: [{ content: [{ type: "text", text: "ok" }] }] });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    mkdirSync(join(cwd, "Screen Shots"));
    const path = join(cwd, "Screen Shots", "shot 1.png");
    writeFileSync(path, PNG);
    const pasted = path.replace(/ /g, "\\ ");
    await runMitsu(["-p", `fix this ${pasted}`, "--no-session-log"], { cwd, home, env: s.env });
    const content = sim.requests[0]!.body.messages[0].content as Array<Record<string, unknown>>;
    expect(content.filter((b) => b.type === "image")).toHaveLength(1);
    expect(content.at(-1)!.text).toBe(`fix this [Image #1: ${path}]`);
  });

  it("in print mode (a prompt may be piped from anywhere) a path outside the workspace stays as typed", async () => {
    const s = await simulatorEnv({ script: [{ content: [{ type: "text", text: "ok" }] }] });
    sim = s.sim;
    const { root, cwd, home } = tempWorkspace();
    writeFileSync(join(root, "private.txt"), "PRIVATE");
    writeFileSync(join(root, "private.png"), PNG);
    await runMitsu(
      ["-p", `summarise @${join(root, "private.txt")} ${join(root, "private.png")}`, "--no-session-log"],
      {
        cwd,
        home,
        env: s.env,
      },
    );
    const body = JSON.stringify(sim.requests[0]!.body);
    expect(body).not.toContain("PRIVATE");
    expect(body).not.toContain('"type":"image"');
  });

  it("a model that takes no images gets nothing, and the user is told why", async () => {
    sim = await startSimulator({ script: [{ content: [{ type: "text", text: "ok" }] }] });
    const { cwd, home } = tempWorkspace();
    writeFileSync(join(cwd, "shot.png"), PNG);
    const out = await runMitsu(["-p", "look at @shot.png", "--model", "openai:o3-mini", "--no-session-log"], {
      cwd,
      home,
      env: { OPENAI_API_KEY: "k", OPENAI_BASE_URL: `${sim.url}/v1` },
    });
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(
      "The model o3-mini does not take images, so the prompt was not sent (shot.png)",
    );
    expect(sim.requests).toHaveLength(0);
  });
});

describe("a tool call whose input is invalid", () => {
  it("shows its raw input, cut short, instead of `Read undefined`", async () => {
    const s = await simulatorEnv({
      script: [
        {
          content: [
            {
              type: "tool_use",
              id: "toolu_bad",
              name: "Read",
              input: { path: "src/index.ts", extra: "x".repeat(200) },
            },
          ],
        },
        { content: [{ type: "text", text: "Sorry." }] },
      ],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p", "read it", "--no-session-log"], { cwd, home, env: s.env });
    expect(out.stdout).not.toContain("undefined");
    expect(out.stdout).toContain('● Read {"path":"src/index.ts","extra":"xxxxxxxx');
    expect(out.stdout).toMatch(/xxx…\n/);
  });
});
