import {
  mkdirSync,
  mkdtempSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent, AgentResult } from "../loop/agent-event.js";
import { type Simulator, startSimulator } from "../simulator/index.js";
import type { ScriptEntry } from "../simulator/types.js";
import { createCodingAgent } from "./create-coding-agent.js";

// Regression: a folder a PermissionRequest hook adds (`updatedPermissions: addDirectories`) reached the permission
// checker and the settings file, but the file tools' folders were fixed at start-up: Read in it was refused until
// a restart. Removing one must stop access at once; a link swapped in after it was added must widen nothing.

let sim: Simulator | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const text = (t: string): ScriptEntry => ({ content: [{ type: "text", text: t }] });
const tool = (name: string, input: Record<string, unknown>, id: string): ScriptEntry => ({
  content: [{ type: "tool_use", id, name, input }],
});

/** A PermissionRequest hook that allows `touch <when>` with `updates`. */
const hook = (when: string, updates: unknown[]) => ({
  PermissionRequest: [
    {
      matcher: "Bash",
      hooks: [
        {
          type: "command",
          command: `read -r line; if echo "$line" | grep -q 'touch ${when}'; then echo '${JSON.stringify({
            hookSpecificOutput: {
              hookEventName: "PermissionRequest",
              decision: { behavior: "allow", updatedPermissions: updates },
            },
          })}'; fi`,
        },
      ],
    },
  ],
});

async function setup(script: ScriptEntry[], settings: Record<string, unknown>, addDirs: string[] = []) {
  sim = await startSimulator({ script });
  const root = mkdtempSync(join(tmpdir(), "mitsu-added-folder-"));
  dirs.push(root);
  const cwd = join(root, "ws");
  const home = join(root, "home");
  const extra = join(root, "extra");
  const secret = join(root, "secret");
  for (const dir of [cwd, extra, secret, join(home, ".mitsu")]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(extra, "notes.txt"), "EXTRA-NOTES\n");
  writeFileSync(join(secret, "notes.txt"), "SECRET-NOTES\n");
  writeFileSync(join(home, ".mitsu", "settings.json"), JSON.stringify(settings));
  const questions: string[] = [];
  const agent = await createCodingAgent({
    cwd,
    home,
    env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: sim.url },
    model: "anthropic:claude-sonnet-5-5",
    session: { log: false },
    addDirs,
    // A question would be a failure here: record it and refuse.
    ask: async (request) => {
      questions.push(request.display);
      return "deny";
    },
  });
  return { sim, root, cwd, extra, secret, agent, questions };
}

async function drain(run: AsyncGenerator<AgentEvent, AgentResult>): Promise<void> {
  for (;;) if ((await run.next()).done) return;
}

/** The text of the tool_result that answered `id`, from the requests the simulator received. */
function resultOf(s: Simulator, id: string): string {
  for (const request of s.requests) {
    for (const message of request.body.messages as { content: unknown }[]) {
      if (!Array.isArray(message.content)) continue;
      for (const block of message.content as { type: string; tool_use_id?: string }[])
        if (block.type === "tool_result" && block.tool_use_id === id) return JSON.stringify(block);
    }
  }
  throw new Error(`no tool_result for ${id}`);
}

describe("a folder added mid-session reaches the file tools at once", () => {
  it("a hook's addDirectories: the next Read, Grep and Glob in it work without a question", async () => {
    const { agent, sim, extra, questions } = await setup([], {
      hooks: hook("a.txt", [{ type: "addDirectories", directories: ["../extra"], destination: "session" }]),
    });
    sim.enqueue(
      tool("Read", { file_path: join(extra, "notes.txt") }, "before"),
      tool("Bash", { command: "touch a.txt" }, "t1"),
      tool("Read", { file_path: join(extra, "notes.txt") }, "after"),
      tool("Grep", { pattern: "EXTRA", path: extra }, "grep"),
      tool("Glob", { pattern: "*.txt", path: extra }, "glob"),
      text("ok"),
    );
    await drain(agent.prompt("go"));
    expect(resultOf(sim, "before")).toContain("outside the workspace");
    expect(resultOf(sim, "after")).toContain("EXTRA-NOTES");
    expect(resultOf(sim, "grep")).toContain("notes.txt");
    expect(resultOf(sim, "glob")).toContain("notes.txt");
    expect(questions).toEqual([]);
    // The system prompt, the cached prefix, stays as it was: the folder is named from the next session on.
    const systems = sim.requests.map((r) => JSON.stringify(r.body.system));
    expect(new Set(systems).size).toBe(1);
    expect(systems[0]).not.toContain("Additional working folders");
    // A new conversation (/clear) builds its system prompt anew, and names the folder.
    await agent.clear();
    sim.enqueue(text("fresh"));
    await drain(agent.prompt("again"));
    expect(JSON.stringify(sim.requests.at(-1)?.body.system)).toContain(
      `Additional working folders: ${realpathSync(extra)}`,
    );
    await agent.close();
  });

  it("a hook's removeDirectories: the next Read in the folder is refused, and Write there is no longer in the workspace", async () => {
    const { agent, sim, extra } = await setup(
      [],
      {
        permissions: { defaultMode: "acceptEdits" },
        hooks: hook("b.txt", [
          { type: "removeDirectories", directories: ["../extra"], destination: "session" },
        ]),
      },
      ["../extra"],
    );
    sim.enqueue(
      tool("Read", { file_path: join(extra, "notes.txt") }, "before"),
      tool("Bash", { command: "touch b.txt" }, "t1"),
      tool("Read", { file_path: join(extra, "notes.txt") }, "after"),
      tool("Write", { file_path: join(extra, "new.txt"), content: "x" }, "write"),
      text("ok"),
    );
    await drain(agent.prompt("go"));
    expect(resultOf(sim, "before")).toContain("EXTRA-NOTES");
    // A folder of the session's start is named in its environment section, by its real path.
    expect(JSON.stringify(sim.requests[0]?.body.system)).toContain(
      `Additional working folders: ${realpathSync(extra)}`,
    );
    expect(resultOf(sim, "after")).toContain("outside the workspace");
    expect(resultOf(sim, "after")).not.toContain("EXTRA-NOTES");
    expect(resultOf(sim, "write")).toMatch(/outside the workspace|denied/);
    await agent.close();
  });

  it("a folder swapped for a link after it was added widens nothing: its real path was fixed when added", async () => {
    const { agent, sim, extra, root } = await setup([], {
      hooks: hook("c.txt", [{ type: "addDirectories", directories: ["../extra"], destination: "session" }]),
    });
    sim.enqueue(tool("Bash", { command: "touch c.txt" }, "t1"), text("added"));
    await drain(agent.prompt("add"));
    // The added folder now points at the secret one.
    renameSync(extra, join(root, "extra-old"));
    symlinkSync(join(root, "secret"), extra);
    sim.enqueue(tool("Read", { file_path: join(extra, "notes.txt") }, "swapped"), text("ok"));
    await drain(agent.prompt("read"));
    expect(resultOf(sim, "swapped")).not.toContain("SECRET-NOTES");
    expect(resultOf(sim, "swapped")).toMatch(/outside the workspace|symbolic link/);
    await agent.close();
  });
});
