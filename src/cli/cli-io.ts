/** The command's streams, environment and place: what every front-end (print, the terminal, SDK, ACP) runs with. */
export interface PrintIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /** Read for the prompt when it is not a terminal (absent: nothing is read); a terminal starts interactive mode. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
  home: string;
  signal?: AbortSignal;
}
