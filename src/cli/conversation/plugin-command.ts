import { createInterface } from "node:readline/promises";
import { GitCloneError } from "../../plugins/git-clone.js";
import { MarketplaceError } from "../../plugins/marketplace.js";
import {
  addMarketplace,
  installPlugin,
  listMarketplaces,
  listPlugins,
  type PluginActionOptions,
  PluginError,
  removeMarketplace,
  setPluginEnabled,
  uninstallPlugin,
  updateMarketplaces,
} from "../../plugins/plugin-actions.js";
import type { PrintIo } from "../cli-io.js";
import { stripControls } from "../render/terminal-text.js";

const HELP = `mitsu plugin — plugins and marketplaces in Claude Code's format

  mitsu plugin marketplace add <folder | git URL | owner/repo>
  mitsu plugin marketplace list
  mitsu plugin marketplace update [name]     fetch again; installed plugins are updated
  mitsu plugin marketplace remove <name>     and uninstall its plugins
  mitsu plugin install <plugin>[@<marketplace>]
  mitsu plugin uninstall <plugin>[@<marketplace>]
  mitsu plugin enable|disable <plugin>[@<marketplace>]
  mitsu plugin list

Installed copies live in ~/.mitsu/plugins. Installing or enabling a plugin approves its hooks and MCP servers as they
are then; an update that changes them asks again. \`mitsu --plugin-dir <folder>\` loads a plugin for one run.
`;

/** `mitsu plugin …`: the words after `plugin`. Exit code 0, or 1 with one line on stderr saying why. */
export async function pluginCommand(words: string[], io: PrintIo): Promise<number> {
  const options: PluginActionOptions = {
    home: io.home,
    cwd: io.cwd,
    say: (line) => io.stdout.write(`${stripControls(line)}\n`),
  };
  if (io.stdin?.isTTY === true) {
    const stdin = io.stdin;
    options.ask = async (question) => {
      const rl = createInterface({ input: stdin, output: io.stderr });
      try {
        return /^y(es)?$/i.test((await rl.question(`${stripControls(question)} [y/N] `)).trim());
      } finally {
        rl.close();
      }
    };
  }
  const failed = await runPluginWords(words, options, (text) => io.stdout.write(text));
  if (failed === undefined) return 0;
  io.stderr.write(`mitsu: ${stripControls(failed)}\n`);
  return 1;
}

/**
 * The words of `mitsu plugin …` (and of `/plugin …` in a session) run against `options`: undefined when done, else
 * why it could not be done.
 */
export async function runPluginWords(
  words: readonly string[],
  options: PluginActionOptions,
  writeHelp: (text: string) => void,
): Promise<string | undefined> {
  const [first, second, third] = words;
  const need = (value: string | undefined, what: string): string => {
    if (value === undefined) throw new PluginError(`Missing ${what}: mitsu plugin help`);
    return value;
  };
  try {
    if (first === "marketplace" || first === "marketplaces") {
      if (second === "add")
        await addMarketplace(need(third, "the marketplace's folder, git URL or owner/repo"), options);
      else if (second === "list" || second === undefined) await listMarketplaces(options);
      else if (second === "remove" || second === "rm")
        await removeMarketplace(need(third, "the marketplace's name"), options);
      else if (second === "update") await updateMarketplaces(third, options);
      else throw new PluginError(`Unknown command: mitsu plugin marketplace ${second}`);
    } else if (first === "install" || first === "i") await installPlugin(need(second, "the plugin"), options);
    else if (first === "uninstall" || first === "remove")
      await uninstallPlugin(need(second, "the plugin"), options);
    else if (first === "enable" || first === "disable") {
      await setPluginEnabled(need(second, "the plugin"), first === "enable", options);
    } else if (first === "list" || first === undefined) await listPlugins(options);
    else if (first === "help" || first === "--help" || first === "-h") writeHelp(HELP);
    else throw new PluginError(`Unknown command: mitsu plugin ${first} (mitsu plugin help)`);
    return undefined;
  } catch (error) {
    if (error instanceof PluginError || error instanceof MarketplaceError || error instanceof GitCloneError) {
      return error.message;
    }
    throw error;
  }
}
