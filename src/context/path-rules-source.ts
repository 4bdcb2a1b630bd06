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
  // Each file is matched against a rule once (a repository's globs cost little, but not nothing): the files a
  // pending rule has already been found not to match.
  const missed = new Map<string, Set<string>>();
  return {
    name: "path-rules",
    reset() {
      sent.clear();
      missed.clear();
    },
    async collect() {
      // A rule's key holds its text (sent again when that changes): built once a rule here.
      const pending = rules()
        .map((rule) => ({ rule, key: `${rule.path}\0${rule.content}` }))
        .filter(({ key }) => !sent.has(key));
      if (pending.length === 0) return undefined;
      const files = await tracked();
      const due: string[] = [];
      for (const { rule, key } of pending) {
        const seen = missed.get(key) ?? new Set<string>();
        missed.set(key, seen);
        const hit = files.find((file) => {
          if (seen.has(file.path)) return false;
          if (rule.matches(file.path)) return true;
          seen.add(file.path);
          return false;
        });
        if (!hit) continue;
        sent.add(key);
        missed.delete(key);
        due.push(
          `Contents of ${rule.path} (project rules for files matching ${rule.globs.join(", ")}; they apply to ${hit.path}, which you opened):\n\n${rule.content.trimEnd()}`,
        );
      }
      return due.length > 0 ? due.join("\n\n") : undefined;
    },
  };
}
