import { DurableError, restateErrorMessage, unreachable } from "./durable-error.js";

/** A registered deployment: its id and the services the server found there. */
export interface Registration {
  id: string;
  services: string[];
  /** False when the URL was registered already (the server kept that registration as it was). */
  created: boolean;
}

/**
 * Registers a worker URL with the Restate server's admin API (as `restate deployments register` does), in
 * HTTP/1.1 request-response mode. Registering the same URL again with the same services is accepted by the
 * server and changes nothing; `force` replaces a registration whose services changed.
 */
export async function registerWorker(
  adminUrl: string,
  workerUrl: string,
  options: {
    force?: boolean;
    fetch?: typeof fetch;
    /**
     * The services the worker serves. The server answers a URL registered before with the registration it has,
     * without asking the worker again; when that lacks one of these, the worker changed and registering fails.
     */
    services?: string[];
    /** The worker serves HTTP/2 (`serveWorker`'s `protocol: "http2"`); default HTTP/1.1. */
    http2?: boolean;
  } = {},
): Promise<Registration> {
  const doFetch = options.fetch ?? fetch;
  let response: Response;
  try {
    response = await doFetch(new URL("/deployments", adminUrl), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        uri: workerUrl,
        use_http_11: options.http2 !== true,
        force: options.force ?? false,
      }),
    });
  } catch (error) {
    throw unreachable("Restate admin API", adminUrl, error);
  }
  const text = await response.text();
  if (!response.ok)
    throw new DurableError(
      `Registering the worker ${workerUrl} failed (${response.status}): ${restateErrorMessage(text)}`,
      response.status,
    );
  const body = JSON.parse(text) as { id: string; services?: Array<{ name: string }> };
  const services = (body.services ?? []).map((service) => service.name);
  const missing = (options.services ?? []).filter((name) => !services.includes(name));
  if (missing.length > 0)
    throw new DurableError(
      `The worker URL ${workerUrl} is registered already (${body.id}) with ${services.join(", ") || "no services"}, not ${missing.join(", ")}: the server kept the old registration. Register again with force (after the old invocations finished) or serve the new worker at a new URL.`,
      409,
    );
  return { id: body.id, services, created: response.status === 201 };
}

/** The shell command (curl) that registers `workerUrl` with the Restate admin API. */
export function registrationCommand(
  workerUrl: string,
  adminUrl = "http://localhost:9070",
  http2 = false,
): string {
  return `curl -sS ${adminUrl}/deployments -H 'content-type: application/json' -d '{"uri":"${workerUrl}","use_http_11":${!http2}}'`;
}
