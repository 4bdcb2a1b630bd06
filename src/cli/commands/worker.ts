import { Option } from "commander";
import type { PermissionMode } from "../../permissions/permission-mode.js";
import { splitToolRules } from "../cli-options.js";
import {
  type CommandContext,
  claudeMode,
  collect,
  MODEL_HELP,
  PERMISSION_MODE_CHOICES,
  positiveInt,
} from "./command-context.js";

/** `mitsu worker`: serves durable sessions to a Restate server. */
export function registerWorker(ctx: CommandContext): void {
  const { io } = ctx;
  ctx.program
    .command("worker")
    .description(
      "serve mitsu sessions to a Restate server (durable: many sessions, many workers, crash-safe); prints how to register it",
    )
    .option("--port <port>", "the port to listen on", positiveInt, 9080)
    .option(
      "--host <host>",
      "the interface to listen on (another machine's Restate server needs e.g. 0.0.0.0, with --identity-key)",
      "127.0.0.1",
    )
    .option(
      "--workspaces <dir>",
      "the folder holding one checkout per session, <dir>/<session id> (default: here)",
    )
    .option(
      "--register <admin-url>",
      "register this worker with the Restate admin API (e.g. http://localhost:9070)",
    )
    .option(
      "--ingress <url>",
      "the Restate ingress (e.g. http://localhost:8080): each turn's journal then holds that turn only (a worker keeps its sessions' transcripts)",
    )
    .option("--url <url>", "the URL the Restate server reaches this worker at (default http://<host>:<port>)")
    .option("--model <model>", MODEL_HELP)
    .addOption(new Option("--permission-mode <mode>", "the permission mode").choices(PERMISSION_MODE_CHOICES))
    .option("--allowedTools <rules...>", "rules that allow (comma- or space-separated)")
    .option("--disallowedTools <rules...>", "rules that deny (comma- or space-separated)")
    .option("--max-turns <n>", "model calls per prompt", positiveInt)
    .option(
      "--ask-timeout <seconds>",
      "how long a permission question waits before the call is denied (default 1 day)",
      positiveInt,
    )
    .option(
      "--identity-key <key>",
      "accept only requests signed by this Restate server key (repeatable)",
      collect,
    )
    .option("--processes <n>", "worker processes sharing the port (node:cluster)", positiveInt, 1)
    .addOption(
      new Option(
        "--protocol <protocol>",
        "http1: a waiting session holds nothing, processes share one URL; http2: fewer round trips per step",
      )
        .choices(["http1", "http2"])
        .default("http1"),
    )
    .option(
      "--no-live-events",
      "no wake-up per stored message for followers (mitsu remote follow sees messages within a second): less work per turn",
    )
    .option("--verbose", "log every invocation step")
    .action(async (opts) => {
      const { workerCommand } = await import("./worker-command.js");
      ctx.exitCode = await workerCommand(
        {
          port: opts.port,
          host: opts.host,
          ...(opts.workspaces ? { workspaces: opts.workspaces as string } : {}),
          ...(opts.register ? { register: opts.register as string } : {}),
          ...(opts.url ? { url: opts.url as string } : {}),
          ...(opts.ingress ? { ingress: opts.ingress as string } : {}),
          ...((opts.model ?? ctx.program.opts().model)
            ? { model: (opts.model ?? ctx.program.opts().model) as string }
            : {}),
          ...(opts.permissionMode
            ? { permissionMode: claudeMode(opts.permissionMode, io) as PermissionMode }
            : {}),
          allowedTools: splitToolRules(opts.allowedTools ?? []),
          disallowedTools: splitToolRules(opts.disallowedTools ?? []),
          ...(opts.maxTurns ? { maxTurns: opts.maxTurns as number } : {}),
          ...(opts.askTimeout ? { askTimeoutMs: (opts.askTimeout as number) * 1000 } : {}),
          identityKeys: opts.identityKey ?? [],
          verbose: opts.verbose === true,
          processes: opts.processes as number,
          protocol: opts.protocol as "http1" | "http2",
          liveEvents: opts.liveEvents !== false,
        },
        io,
      );
    });
}
