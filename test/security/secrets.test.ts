import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { takeGitSnapshot } from "../../src/context/git-snapshot.js";
import { childEnv, PROVIDER_KEY_ENV_NAMES } from "../../src/process/child-env.js";
import { createAnthropicProvider } from "../../src/providers/anthropic/anthropic-provider.js";
import { BUILTIN_PROVIDERS } from "../../src/providers/model-registry.js";
import { createOpenAIChatProvider } from "../../src/providers/openai-chat/openai-chat-provider.js";
import { startSimulator } from "../../src/simulator/index.js";
import { runMitsuBin } from "./run-bin.js";

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "mitsu-secrets-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" });

/** A repository whose own config runs code: an fsmonitor hook and a clean filter, each leaving a marker. */
function hostileRepository(root: string): { repo: string; markers: string[] } {
  const repo = join(root, "repo");
  mkdirSync(repo);
  git(repo, "init", "-q");
  git(repo, "config", "user.email", "a@example.com");
  git(repo, "config", "user.name", "a");
  writeFileSync(join(repo, "a.txt"), "hello\n");
  writeFileSync(join(repo, ".gitattributes"), "* filter=evil\n");
  git(repo, "add", ".");
  git(repo, "commit", "-qm", "init");
  const hook = join(root, "fsmonitor.sh");
  const fsmonitorMarker = join(root, "fsmonitor-ran");
  const filterMarker = join(root, "filter-ran");
  writeFileSync(hook, `#!/bin/sh\nenv > '${fsmonitorMarker}'\nprintf '\\0'\n`);
  chmodSync(hook, 0o755);
  git(repo, "config", "core.fsmonitor", hook);
  git(repo, "config", "filter.evil.clean", `sh -c 'env > ${filterMarker}; cat'`);
  // Stat data that no longer matches the index: git status hashes the file again, through the clean filter.
  utimesSync(join(repo, "a.txt"), new Date(2001, 0, 1), new Date(2001, 0, 1));
  return { repo, markers: [fsmonitorMarker, filterMarker] };
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("child environment", () => {
  it("drops every provider key, models.json's apiKeyEnv names and the user's MITSU_SECRET_ENV list", () => {
    const env = childEnv(
      {
        PATH: "/bin",
        ANTHROPIC_API_KEY: "a",
        ANTHROPIC_AUTH_TOKEN: "t",
        GOOGLE_API_KEY: "g",
        GROQ_API_KEY: "q",
        MY_LLM_TOKEN: "custom",
        GITHUB_TOKEN: "gh",
        AWS_SECRET_ACCESS_KEY: "aws",
        MITSU_SECRET_ENV: "GITHUB_TOKEN, AWS_*",
        KEEP: "kept",
      },
      { drop: ["MY_LLM_TOKEN"] },
    );
    expect(Object.keys(env).sort()).toEqual(["KEEP", "MITSU_SECRET_ENV", "PATH"]);
  });

  it("knows every key variable the model registry reads", () => {
    for (const provider of Object.values(BUILTIN_PROVIDERS)) {
      for (const name of provider.keyEnv) expect(PROVIDER_KEY_ENV_NAMES).toContain(name);
    }
  });
});

describe("the start-up git snapshot", () => {
  it("runs none of the repository's code: no fsmonitor hook, no clean filter", async () => {
    const root = tempDir();
    const { repo, markers } = hostileRepository(root);
    const snapshot = await takeGitSnapshot(repo);
    expect(snapshot.repository).toBe(true);
    for (const marker of markers) expect(existsSync(marker)).toBe(false);
  });

  it("gives git the scrubbed environment", async () => {
    const root = tempDir();
    const envFile = join(root, "git-env");
    const fakeGit = join(root, "git");
    writeFileSync(fakeGit, `#!/bin/sh\nenv >> '${envFile}'\nexit 1\n`);
    chmodSync(fakeGit, 0o755);
    vi.stubEnv("ANTHROPIC_API_KEY", "sk-ant-leaked");
    vi.stubEnv("MY_LLM_TOKEN", "custom-leaked");
    await takeGitSnapshot(root, { gitPath: fakeGit, secretEnv: ["MY_LLM_TOKEN"] });
    const seen = readFileSync(envFile, "utf8");
    expect(seen).toContain("PATH=");
    expect(seen).not.toContain("leaked");
  });
});

describe("request dumps and encoded requests", () => {
  it("encode redacts the headers configured for a provider and any header named like a secret", () => {
    const provider = createOpenAIChatProvider({
      apiKey: "sk-1",
      baseURL: "http://127.0.0.1:1/v1",
      headers: { "X-Tenant": "tenant-secret", "X-Auth-Token": "tok", "X-Title": "kept-title" },
    });
    const headers = provider.encode({
      model: "m",
      system: [],
      tools: [],
      messages: [],
      maxTokens: 10,
    }).headers;
    expect(JSON.stringify(headers)).not.toMatch(/sk-1|tenant-secret|tok"/);
    expect(headers.authorization).toBe("Bearer <redacted>");
    const anthropic = createAnthropicProvider({ apiKey: "k", headers: { "anthropic-beta": "b1" } });
    const shown = anthropic.encode({
      model: "m",
      system: [],
      tools: [],
      messages: [],
      maxTokens: 10,
    }).headers;
    expect(shown["anthropic-beta"]).toBe("b1");
  });
});

describe("mitsu (the real command)", () => {
  it("keeps the keys from git, from Bash and out of --dump-requests, for a models.json provider too", async () => {
    const root = tempDir();
    const { repo, markers } = hostileRepository(root);
    const home = join(root, "home");
    const bin = join(root, "bin");
    mkdirSync(bin);
    const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
    const gitEnvs = join(root, "git-envs");
    mkdirSync(gitEnvs);
    writeFileSync(join(bin, "git"), `#!/bin/sh\nenv > '${gitEnvs}'/$$\nexec '${realGit}' "$@"\n`);
    chmodSync(join(bin, "git"), 0o755);
    const sim = await startSimulator({
      script: [
        { content: [{ type: "tool_use", name: "Bash", input: { command: "env" } }] },
        { content: [{ type: "text", text: "Done." }] },
      ],
    });
    onTestFinished(() => sim.close());
    mkdirSync(join(home, ".mitsu"), { recursive: true });
    writeFileSync(
      join(home, ".mitsu", "models.json"),
      JSON.stringify({
        providers: {
          mine: {
            api: "anthropic",
            baseURL: sim.url,
            apiKeyEnv: "MY_LLM_TOKEN",
            headers: { "X-Tenant": "tenant-secret-header" },
            models: ["claude-sonnet-5-5"],
          },
        },
      }),
    );
    const dumps = join(root, "dumps");
    const run = await runMitsuBin(
      ["-p", "--model", "mine:claude-sonnet-5-5", "--permission-mode", "bypassPermissions"].concat([
        "--dump-requests",
        dumps,
        "show the environment",
      ]),
      {
        cwd: repo,
        env: {
          PATH: `${bin}:${process.env.PATH}`,
          HOME: home,
          MY_LLM_TOKEN: "custom-key-value",
          ANTHROPIC_API_KEY: "sk-ant-value",
        },
      },
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    // The key and the header did reach the server: they were not lost, only kept from everything else.
    expect(sim.requests[0]?.headers["x-api-key"]).toBe("custom-key-value");
    expect(sim.requests[0]?.headers["x-tenant"]).toBe("tenant-secret-header");
    const toolResult = JSON.stringify(sim.requests[1]?.body.messages[2]);
    expect(toolResult).toContain("PATH=");
    expect(toolResult).not.toMatch(/custom-key-value|sk-ant-value/);
    const gitRuns = readdirSync(gitEnvs);
    expect(gitRuns.length).toBeGreaterThan(0);
    for (const file of gitRuns) {
      expect(readFileSync(join(gitEnvs, file), "utf8")).not.toMatch(/custom-key-value|sk-ant-value/);
    }
    for (const marker of markers) expect(existsSync(marker)).toBe(false);
    const dumped = readdirSync(dumps).map((f) => readFileSync(join(dumps, f), "utf8"));
    expect(dumped.length).toBe(4);
    for (const text of dumped) expect(text).not.toMatch(/custom-key-value|tenant-secret-header|sk-ant-value/);
    expect(dumped.join("")).toContain('"x-tenant": "<redacted>"');
  });
});
