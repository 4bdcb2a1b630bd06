import { relative, sep } from "node:path";
import { isInside } from "../fs/real-path.js";

/**
 * A file rule's gitignore-style `pattern` (relative to `base`) rewritten relative to `root`, the folder a
 * search runs from, or undefined when it cannot match below `root`. Anchored results start with `/`.
 * Used to turn Read deny rules into excludes for ripgrep and the globber, so a search of a parent folder
 * does not read what a rule denies.
 */
export function globRelativeTo(base: string, pattern: string, root: string): string | undefined {
  const anchored = pattern.startsWith("/") || pattern.replace(/\/$/, "").includes("/");
  const body = pattern.replace(/^\//, "");
  if (root === base) return anchored ? `/${body}` : body;
  if (isInside(base, root)) {
    if (!anchored) return body;
    // The pattern's leading segments must lead into root: `/projects/p/secrets/**` from the home folder.
    const into = relative(base, root).split(sep);
    const segments = body.split("/");
    for (let i = 0; i < into.length; i++) {
      const segment = segments[i];
      if (segment === "**") return `/${segments.slice(i).join("/")}`;
      if (segment !== into[i] || i === segments.length - 1) return undefined;
    }
    return `/${segments.slice(into.length).join("/")}`;
  }
  if (isInside(root, base)) {
    const prefix = relative(root, base).split(sep).join("/");
    return anchored ? `/${prefix}/${body}` : `/${prefix}/**/${body}`;
  }
  return undefined;
}
