/**
 * A typed slot in `ToolState`: its name (for debugging and for `inspect`) and how to make its first value.
 * Declare one `const` per slot in the module that owns it (`READ_TRACKER`, `ACTIVE_SKILLS`), so the import graph
 * shows who reads and writes it — a string key would hide the dependency.
 */
export interface ToolStateKey<T> {
  readonly name: string;
  readonly create: () => T;
}

/** Declares a slot of tool state. Keys compare by identity: two keys with the same name are two slots. */
export function toolStateKey<T>(name: string, create: () => T): ToolStateKey<T> {
  return Object.freeze({ name, create });
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
}
