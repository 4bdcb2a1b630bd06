import { createHash } from "node:crypto";
import { chmod, mkdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { writeConfigFile } from "../../fs/write-config-file.js";

/** What is kept for one server between runs. */
export interface StoredOAuth {
  /** The registered client (dynamic registration), with the redirect port it was registered for. */
  client?: OAuthClientInformationMixed;
  redirectPort?: number;
  tokens?: OAuthTokens;
  /** When `tokens` were saved (ms since 1970), so expiry can be told from `expires_in`. */
  savedAt?: number;
  discovery?: OAuthDiscoveryState;
  codeVerifier?: string;
}

/**
 * One JSON file per server under `<dir>` (`~/.mitsu/mcp-oauth`), named by a hash of the server's name and URL (a
 * server moved to another URL logs in again). Folder 0700, files 0600: they hold tokens.
 */
export class OAuthStore {
  constructor(private readonly dir: string) {}

  fileFor(server: string, url: string): string {
    const key = createHash("sha256").update(`${server}\u0000${url}`).digest("hex").slice(0, 24);
    return join(this.dir, `${key}.json`);
  }

  async read(server: string, url: string): Promise<StoredOAuth> {
    const text = await readFile(this.fileFor(server, url), "utf8").catch(() => undefined);
    if (text === undefined) return {};
    try {
      const value: unknown = JSON.parse(text);
      return typeof value === "object" && value !== null ? (value as StoredOAuth) : {};
    } catch {
      return {};
    }
  }

  async write(server: string, url: string, data: StoredOAuth): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await chmod(this.dir, 0o700).catch(() => {});
    const file = this.fileFor(server, url);
    await writeConfigFile(file, `${JSON.stringify(data, null, 2)}\n`, 0o600);
    await chmod(file, 0o600);
  }

  async remove(server: string, url: string): Promise<boolean> {
    const file = this.fileFor(server, url);
    const existed = await readFile(file).then(
      () => true,
      () => false,
    );
    await rm(file, { force: true });
    return existed;
  }
}
