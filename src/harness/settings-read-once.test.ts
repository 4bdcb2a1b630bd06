import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../simulator/index.js";
import { createCodingAgent } from "./create-coding-agent.js";

let sim: Simulator | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("the settings files are read once, by loadSettings", () => {
  it("the project's outputStyle and enabledPlugins follow settingSources as every other key does (they were read apart before)", async () => {
    const ok = { content: [{ type: "text" as const, text: "ok" }] };
    sim = await startSimulator({ script: [ok, ok] });
    const root = mkdtempSync(join(tmpdir(), "mitsu-settings-once-"));
    dirs.push(root);
    const cwd = join(root, "ws");
    const home = join(root, "home");
    mkdirSync(join(cwd, ".claude", "output-styles"), { recursive: true });
    writeFileSync(
      join(cwd, ".claude", "output-styles", "pirate.md"),
      "---\nname: Pirate\n---\nTalk like a pirate.\n",
    );
    writeFileSync(
      join(cwd, ".claude", "settings.json"),
      JSON.stringify({
        outputStyle: "Pirate",
        extraKnownMarketplaces: { m: { source: { source: "github", repo: "o/r" } } },
      }),
    );
    const run = async (settingSources?: Array<"user" | "project" | "local">) => {
      const warnings: string[] = [];
      const agent = await createCodingAgent({
        cwd,
        home,
        env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: sim?.url },
        model: "anthropic:claude-sonnet-5-5",
        mcp: false,
        session: { log: false },
        ...(settingSources ? { settingSources } : {}),
        onWarning: (m) => warnings.push(m),
      });
      for await (const _ of agent.prompt("hi")) {
        // drain
      }
      await agent.close();
      return warnings.join("\n");
    };
    const userOnly = await run(["user"]);
    expect(JSON.stringify(sim.requests[0]?.body.system)).not.toContain("Talk like a pirate.");
    expect(userOnly).not.toContain("suggests the plugin marketplace");
    // All sources (the default): both count.
    const all = await run();
    expect(JSON.stringify(sim.requests[1]?.body.system)).toContain("Talk like a pirate.");
    expect(all).toContain("suggests the plugin marketplace");
  });

  it("hooks follow settingSources too: a user file's hook does not run when only the project's files count, nor a project's when only the user's do", async () => {
    const ok = { content: [{ type: "text" as const, text: "ok" }] };
    sim = await startSimulator({ script: [ok, ok, ok] });
    const root = mkdtempSync(join(tmpdir(), "mitsu-settings-once-"));
    dirs.push(root);
    const cwd = join(root, "ws");
    const home = join(root, "home");
    const marks = join(root, "marks");
    mkdirSync(join(cwd, ".mitsu"), { recursive: true });
    mkdirSync(join(home, ".mitsu"), { recursive: true });
    const hook = (who: string) => ({
      hooks: {
        UserPromptSubmit: [
          { hooks: [{ type: "command", command: `echo ${who} >> ${JSON.stringify(marks)}` }] },
        ],
      },
    });
    writeFileSync(join(home, ".mitsu", "settings.json"), JSON.stringify(hook("user")));
    writeFileSync(join(cwd, ".mitsu", "settings.json"), JSON.stringify(hook("project")));
    const run = async (settingSources?: Array<"user" | "project" | "local">) => {
      rmSync(marks, { force: true });
      const agent = await createCodingAgent({
        cwd,
        home,
        env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: sim?.url },
        model: "anthropic:claude-sonnet-5-5",
        mcp: false,
        trust: true,
        session: { log: false },
        ...(settingSources ? { settingSources } : {}),
      });
      for await (const _ of agent.prompt("hi")) {
        // drain
      }
      await agent.close();
      return existsSync(marks) ? readFileSync(marks, "utf8").split("\n").filter(Boolean).sort() : [];
    };
    expect(await run(["project"])).toEqual(["project"]);
    expect(await run(["user"])).toEqual(["user"]);
    expect(await run()).toEqual(["project", "user"]);
  });
});
