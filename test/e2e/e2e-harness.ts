import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { AgentEvent } from "../../src/loop/agent-event.js";
import type { CanUseTool } from "../../src/loop/permission.js";
import { type AgentResult, runAgent } from "../../src/loop/run-agent.js";
import type { Tool } from "../../src/loop/tool.js";
import {
  createPermissionChecker,
  loadSettings,
  type PermissionChecker,
  type PermissionCheckerOptions,
} from "../../src/permissions/index.js";
import { createAnthropicProvider } from "../../src/providers/anthropic/anthropic-provider.js";
import {
  type ScriptEntry,
  type SimBlock,
  type Simulator,
  startSimulator,
} from "../../src/simulator/index.js";
import { createBuiltinTools } from "../../src/tools/create-builtin-tools.js";

/** A provider key put into the environment Bash starts from: no command may ever see it. */
export const SECRET_KEY = "sk-ant-e2e-must-not-leak";

/** A tool_result block as the simulator received it (the wire shape). */
export interface SentResult {
  type: "tool_result";
  tool_use_id: string;
  content: string | Array<{ type: string; text?: string; source?: { media_type: string; data: string } }>;
  is_error?: boolean;
}

export interface RunOptions {
  canUseTool?: CanUseTool;
  maxTokens?: number;
  /** Appends a closing `Done.` turn after the script (default true). */
  final?: boolean;
}

export interface RunOutcome {
  result: AgentResult;
  events: AgentEvent[];
}

/**
 * One end-to-end fixture: a temp folder holding the workspace (`root`), a folder beside it (`outside`) and
 * an injected home, the built-in tools over the workspace, and a loopback simulator that plays the model.
 * Every run goes through the real loop and the real Anthropic adapter, so what a test reads back from
 * `sim.requests` is exactly what went to the model.
 */
export class E2eHarness {
  private constructor(
    /** The temp folder (real path) holding everything below. */
    readonly base: string,
    readonly root: string,
    readonly outside: string,
    readonly home: string,
    readonly sim: Simulator,
    readonly tools: Tool<never>[],
  ) {}

  static async start(): Promise<E2eHarness> {
    const base = await realpath(await mkdtemp(join(tmpdir(), "mitsu-e2e-")));
    const [root, outside, home] = ["work", "outside", "home"].map((name) => join(base, name)) as [
      string,
      string,
      string,
    ];
    for (const folder of [root, outside, home]) await mkdir(folder);
    const tools = createBuiltinTools({
      cwd: root,
      tempDir: join(base, "tmp"),
      env: {
        PATH: process.env.PATH,
        HOME: home,
        ANTHROPIC_API_KEY: SECRET_KEY,
        OPENAI_API_KEY: SECRET_KEY,
        // npm must not look for updates over the network from a test.
        npm_config_update_notifier: "false",
      },
    });
    return new E2eHarness(base, root, outside, home, await startSimulator(), tools);
  }

  async close(): Promise<void> {
    await this.sim.close();
    await rm(this.base, { recursive: true, force: true });
  }

  /** The absolute path of `path`, relative to the workspace. */
  path(path: string): string {
    return resolve(this.root, path);
  }

  /** Writes a file (relative to the workspace; `../outside/x` reaches beside it), parents created. */
  async put(path: string, content: string | Uint8Array): Promise<string> {
    const absolute = this.path(path);
    await mkdir(dirname(absolute), { recursive: true });
    await writeFile(absolute, content);
    return absolute;
  }

  text(path: string): Promise<string> {
    return readFile(this.path(path), "utf8");
  }

  exists(path: string): boolean {
    return existsSync(this.path(path));
  }

  /** A permission checker over the settings files of the workspace and the injected home (print mode unless `ask`). */
  async checker(options: Partial<Omit<PermissionCheckerOptions, "rules">> = {}): Promise<PermissionChecker> {
    // The test workspace is the user's own: its files count as trusted.
    const settings = await loadSettings({ cwd: this.root, home: this.home, trusted: true });
    return createPermissionChecker({
      rules: settings.rules,
      mode: settings.defaultMode ?? "default",
      cwd: this.root,
      home: this.home,
      ...options,
    });
  }

  /**
   * Plays `script` (then a closing `Done.` turn) through the loop with the built-in tools. Throws if the run
   * ends with an error or the simulator rejected a request (an invalid transcript, say).
   */
  async run(script: ScriptEntry[], options: RunOptions = {}): Promise<RunOutcome> {
    this.sim.enqueue(...script);
    if (options.final !== false) this.sim.enqueue({ content: [{ type: "text", text: "Done." }] });
    const events: AgentEvent[] = [];
    const run = runAgent({
      provider: createAnthropicProvider({ apiKey: "test", baseURL: this.sim.url }),
      model: "claude-sonnet-4-5",
      tools: this.tools,
      messages: [{ role: "user", content: [{ type: "text", text: "Go." }] }],
      ...(options.canUseTool ? { canUseTool: options.canUseTool } : {}),
      ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
    });
    for (;;) {
      const next = await run.next();
      if (!next.done) {
        events.push(next.value);
        continue;
      }
      // No test here expects a failed run or a rejected request: say so loudly rather than let a later
      // assertion fail for a reason it does not name.
      const rejected = this.sim.requests.filter((request) => request.status !== 200);
      if (rejected.length > 0) {
        throw new Error(`the simulator rejected a request: ${rejected.map((r) => r.error).join("; ")}`);
      }
      if (next.value.reason === "error") throw new Error(`the run failed: ${next.value.error?.message}`);
      return { result: next.value, events };
    }
  }

  /** Every tool_result the model was sent, from the last request (which carries the whole history). */
  sentResults(): SentResult[] {
    const last = this.sim.requests.at(-1);
    if (!last) throw new Error("no request reached the simulator");
    const messages = last.body.messages as Array<{ role: string; content: unknown }>;
    return messages
      .filter((message) => message.role === "user" && Array.isArray(message.content))
      .flatMap((message) => message.content as Array<{ type: string }>)
      .filter((block): block is SentResult => block.type === "tool_result");
  }

  /** The tool_result sent to the model for the call scripted with `call(id, …)`. */
  sent(id: string): SentResult {
    const found = this.sentResults().find((block) => block.tool_use_id === `toolu_${id}`);
    if (!found) throw new Error(`no tool_result for ${id} was sent`);
    return found;
  }

  /** The text of the tool_result sent for the call `id`. */
  sentText(id: string): string {
    return resultText(this.sent(id));
  }
}

/** The text parts of a tool_result's content, joined by new lines. */
export function resultText(block: SentResult): string {
  if (typeof block.content === "string") return block.content;
  return block.content
    .filter((part) => part.type === "text")
    .map((part) => part.text ?? "")
    .join("\n");
}

/** A scripted tool call with a known id (`toolu_<id>`, so tests can find its result). */
export function call(id: string, name: string, input: Record<string, unknown>): SimBlock {
  return { type: "tool_use", id: `toolu_${id}`, name, input };
}

/** A scripted assistant turn made of tool calls (run together, in order). */
export function calls(...blocks: SimBlock[]): { content: SimBlock[] } {
  return { content: blocks };
}
