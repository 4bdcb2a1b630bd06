import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");

/** The built package, imported the way a user would (npm test builds first). */
describe("the built package", () => {
  it("exposes the public API and the simulator subpath, and they work together", async () => {
    const mitsu = await import(join(root, "dist", "index.js"));
    const { startSimulator } = await import(join(root, "dist", "simulator", "index.js"));
    for (const name of [
      "runAgent",
      "createAnthropicProvider",
      "JsonAccumulator",
      "createBuiltinTools",
      "createContext",
    ]) {
      expect(typeof mitsu[name]).toBe("function");
    }
    const sim = await startSimulator({ script: [{ content: [{ type: "text", text: "from dist" }] }] });
    try {
      const result = await mitsu.runAgentToEnd({
        provider: mitsu.createAnthropicProvider({ apiKey: "k", baseURL: sim.url }),
        model: "claude-sonnet-5-5",
        messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      });
      expect(result.reason).toBe("end_turn");
      expect(result.lastMessage.content[0].text).toBe("from dist");
    } finally {
      await sim.close();
    }
  });

  it("resolves mitsu/durable through the package's exports; the core entry does not reach it", () => {
    const script = `
      const durable = await import("mitsu/durable");
      for (const name of ["createDurableAgent", "serveWorker", "registerWorker", "createSessionClient", "startRestateServer"])
        if (typeof durable[name] !== "function") throw new Error("missing " + name);
      console.log("ok");
    `;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: root,
      encoding: "utf8",
    });
    expect(out.trim()).toBe("ok");
    // The optional Restate SDK is needed only by mitsu/durable: the core's entry names neither.
    const core = readFileSync(join(root, "dist", "index.js"), "utf8");
    expect(core).not.toMatch(/durable|restatedev/);
  });

  it("loads the bash parser only when a Bash line is first checked, and it works from dist", () => {
    const script = `
      import { createRequire } from "node:module";
      const require = createRequire(import.meta.url);
      const mitsu = await import(${JSON.stringify(join(root, "dist", "index.js"))});
      const loaded = () => Object.keys(require.cache).some((path) => path.includes("mvdan-sh"));
      const before = loaded();
      const parsed = mitsu.parseBashCommand("git status; rm x # done");
      console.log(JSON.stringify({ before, after: loaded(), words: parsed.commands.map((c) => c.words) }));`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(JSON.parse(out)).toEqual({
      before: false,
      after: true,
      words: [
        ["git", "status"],
        ["rm", "x"],
      ],
    });
  });

  it("ships the test doubles as mitsu/testing, and none of them inside the runtime folders", async () => {
    const testing = await import(join(root, "dist", "testing", "index.js"));
    const mitsu = await import(join(root, "dist", "index.js"));
    const provider = new testing.TestProvider([testing.textTurn("scripted")]);
    const result = await mitsu.runAgentToEnd({
      provider,
      model: "m",
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    });
    expect(result.lastMessage.content[0].text).toBe("scripted");
    expect(provider.requests).toHaveLength(1);
    expect(typeof testing.testSkill).toBe("function");
    expect(mitsu.TestProvider).toBeUndefined();
    const doubles = execFileSync(
      "find",
      [join(root, "dist"), "-name", "test-*.js", "-not", "-path", "*/testing/*"],
      {
        encoding: "utf8",
      },
    );
    expect(doubles.trim()).toBe("");
  });

  it("the mitsu binary runs: --version, and a clear error without a key", () => {
    const bin = join(root, "dist", "cli", "bin.js");
    const version = execFileSync(process.execPath, [bin, "--version"], { encoding: "utf8" }).trim();
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    const env = { ...process.env };
    delete env.ANTHROPIC_API_KEY;
    const run = spawnSync(process.execPath, [bin, "-p", "hi", "--no-session-log"], {
      encoding: "utf8",
      env,
      input: "",
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("ANTHROPIC_API_KEY");
  });
});
