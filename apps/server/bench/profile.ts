// Where the time goes: the functions of a V8 CPU profile (`--cpu-prof`, e.g. from
// `BENCH_CPU_PROF_DIR=dir npm run bench`) by self time, and by the files they are in.
//   tsx apps/server/bench/profile.ts <file.cpuprofile> [top]
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error("usage: profile.ts <file.cpuprofile> [top]");
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
for (const [id, us] of selfUs) {
  const frame = byId.get(id)?.callFrame;
  if (!frame) continue;
  const where = frame.url
    .replace(/^.*node_modules\/\.pnpm\/([^/]+)\/node_modules\//, "$1: ")
    .replace(/^file:\/\/.*\/work\/main\//, "");
  const name = `${frame.functionName || "(anonymous)"}  ${where}:${String(frame.lineNumber + 1)}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  const fileKey =
    where.startsWith("(") || where === ""
      ? frame.functionName || "(native)"
      : where.replace(/^([^:]+: [^/]+).*$/, "$1");
  byFile.set(fileKey, (byFile.get(fileKey) ?? 0) + us);
}
const pct = (us: number) => `${((us / total) * 100).toFixed(1).padStart(5)}%`;
console.log(`${(total / 1e6).toFixed(1)} s sampled`);
console.log("\nby function (self time):");
for (const [name, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(us)}  ${name}`);
console.log("\nby package or file (self time):");
for (const [name, us] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(us)}  ${name}`);
