import type { HookCallbacks } from "../hooks/index.js";
import type { Tool } from "../loop/tool.js";
import { type Capability, type CapabilityStart, commandsOf, toolsOf } from "./capability.js";

/**
 * The capabilities of one agent, in their fixed order, and what the harness does with all of them at once:
 * start them concurrently, read their tools, merge their hooks and rules, close them.
 */
export class CapabilityList {
  private closed = false;
  constructor(readonly list: readonly Capability[]) {}

  /**
   * Runs every `start` concurrently. When one throws, the others are still awaited, every capability is closed,
   * and the first error is thrown.
   */
  async start(start: CapabilityStart): Promise<void> {
    const results = await Promise.allSettled(this.list.map(async (c) => c.start?.(start)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) {
      await this.close(start.warn);
      throw failed.reason;
    }
  }

  /** Every capability's tools, in order. */
  tools(): Tool<never>[] {
    return this.list.flatMap((c) => [...toolsOf(c)]);
  }

  /** The reasons the capabilities' tools changed since they were last read (between prompts); undefined if none did. */
  toolsChanged(): string | undefined {
    const reasons = this.list.flatMap((c) => {
      const reason = c.toolsChanged?.();
      return reason === undefined ? [] : [reason];
    });
    return reasons.length > 0 ? reasons.join("; ") : undefined;
  }

  reminders() {
    return this.list.flatMap((c) => [...(c.reminders ?? [])]);
  }

  commands() {
    return this.list.flatMap((c) => [...commandsOf(c)]);
  }

  /** The capabilities' hook callbacks after `first` (the embedder's `hooks` option), event by event. */
  hooks(first: HookCallbacks = {}): HookCallbacks {
    const merged: Record<string, unknown[]> = {};
    for (const callbacks of [first, ...this.list.map((c) => c.hooks ?? {})]) {
      for (const [event, list] of Object.entries(callbacks)) {
        merged[event] = [...(merged[event] ?? []), ...(list ?? [])];
      }
    }
    return merged as HookCallbacks;
  }

  /** The capabilities' allow and deny rules. */
  rules(): { allow: string[]; deny: string[] } {
    return {
      allow: this.list.flatMap((c) => [...(c.permissions?.allow ?? [])]),
      deny: this.list.flatMap((c) => [...(c.permissions?.deny ?? [])]),
    };
  }

  /** Every capability's per-prompt work, concurrently; the context texts they return, in order. */
  async beforePrompt(text: Parameters<NonNullable<Capability["beforePrompt"]>>[0]): Promise<string[]> {
    const answers = await Promise.all(this.list.map(async (c) => (await c.beforePrompt?.(text)) ?? []));
    return answers.flat();
  }

  /** Closes every capability once, the last started first; a failure is a warning, never a throw. */
  async close(warn: (message: string) => void): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const capability of [...this.list].reverse()) {
      try {
        await capability.close?.();
      } catch (error) {
        warn(`${capability.name}: closing failed: ${(error as Error).message}`);
      }
    }
  }
}
