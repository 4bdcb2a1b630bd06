import { basename } from "node:path";

/** What the model needs to know about where it runs. Detected once per session. */
export interface EnvironmentInfo {
  platform: string;
  shell: string;
  cwd: string;
  /** The workspace folders besides `cwd` when the session started (`--add-dir`, settings); a later one is not named. */
  additionalFolders?: readonly string[];
  /** YYYY-MM-DD in local time, the user's calendar day. */
  date: string;
  model: string;
}

export interface DetectEnvironmentOptions {
  cwd: string;
  additionalFolders?: readonly string[];
  model: string;
  now?: Date;
  /** Injectable for tests; default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Injectable for tests; default `process.platform`. */
  platform?: string;
}

/** A local-time YYYY-MM-DD (not `toISOString`, which is UTC and can be a day off for the user). */
export function localDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

export function detectEnvironment(options: DetectEnvironmentOptions): EnvironmentInfo {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const shellPath = env.SHELL ?? (platform === "win32" ? env.ComSpec : undefined);
  return {
    platform,
    shell: shellPath ? basename(shellPath) : "unknown",
    cwd: options.cwd,
    ...(options.additionalFolders?.length ? { additionalFolders: [...options.additionalFolders] } : {}),
    date: localDate(options.now ?? new Date()),
    model: options.model,
  };
}

export function renderEnvironment(info: EnvironmentInfo): string {
  return [
    "# Environment",
    `Working folder: ${info.cwd}`,
    ...(info.additionalFolders?.length
      ? [`Additional working folders: ${info.additionalFolders.join(", ")}`]
      : []),
    `Platform: ${info.platform}`,
    `Shell: ${info.shell}`,
    `Date at session start: ${info.date}`,
    `Model: ${info.model}`,
  ].join("\n");
}
