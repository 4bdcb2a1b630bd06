import type { Skill, SkillSource } from "./skill.js";

const HEADER =
  "Available skills (call the Skill tool with the name when the user's request matches a description):";
/** Descriptions are cut no shorter than this before whole entries are dropped. */
const MIN_DESCRIPTION = 48;
const SOURCE_ORDER: Record<SkillSource, number> = { project: 0, user: 1, builtin: 2, plugin: 3 };

/** Tokens as the budget counts them: characters / 4, rounded up (a rough, stable, provider-free measure). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * The skills list the model sees: names and descriptions of the skills it may call (not those marked
 * `disable-model-invocation`), within `budgetTokens`. Project skills come first, then the user's, then shipped
 * ones, each by name, so the text is the same from turn to turn. Over budget, descriptions are shortened first
 * (all to one length, never under 48 characters); then entries are dropped from the end and a note says how
 * many. Returns "" when no skill is callable. The text carries no `<system-reminder>` tags: the engine adds them.
 */
export function renderSkillsList(skills: readonly Skill[], budgetTokens = 1500): string {
  const entries = skills
    .filter((skill) => !skill.disableModelInvocation)
    .map((skill) => ({ skill, description: skill.description.replace(/\s+/g, " ").trim() }))
    .sort(
      (a, b) =>
        SOURCE_ORDER[a.skill.source] - SOURCE_ORDER[b.skill.source] ||
        (a.skill.name < b.skill.name ? -1 : a.skill.name > b.skill.name ? 1 : 0),
    );
  if (entries.length === 0) return "";
  const fits = (text: string) => estimateTokens(text) <= budgetTokens;
  const render = (count: number, cap: number) => {
    const lines = [HEADER];
    for (const { skill, description } of entries.slice(0, count)) {
      const text = description.length > cap ? `${description.slice(0, cap - 1).trimEnd()}…` : description;
      lines.push(`- ${skill.name}: ${text}`);
    }
    const hidden = entries.length - count;
    if (hidden > 0) {
      lines.push(
        `(+${hidden} more skills not listed for space; calling Skill with an unknown name lists them all)`,
      );
    }
    return lines.join("\n");
  };

  const longest = Math.max(...entries.map((e) => e.description.length));
  const full = render(entries.length, longest);
  if (fits(full)) return full;

  // The longest cap that fits: binary search, since the length grows with the cap.
  let low = MIN_DESCRIPTION;
  let high = longest;
  if (fits(render(entries.length, low))) {
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (fits(render(entries.length, mid))) low = mid;
      else high = mid - 1;
    }
    return render(entries.length, low);
  }
  for (let count = entries.length - 1; count >= 0; count--) {
    const text = render(count, MIN_DESCRIPTION);
    if (fits(text)) return text;
  }
  return "";
}

/** The shape of a reminder source in the context module's reminder engine. */
export interface SkillsReminderSource {
  name: "skills";
  /** The list (see `renderSkillsList`), or undefined when no skill is callable. */
  collect(state?: unknown): string | undefined;
}

/** A reminder source listing the callable skills; `catalog` is read each time, so a reload shows at once. */
export function createSkillsReminder(
  catalog: () => readonly Skill[],
  options: { budgetTokens?: number } = {},
): SkillsReminderSource {
  return {
    name: "skills",
    collect() {
      const text = renderSkillsList(catalog(), options.budgetTokens);
      return text === "" ? undefined : text;
    },
  };
}
