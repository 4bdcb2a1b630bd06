import { createServer, type Server } from "node:http";

/** The page the browser shows once the code has arrived (or not). */
const page = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif;margin:3em"><h1>${title}</h1><p>${text}</p></body>`;

/**
 * A loopback HTTP listener for the OAuth redirect (`http://127.0.0.1:<port>/callback`): resolves `code` with the
 * authorization code of the first request that carries one with the expected `state`, and rejects it when the
 * authorization server answers with an error. Anything else gets 404.
 */
export class RedirectListener {
  private server: Server | undefined;
  private resolveCode!: (code: string) => void;
  private rejectCode!: (error: Error) => void;
  readonly code: Promise<string>;
  expectedState: string | undefined;

  constructor(readonly port: number) {
    this.code = new Promise<string>((resolve, reject) => {
      this.resolveCode = resolve;
      this.rejectCode = reject;
    });
    this.code.catch(() => {});
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/callback`;
  }

  /** Listens on the port; rejects when it is taken. */
  listen(): Promise<void> {
    if (this.server) return Promise.resolve();
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", this.url);
      if (url.pathname !== "/callback") {
        res.writeHead(404).end();
        return;
      }
      const error = url.searchParams.get("error");
      const code = url.searchParams.get("code");
      const state = url.searchParams.get("state");
      if (this.expectedState !== undefined && state !== this.expectedState) {
        res
          .writeHead(400, { "content-type": "text/html" })
          .end(page("Login failed", "The answer did not match mitsu's request (state)."));
        return;
      }
      if (error) {
        res
          .writeHead(400, { "content-type": "text/html" })
          .end(
            page(
              "Login failed",
              `The server said: ${escapeHtml(error)} ${escapeHtml(url.searchParams.get("error_description") ?? "")}`,
            ),
          );
        this.rejectCode(new Error(`the authorization server refused: ${error}`));
        return;
      }
      if (!code) {
        res
          .writeHead(400, { "content-type": "text/html" })
          .end(page("Login failed", "No authorization code came back."));
        return;
      }
      res
        .writeHead(200, { "content-type": "text/html" })
        .end(page("Logged in", "mitsu has the login. You can close this window."));
      this.resolveCode(code);
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => resolve());
    });
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** A loopback port free right now (for a redirect URI registered before the listener starts). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function escapeHtml(text: string): string {
  return text.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
