import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { loadOutputStyles } from "../../context/output-style.js";
import { writeConfigFile } from "../../fs/write-config-file.js";
import { parseJsonc } from "../../permissions/parse-jsonc.js";
import { loadPlugins } from "../../plugins/load-plugins.js";
import type { Style } from "../render/style.js";
import { stripControls } from "../render/terminal-text.js";

/**
 * `/output-style`: the output styles found and the one in use; `/output-style <name>` (or `default`) sets
 * `outputStyle` in `.mitsu/settings.local.json`. The style is part of the system prompt, fixed when a session
 * starts (so the prompt cache holds): a change applies from the next session.
 */
export async function slashOutputStyle(
  args: string,
  where: { cwd: string; home: string },
  write: (text: string) => void,
  style: Style,
): Promise<void> {
  const { contributions } = await loadPlugins(where);
  const found = await loadOutputStyles({ ...where, plugins: contributions.outputStyles });
  const wanted = args.trim();
  if (wanted === "") {
    const current = found.active?.name ?? "default";
    const lines = [`Output style: ${current}${found.chosen ? ` (outputStyle in ${found.chosen.file})` : ""}`];
    lines.push(`  default${current === "default" ? "  (in use)" : ""}`);
    for (const s of found.styles) {
      lines.push(
        `  ${s.name}${s.name === current ? "  (in use)" : ""}${s.description ? `  ${s.description}` : ""}`,
      );
    }
    lines.push(style.dim("Choose one with /output-style <name>; it applies from the next session."));
    for (const warning of found.warnings) lines.push(style.yellow(`⚠ ${warning}`));
    write(`${stripControls(lines.join("\n"))}\n`);
    return;
  }
  const match =
    wanted.toLowerCase() === "default"
      ? "default"
      : found.styles.find((s) => s.name.toLowerCase() === wanted.toLowerCase())?.name;
  if (match === undefined) {
    write(
      style.red(
        `✖ No output style named ${stripControls(JSON.stringify(wanted))} (/output-style lists them)\n`,
      ),
    );
    return;
  }
  const file = join(where.cwd, ".mitsu", "settings.local.json");
  const text = await readFile(file, "utf8").catch(() => undefined);
  let settings: Record<string, unknown> = {};
  if (text !== undefined) {
    try {
      const value = parseJsonc(text);
      if (typeof value === "object" && value !== null && !Array.isArray(value))
        settings = value as Record<string, unknown>;
      else throw new Error("not an object");
    } catch {
      write(style.red(`✖ ${file} is not a JSON object; outputStyle was not saved\n`));
      return;
    }
  }
  settings.outputStyle = match;
  await writeConfigFile(file, `${JSON.stringify(settings, null, 2)}\n`);
  write(style.dim(`outputStyle ${match} saved in ${file}; it applies from the next session\n`));
}
