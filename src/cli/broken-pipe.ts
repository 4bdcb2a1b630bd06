/** The exit status of a process whose reader went away (128 + SIGPIPE), as `yes | head` reports it. */
export const BROKEN_PIPE_EXIT = 141;

/**
 * Ends the process quietly when the reader of `stream` goes away (`mitsu inspect … | head`): Node reports the
 * broken pipe as an EPIPE error event, and without a listener that is a crash with a stack trace. Other errors
 * are thrown as before.
 */
export function exitOnBrokenPipe(stream: NodeJS.EventEmitter, exit: (code: number) => void): void {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") exit(BROKEN_PIPE_EXIT);
    else throw error;
  });
}
