/**
 * Where Read, Write and Edit get and put a text file's content: the disk by default; an editor's buffers when
 * the agent runs inside one (ACP `fs/read_text_file` and `fs/write_text_file`), so a buffer's unsaved text is
 * what the model reads and an edit lands in the buffer the user sees.
 *
 * The tools hand over only real paths they have already confined to the workspace and that the permission rules
 * allowed; everything else (images, binary files, the read-before-write check) stays on the disk. Either method
 * may be absent: that side then uses the disk. A method throws with a message for the model when it fails.
 */
export interface FileAccess {
  /** The file's text as the editor holds it (an unsaved buffer included). */
  readText?(path: string, signal: AbortSignal): Promise<string>;
  /** Replaces the file's text through the editor (into its buffer, which it saves). */
  writeText?(path: string, content: string, signal: AbortSignal): Promise<void>;
}

/**
 * Runs a Bash command somewhere other than a child process of mitsu's: an editor's terminal (ACP `terminal/*`).
 * Used for foreground commands only (background ones and sandboxed ones stay mitsu's own).
 */
export interface CommandTerminal {
  /**
   * Runs `command` (a bash line) in `cwd` and resolves when it exits or was stopped. `signal` aborts when the run
   * is interrupted or the timeout passed: the command must then be killed and the call still resolve with what it
   * printed. Throws (with a message for the model) when the command could not be started at all.
   */
  run(
    command: string,
    options: {
      cwd: string;
      signal: AbortSignal;
      /** The tool call this command belongs to (an editor shows its terminal under that call). */
      toolUseId: string;
      /** Bytes of output the terminal should keep (its end). */
      outputByteLimit: number;
    },
  ): Promise<{ output: string; truncated: boolean; exitCode: number | null; signal: string | null }>;
}
