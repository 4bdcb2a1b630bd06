import type { TrackedFile } from "./changed-files-source.js";
import type { ConditionalRule } from "./read-rules.js";
import type { ReminderSource } from "./reminder-engine.js";

/**
 * Claude Code's path-specific rules (`.claude/rules/*.md` with `paths:` globs): a rule is sent, as a
 * `<system-reminder>` on the next request, once a file it matches has been read (or written) — never in `system`,
 * which stays byte-stable. Each rule is sent once; again after `/clear` or a compaction (`reset`), or when its text
 * changed on disk.
 */
export function pathRulesSource(
  rules: () => readonly ConditionalRule[],
  tracked: () => readonly TrackedFile[] | Promise<readonly TrackedFile[]>,
): ReminderSource {
  const sent = new Set<string>();
  return {
    name: "path-rules",
    reset() {
      sent.clear();
    },
    async collect() {
      const pending = rules().filter((rule) => !sent.has(`${rule.path}\0${rule.content}`));
      if (pending.length === 0) return undefined;
      const files = await tracked();
      const due: string[] = [];
      for (const rule of pending) {
        const hit = files.find((file) => rule.matches(file.path));
        if (!hit) continue;
        sent.add(`${rule.path}\0${rule.content}`);
        due.push(
          `Contents of ${rule.path} (project rules for files matching ${rule.globs.join(", ")}; they apply to ${hit.path}, which you opened):\n\n${rule.content.trimEnd()}`,
        );
      }
      return due.length > 0 ? due.join("\n\n") : undefined;
    },
  };
}
