import { isObject } from "./plugin-store.js";

/** How to add a suggested marketplace by hand: the argument for `mitsu plugin marketplace add`, if it has one. */
export function marketplaceAddArgument(source: unknown): string | undefined {
  if (!isObject(source)) return undefined;
  if (source.source === "github" && typeof source.repo === "string") return source.repo;
  if ((source.source === "git" || source.source === "url") && typeof source.url === "string")
    return source.url;
  if (source.source === "directory" && typeof source.path === "string") return source.path;
  return undefined;
}
