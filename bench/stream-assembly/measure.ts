/**
 * One measurement in a process of its own, so that no client pays for another's garbage or JIT state:
 * `node measure.js <client> <size> <url> <repeats> <budgetMs>` warms up, measures `repeats` runs, and prints the
 * median client CPU time in ms (`Infinity` when the client went over the budget).
 */
import { CLIENTS } from "./client-table.js";

const [name, sizeArg, url, repeatsArg, budgetArg] = process.argv.slice(2);
const client = CLIENTS.find((c) => c.key === name);
if (!client || !url)
  throw new Error(`usage: measure <client> <size> <url> <repeats> <budgetMs>; got ${name}`);
const size = Number(sizeArg);
const repeats = Number(repeatsArg);
const budgetMs = Number(budgetArg);

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

async function once(): Promise<number> {
  const start = cpuMs();
  const length = await client!.run({ url: url!, size, overBudget: () => cpuMs() - start > budgetMs });
  const spent = cpuMs() - start;
  if (length === -1) return Number.POSITIVE_INFINITY;
  if (length !== size) throw new Error(`${name} assembled ${length} characters, expected ${size}`);
  return spent;
}

const times: number[] = [];
// Two warm-up runs (JIT, connection), unless one run already costs a large share of the budget.
for (let i = 0; i < 2; i++) {
  const t = await once();
  if (t > budgetMs / 4) {
    times.push(t);
    break;
  }
}
if (times.length === 0) for (let i = 0; i < repeats; i++) times.push(await once());
times.sort((a, b) => a - b);
process.stdout.write(`${times[Math.floor(times.length / 2)]}\n`);
// A client stopped over budget may leave its request open: the measurement is written, the process is done.
process.exit(0);
