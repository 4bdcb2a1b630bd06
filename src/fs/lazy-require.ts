import { createRequire } from "node:module";

const requireHere = createRequire(import.meta.url);

/**
 * Loads a CommonJS package the first time it is needed rather than at import: yaml, diff and ajv each cost
 * tens of milliseconds to load, and most commands (`--version`, `--help`, a first request) use none of them.
 */
export function lazyRequire<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= requireHere(name) as T;
    return loaded;
  };
}
