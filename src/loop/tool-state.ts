/**
 * A typed slot in `ToolState`: its name (for debugging and for `inspect`) and how to make its first value.
 * Declare one `const` per slot in the module that owns it (`READ_TRACKER`, `ACTIVE_SKILLS`), so the import graph
 * shows who reads and writes it — a string key would hide the dependency.
 */
export interface ToolStateKey<T> {
  readonly name: string;
  readonly create: () => T;
  /**
   * How the slot's value goes to JSON and back, for a run that moves between processes (a durable session
   * resumed on another worker, its next prompt). Absent: the slot lives only in this process.
   */
  readonly persist?: ToolStatePersistence<T>;
}

/**
 * A slot's value to and from JSON. `load` gets what `save` returned (possibly from another version: check it) and
 * the slot's value in this process, if any, to merge into (tools of the run may be using that value).
 */
export interface ToolStatePersistence<T> {
  save(value: T): unknown;
  load(data: unknown, current: T | undefined): T;
}

/** Declares a slot of tool state. Keys compare by identity: two keys with the same name are two slots. */
export function toolStateKey<T>(
  name: string,
  create: () => T,
  persist?: ToolStatePersistence<T>,
): ToolStateKey<T> {
  return Object.freeze(persist ? { name, create, persist } : { name, create });
}

/**
 * State shared by the tool calls of one conversation (the files Read so far, the skills whose `allowed-tools`
 * are active), and read by the permission checker and the context's reminders. Each value lives in a slot
 * named by a typed key and is created on first `get`. `clear()` starts over (a new conversation, `/clear`).
 * Not shared with sub-agents: a child run gets a state of its own.
 */
export class ToolState {
  readonly #values = new Map<ToolStateKey<unknown>, unknown>();

  /** The slot's value, created by the key's `create` on first use. */
  get<T>(key: ToolStateKey<T>): T {
    if (this.#values.has(key)) return this.#values.get(key) as T;
    const value = key.create();
    this.#values.set(key, value);
    return value;
  }

  /** The slot's value if it was ever created, without creating it. */
  peek<T>(key: ToolStateKey<T>): T | undefined {
    return this.#values.get(key) as T | undefined;
  }

  set<T>(key: ToolStateKey<T>, value: T): void {
    this.#values.set(key, value);
  }

  /** The names of the slots in use, for diagnostics. */
  names(): string[] {
    return [...this.#values.keys()].map((key) => key.name);
  }

  clear(): void {
    this.#values.clear();
  }

  /** The values of the slots in use that can be persisted (`ToolStateKey.persist`), as JSON by slot name. */
  snapshot(): Record<string, unknown> {
    const saved: Record<string, unknown> = {};
    for (const [key, value] of this.#values) {
      if (key.persist) saved[key.name] = key.persist.save(value);
    }
    return saved;
  }

  /** Loads each of `keys` that `snapshot` saved (by name) into its slot (merged, see `load`); others are left alone. */
  restore(snapshot: Record<string, unknown>, keys: readonly ToolStateKey<never>[]): void {
    for (const key of keys as readonly ToolStateKey<unknown>[]) {
      if (!key.persist || !Object.hasOwn(snapshot, key.name)) continue;
      this.#values.set(key, key.persist.load(snapshot[key.name], this.#values.get(key)));
    }
  }
}
