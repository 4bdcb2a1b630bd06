/**
 * How deep tool input may nest (objects and arrays inside one another). Real tool inputs stay far below it; far
 * deeper input (10 KB of `[[[[…`) is rejected as the call's error, since the recursive code everywhere past the
 * decoder — `JSON.stringify` of the next request, schema validation, rendering, the session log — would
 * overflow the stack on it.
 */
export const MAX_INPUT_DEPTH = 100;

/** Whether `value` nests objects and arrays more than `max` levels deep. Iterative: safe on any depth. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (typeof item.value !== "object" || item.value === null) continue;
    const depth = item.depth + 1;
    if (depth > max) return true;
    for (const child of Object.values(item.value)) {
      if (typeof child === "object" && child !== null) stack.push({ value: child, depth });
    }
  }
  return false;
}
