// Lists the functions in src/ longer than a limit (default 200 lines), by the TypeScript compiler's own parse.
// `node scripts/long-functions.mjs [limit]` prints `file:line name lines` for each and exits 1 when one is not
// allowed (the JSON scanner's `scan` is inlined for a measured reason).
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const root = join(import.meta.dirname, "..");
const limit = Number(process.argv[2] ?? 200);
export const ALLOWED = new Set(["src/stream/json-scanner.ts:scan"]);

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (/\.tsx?$/.test(entry.name) && !/\.(test|d)\.ts$/.test(entry.name)) yield path;
  }
}

function nameOf(node) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  if (node.name && ts.isStringLiteral(node.name)) return node.name.text;
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return "(anonymous)";
}

const long = [];
for (const path of files(join(root, "src"))) {
  const text = readFileSync(path, "utf8");
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > limit)
        long.push({ file: relative(root, path), line: start + 1, name: nameOf(node), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
long.sort((a, b) => b.lines - a.lines);
let failed = false;
for (const f of long) {
  const allowed = ALLOWED.has(`${f.file}:${f.name}`);
  if (!allowed) failed = true;
  console.log(`${f.file}:${f.line} ${f.name} ${f.lines}${allowed ? " (allowed)" : ""}`);
}
process.exit(failed ? 1 : 0);
