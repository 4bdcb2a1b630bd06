import { existsSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MarketplaceError } from "./marketplace.js";
import { addMarketplace, installPlugin, type PluginActionOptions } from "./plugin-actions.js";

let base: string;
let options: PluginActionOptions;
const said: string[] = [];

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "mitsu-plugin-actions-")));
  said.length = 0;
  options = { home: join(base, "home"), cwd: base, say: (line) => said.push(line) };
});
afterEach(() => rm(base, { recursive: true, force: true }));

async function files(root: string, map: Record<string, string>) {
  for (const [path, text] of Object.entries(map)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

const market = (name: string, plugins: unknown[]) => JSON.stringify({ name, owner: { name: "t" }, plugins });

describe("plugin installs stay inside their folders", () => {
  it("refuses a marketplace or plugin named . or .. (it would name a folder above its own)", async () => {
    await files(join(base, "m1"), { ".claude-plugin/marketplace.json": market("..", []) });
    await expect(addMarketplace(join(base, "m1"), options)).rejects.toBeInstanceOf(MarketplaceError);
    await files(join(base, "m2"), {
      ".claude-plugin/marketplace.json": market("ok", [{ name: "..", source: "./p" }]),
      "p/commands/x.md": "X.",
    });
    await addMarketplace(join(base, "m2"), options);
    expect(said.join("\n")).toContain('plugins[0] has no usable "name"; skipped');
  });

  it("does not copy a link that leads out of the plugin, nor a plugin folder outside its marketplace", async () => {
    const root = join(base, "m");
    await files(root, {
      ".claude-plugin/marketplace.json": market("m", [
        { name: "p", source: "./p" },
        { name: "escape", source: "../secrets" },
      ]),
      "p/commands/ok.md": "OK.",
      "p/commands/inner.md": "Inner.",
    });
    await files(base, { "secrets/id_rsa": "PRIVATE KEY" });
    await symlink(join(base, "secrets", "id_rsa"), join(root, "p", "commands", "key.md"));
    await symlink("inner.md", join(root, "p", "commands", "alias.md"));
    await addMarketplace(root, options);
    const record = await installPlugin("p@m", options);
    expect(existsSync(join(record.installPath, "commands", "ok.md"))).toBe(true);
    expect(existsSync(join(record.installPath, "commands", "alias.md"))).toBe(true);
    expect(existsSync(join(record.installPath, "commands", "key.md"))).toBe(false);
    await expect(installPlugin("escape@m", options)).rejects.toThrow("lies outside its marketplace");
  });
});
