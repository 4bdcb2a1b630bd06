/**
 * `npm run build`, after tsc: bundles the `mitsu` command into dist/cli/bin.js and its lazy chunks
 * (dist/cli/bin-*.js). Node loads one file per module, and the first request used to load ~270 of mitsu's own:
 * bundled, start-up spends its time running code instead of resolving, reading and linking files.
 *
 * - The library (`import "mitsu"`, dist/index.js and the rest) stays tsc's one file per module.
 * - Code splitting keeps the `import()`s lazy: a command, the MCP SDK, undici load only when used.
 * - The chunks sit beside bin.js, two folders below the package root, as every other dist file does: code that
 *   finds the package's own files from `import.meta.url` (package.json, skills/, examples/) finds them.
 * - Dependencies stay in node_modules (installed with the package), except those named in `inlined` below.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = new URL("../", import.meta.url);
const pkg = JSON.parse(readFileSync(new URL("package.json", root), "utf8"));
/**
 * Bundled in: the small packages every command loads, and the MCP SDK (with zod, ~150 files) in the lazy chunk a
 * session with MCP servers loads (one file loads in about half the time). None has files of its own to find at
 * run time.
 */
const inlined = new Set([
  "commander",
  "eventsource-parser",
  "picocolors",
  "shell-quote",
  "@modelcontextprotocol/sdk",
]);
/** Every other package stays where npm installs it (any dependency field: a peer or optional one is no exception). */
const declared = ["dependencies", "optionalDependencies", "peerDependencies", "devDependencies"].flatMap(
  (field) => Object.keys(pkg[field] ?? {}),
);
const external = [...new Set(declared)]
  .filter((name) => !inlined.has(name))
  .flatMap((name) => [name, `${name}/*`]);

await build({
  absWorkingDir: fileURLToPath(root),
  // From the sources (esbuild strips the types as tsc would: isolatedModules), so a second run bundles the same.
  entryPoints: { bin: "src/cli/bin.ts" },
  outdir: "dist/cli",
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  chunkNames: "bin-[name]-[hash]",
  external,
  // A bundled CommonJS package (commander) calls require(); an ES module has none of its own.
  banner: {
    js: 'import { createRequire as __mitsuCreateRequire } from "node:module"; const require = __mitsuCreateRequire(import.meta.url);',
  },
  legalComments: "eof",
  logLevel: "warning",
});
