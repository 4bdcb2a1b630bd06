import type { PrintIo } from "../cli-io.js";

/** Interactive mode reads the terminal: stdin is required (and is a TTY when `main` chooses this mode). */
export type InteractiveIo = PrintIo & { stdin: NonNullable<PrintIo["stdin"]> };
