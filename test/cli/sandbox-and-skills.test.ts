import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { LoggedRequest, Simulator } from "../../src/simulator/index.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "./cli-harness.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

function toolResult(request: LoggedRequest | undefined, id: string): { content: string; is_error?: boolean } {
  const blocks = (request?.body.messages ?? []).flatMap((m: { content: unknown }) =>
    Array.isArray(m.content) ? m.content : [],
  );
  return blocks.find((b: { tool_use_id?: string }) => b.tool_use_id === id);
}

const bash = (id: string, command: string) => ({
  content: [{ type: "tool_use" as const, id: `toolu_${id}`, name: "Bash", input: { command } }],
});

describe("mitsu --sandbox (bubblewrap)", () => {
  it("runs Bash without asking, confined: a write outside the workspace and a network call both fail", async () => {
    const server = createServer((_req, res) => res.end("reached"));
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const port = (server.address() as AddressInfo).port;
    try {
      const { root, cwd, home } = tempWorkspace();
      const s = await simulatorEnv({
        script: [
          bash("in", "echo ok > inside.txt && cat inside.txt"),
          bash("out", `echo escape > ${join(root, "outside.txt")}; echo probe > /etc/mitsu-sandbox-probe`),
          bash(
            "net",
            `node -e 'fetch("http://127.0.0.1:${port}").then(r=>r.text()).then(t=>console.log("net:"+t),e=>console.log("net-error"))'`,
          ),
          { content: [{ type: "text", text: "Done." }] },
        ],
      });
      sim = s.sim;
      const out = await runMitsu(["-p", "go", "--sandbox", "--no-session-log"], { cwd, home, env: s.env });
      expect(out.code).toBe(0);
      const last = sim.requests.at(-1);
      expect(toolResult(last, "toolu_in").content).toBe("ok\n\n[Exit code: 0]");
      // Outside the workspace nothing reaches the real filesystem: the temp folder is private to the sandbox
      // (the write lands there and is discarded), and the rest is read-only.
      expect(existsSync(join(root, "outside.txt"))).toBe(false);
      expect(toolResult(last, "toolu_out").content).toMatch(
        /\/etc\/mitsu-sandbox-probe: Read-only file system/,
      );
      expect(existsSync("/etc/mitsu-sandbox-probe")).toBe(false);
      expect(toolResult(last, "toolu_net").content).toContain("net-error");
      expect(JSON.stringify(sim.requests[0]!.body.tools)).toContain("Commands run in a sandbox");
    } finally {
      server.close();
    }
  });

  it("a project's shared settings may turn it on but not auto-allow, and say so", async () => {
    const { cwd, home } = tempWorkspace();
    mkdirSync(join(cwd, ".mitsu"), { recursive: true });
    writeFileSync(
      join(cwd, ".mitsu", "settings.json"),
      JSON.stringify({ sandbox: { enabled: true, autoAllowBashIfSandboxed: true } }),
    );
    const s = await simulatorEnv({
      script: [bash("x", "sleep 0; echo hi"), { content: [{ type: "text", text: "ok" }] }],
    });
    sim = s.sim;
    const out = await runMitsu(["-p", "go", "--no-session-log"], { cwd, home, env: s.env });
    expect(out.stderr).toContain(
      "sandbox.autoAllowBashIfSandboxed is ignored in a project's shared settings",
    );
    expect(toolResult(sim.requests[1], "toolu_x").content).toContain("was denied");
  });
});

describe("skills and commands", () => {
  it("a user skill's own files are readable (read-only), as its instructions point to them", async () => {
    const { cwd, home } = tempWorkspace();
    const dir = join(home, ".mitsu", "skills", "deploy");
    mkdirSync(join(dir, "references"), { recursive: true });
    writeFileSync(
      join(dir, "SKILL.md"),
      "---\nname: deploy\ndescription: Deploys the app.\n---\nRead references/steps.md.\n",
    );
    writeFileSync(join(dir, "references", "steps.md"), "1. build\n2. ship\n");
    const s = await simulatorEnv({
      script: [
        {
          content: [
            {
              type: "tool_use",
              id: "toolu_r",
              name: "Read",
              input: { file_path: join(dir, "references", "steps.md") },
            },
          ],
        },
        {
          content: [
            {
              type: "tool_use",
              id: "toolu_w",
              name: "Write",
              input: { file_path: join(dir, "references", "x.md"), content: "x" },
            },
          ],
        },
        { content: [{ type: "text", text: "ok" }] },
      ],
    });
    sim = s.sim;
    await runMitsu(["-p", "/deploy", "--permission-mode", "bypassPermissions", "--no-session-log"], {
      cwd,
      home,
      env: s.env,
    });
    expect(toolResult(sim.requests.at(-1), "toolu_r").content).toContain("1. build");
    expect(toolResult(sim.requests.at(-1), "toolu_w").content).toContain("outside the workspace");
  });

  it("runs !`cmd` under the permission rules, inlines @file, and honours the model", async () => {
    const { cwd, home } = tempWorkspace();
    mkdirSync(join(cwd, ".mitsu", "commands"), { recursive: true });
    writeFileSync(
      join(cwd, ".mitsu", "commands", "status.md"),
      "---\nmodel: haiku\n---\nBranch: !`echo main-branch`\nDenied: !`touch gone.txt`\nNotes in @notes.md, not @nope.md.\n",
    );
    writeFileSync(join(cwd, "notes.md"), "remember the milk\n");
    const s = await simulatorEnv({ script: [{ content: [{ type: "text", text: "ok" }] }] });
    sim = s.sim;
    const out = await runMitsu(["-p", "/status", "--allowedTools", "Bash(echo:*)", "--no-session-log"], {
      cwd,
      home,
      env: s.env,
    });
    expect(out.code).toBe(0);
    const body = sim.requests[0]!.body;
    expect(body.model).toBe("claude-haiku-4-5");
    const sent = body.messages[0].content.at(-1).text as string;
    expect(sent).toContain("Branch: main-branch\n");
    expect(sent).toMatch(
      /Denied: \[!`touch gone.txt` was not run: Permission to use Bash\(touch gone.txt\) was denied/,
    );
    expect(sent).toContain("Notes in notes.md, not @nope.md.");
    expect(sent).toContain('<file path="notes.md">\nremember the milk\n</file>');
  });

  it("@file in a command never reads outside the workspace (a repository's file cannot pull in the user's)", async () => {
    const { root, cwd, home } = tempWorkspace();
    writeFileSync(join(root, "secret.txt"), "TOP-SECRET");
    mkdirSync(join(cwd, ".mitsu", "commands"), { recursive: true });
    writeFileSync(
      join(cwd, ".mitsu", "commands", "leak.md"),
      `Look at @${join(root, "secret.txt")} and @../secret.txt\n`,
    );
    const s = await simulatorEnv({ script: [{ content: [{ type: "text", text: "ok" }] }] });
    sim = s.sim;
    await runMitsu(["-p", "/leak", "--no-session-log"], { cwd, home, env: s.env });
    expect(JSON.stringify(sim.requests[0]!.body)).not.toContain("TOP-SECRET");
  });

  it("a skill the model loads answers with its own model for the rest of that run only", async () => {
    const { cwd, home } = tempWorkspace();
    const dir = join(cwd, ".mitsu", "skills", "quick");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "SKILL.md"),
      "---\nname: quick\ndescription: Quick answers.\nmodel: haiku\n---\nBe quick.\n",
    );
    const s = await simulatorEnv({
      script: [
        { content: [{ type: "tool_use", id: "toolu_s", name: "Skill", input: { skill: "quick" } }] },
        { content: [{ type: "text", text: "Quick." }] },
        { content: [{ type: "text", text: "Next." }] },
      ],
    });
    sim = s.sim;
    await runMitsu(["-p", "answer quickly", "--no-session-log"], { cwd, home, env: s.env });
    await runMitsu(["-p", "again", "--no-session-log"], { cwd, home, env: s.env });
    expect(sim.requests.map((r) => r.body.model)).toEqual([
      "claude-sonnet-5-5",
      "claude-haiku-4-5",
      "claude-sonnet-5-5",
    ]);
  });
});
