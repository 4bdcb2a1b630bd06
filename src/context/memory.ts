import { join } from "node:path";
import { type ProjectDirOptions, projectDir } from "./project-dir.js";

/** `<home>/.mitsu/projects/<slug>/memory` — the folder is not created here; the model creates it on first Write. */
export function memoryDir(options: ProjectDirOptions): string {
  return join(projectDir(options), "memory");
}

/**
 * The system prompt's memory section. It points to the folder rather than including MEMORY.md:
 * memory changes during a session, the system prompt must not (the prompt cache starts there), and the
 * model reads it when it decides it needs it.
 */
export function renderMemorySection(dir: string): string {
  return [
    "# Persistent memory",
    `You have a persistent memory folder at ${dir}. It survives between sessions in this project; nothing else in this conversation does.`,
    `- At the start of a task that may build on earlier work, Read ${join(dir, "MEMORY.md")} if it exists: it is the index of what you saved.`,
    "- Save what a future session would need and could not easily rediscover: the user's stated preferences, decisions and their reasons, hard-won facts about this project. Use Write and Edit; keep MEMORY.md short, with one line per topic file.",
    "- Do not save secrets, or anything the code or git history already records.",
  ].join("\n");
}
