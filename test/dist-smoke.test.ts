import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";

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

  it("reads the shipped skills without loading the yaml package (start-up does not pay for it)", () => {
    const script = `
      import { createRequire } from "node:module";
      import { mkdtempSync } from "node:fs";
      import { tmpdir } from "node:os";
      import { join } from "node:path";
      const require = createRequire(import.meta.url);
      const mitsu = await import(${JSON.stringify(join(root, "dist", "index.js"))});
      const empty = mkdtempSync(join(tmpdir(), "mitsu-skills-"));
      const found = await mitsu.discoverSkills({ cwd: empty, home: empty });
      const loaded = Object.keys(require.cache).some((path) => path.includes("/node_modules/yaml/"));
      console.log(JSON.stringify({ names: found.skills.map((s) => s.name).sort(), loaded }));`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(JSON.parse(out)).toEqual({ names: ["commit", "init", "review"], loaded: false });
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

  it("works installed from its tarball: mitsu --version and demo, every export, types for old and new resolvers", () => {
    const dir = mkdtempSync(join(tmpdir(), "mitsu-pack-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const packed = JSON.parse(
      execFileSync("npm", ["pack", "--json", "--pack-destination", dir], { cwd: root, encoding: "utf8" }),
    )[0] as { filename: string; files: Array<{ path: string }> };
    const paths = packed.files.map((f) => f.path);
    // No source maps (they would point at src/*.ts, which is not shipped), no sources, no tests.
    expect(paths.filter((p) => /\.map$|^src\/|^test\//.test(p))).toEqual([]);
    expect(paths).toContain("examples/demo-workspace/src/temperature.js");

    // An app with mitsu installed: the tarball unpacked in its node_modules, mitsu's dependencies beside it
    // (linked from this checkout's: the test needs no network).
    const app = join(dir, "app");
    const installed = join(app, "node_modules", "mitsu");
    mkdirSync(installed, { recursive: true });
    execFileSync("tar", ["-xzf", join(dir, packed.filename), "-C", installed, "--strip-components=1"]);
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
    for (const name of [...Object.keys(manifest.dependencies), "typescript", "@types/node"]) {
      mkdirSync(dirname(join(app, "node_modules", name)), { recursive: true });
      symlinkSync(join(root, "node_modules", name), join(app, "node_modules", name));
    }
    expect(manifest.repository.url).toContain("github.com");
    expect(manifest.homepage).toMatch(/^https:\/\//);
    expect(manifest.bugs.url).toMatch(/^https:\/\//);

    const bin = join(installed, manifest.bin.mitsu);
    expect(execFileSync(process.execPath, [bin, "--version"], { cwd: app, encoding: "utf8" }).trim()).toBe(
      manifest.version,
    );
    const demo = spawnSync(process.execPath, [bin, "demo", "--fast", "--clean"], {
      cwd: app,
      encoding: "utf8",
      env: { PATH: process.env.PATH, HOME: join(dir, "home") },
    });
    expect(demo.stderr).not.toMatch(/Error|ENOENT/);
    expect(demo.status).toBe(0);
    expect(demo.stdout).toContain("requests served by the simulator");

    writeFileSync(
      join(app, "check.mjs"),
      `import { createRequire } from "node:module";
      const mitsu = await import("mitsu");
      const testing = await import("mitsu/testing");
      const simulator = await import("mitsu/simulator");
      const stream = await import("mitsu/stream");
      const pkg = createRequire(import.meta.url)("mitsu/package.json");
      console.log(JSON.stringify([typeof mitsu.runAgent, typeof testing.TestProvider,
        typeof simulator.startSimulator, typeof stream.JsonAccumulator, pkg.name]));`,
    );
    const exports = execFileSync(process.execPath, ["check.mjs"], { cwd: app, encoding: "utf8" });
    expect(JSON.parse(exports)).toEqual(["function", "function", "function", "function", "mitsu"]);

    // The types resolve through `exports` (node16, bundler) and, for resolvers that ignore it, `typesVersions`.
    // (mitsu is ES modules only: the app is one too.)
    writeFileSync(join(app, "package.json"), JSON.stringify({ type: "module", private: true }));
    writeFileSync(
      join(app, "check.ts"),
      `import { runAgent } from "mitsu";
      import { TestProvider } from "mitsu/testing";
      import { startSimulator } from "mitsu/simulator";
      import { JsonAccumulator } from "mitsu/stream";
      export const used = [runAgent, TestProvider, startSimulator, JsonAccumulator];`,
    );
    const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
    for (const [module, resolution] of [
      ["commonjs", "node10"],
      ["node16", "node16"],
      ["esnext", "bundler"],
    ]) {
      const flags = ["--noEmit", "--skipLibCheck", "--types", "node", "--module", module!];
      const run = spawnSync(
        process.execPath,
        [tsc, ...flags, "--moduleResolution", resolution!, "check.ts"],
        {
          cwd: app,
          encoding: "utf8",
        },
      );
      expect(`${resolution}: ${run.stdout}${run.stderr}`).toBe(`${resolution}: `);
    }
  }, 60_000);
});
