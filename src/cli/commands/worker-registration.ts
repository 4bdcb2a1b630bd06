import type { PrintIo } from "../cli-io.js";
import { stripControls } from "../render/terminal-text.js";
import type { WorkerCommandOptions } from "./worker-command-options.js";

/**
 * After a worker listens at `url`: registers it with `--register` (over the protocol it serves), or prints the
 * command that does. The same for one process and for `--processes`. False when the registration failed (said
 * on stderr).
 */
export async function registerOrShow(
  options: Pick<WorkerCommandOptions, "register" | "protocol">,
  url: string,
  io: Pick<PrintIo, "stdout" | "stderr">,
): Promise<boolean> {
  const durable = await import("../../durable/index.js");
  const http2 = options.protocol === "http2";
  if (!options.register) {
    io.stdout.write(
      `Register it once with the Restate server (every worker behind this URL serves it):\n  ${durable.registrationCommand(url, undefined, http2)}\n  (or start the worker with --register http://localhost:9070)\n`,
    );
    return true;
  }
  try {
    const registration = await durable.registerWorker(options.register, url, {
      services: [durable.DEFAULT_SESSION_OBJECT],
      http2,
    });
    io.stdout.write(
      `${registration.created ? "Registered" : "Already registered"} with ${options.register} as ${registration.id}.\n`,
    );
    return true;
  } catch (error) {
    io.stderr.write(`mitsu worker: ${stripControls((error as Error).message)}\n`);
    return false;
  }
}
