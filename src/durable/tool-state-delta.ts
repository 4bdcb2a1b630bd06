/**
 * What a tool call changed in the persisted tool state, for its journaled step: a slot saved as a list of keyed
 * entries (`[key, ...]`, as the files Read and the active skills are) records its added and changed entries only;
 * any other change (a slot new, another shape, an entry removed) records the slot whole. Loading the changes into
 * the state before the call (each slot's `load` merges) gives the state after it, so a step's record stays as
 * small as its change however many files the session has Read.
 */
export function toolStateDelta(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): Record<string, unknown> {
  const delta: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(after)) {
    const old = before[name];
    if (JSON.stringify(old) === JSON.stringify(value)) continue;
    const changes = keyedChanges(old, value);
    delta[name] = changes ?? value;
  }
  return delta;
}

type Entry = [string, ...unknown[]];

function keyedEntries(value: unknown): Map<string, string> | undefined {
  if (!Array.isArray(value)) return undefined;
  const entries = new Map<string, string>();
  for (const entry of value) {
    if (!Array.isArray(entry) || typeof entry[0] !== "string" || entries.has(entry[0])) return undefined;
    entries.set(entry[0], JSON.stringify(entry));
  }
  return entries;
}

/** The added and changed entries of a keyed list, or undefined when the change is not only that. */
function keyedChanges(before: unknown, after: unknown): Entry[] | undefined {
  const old = keyedEntries(before);
  const now = keyedEntries(after);
  if (!old || !now) return undefined;
  for (const key of old.keys()) if (!now.has(key)) return undefined;
  return (after as Entry[]).filter((entry) => old.get(entry[0]) !== now.get(entry[0]));
}
