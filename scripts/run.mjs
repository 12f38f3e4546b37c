#!/usr/bin/env node
// `npm start` and `npm test` on a fresh clone with only Node.js and npm: install the workspace with
// the pinned pnpm (fetched through npx when it is not installed), then run the real command.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const PNPM_VERSION = "10.34.9";

function pnpmCommand() {
  const probe = spawnSync("pnpm", ["--version"], { encoding: "utf8", shell: false });
  if (probe.status === 0 && probe.stdout.trim() === PNPM_VERSION) return ["pnpm"];
  return ["npx", "--yes", `pnpm@${PNPM_VERSION}`];
}

function runOrExit(command, args, stdio = "inherit") {
  const result = spawnSync(command, args, { stdio, cwd: root });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function ensureInstalled(pnpm) {
  const marker = join(root, "node_modules", ".modules.yaml");
  const lock = join(root, "pnpm-lock.yaml");
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  console.log(`Installing dependencies with pnpm ${PNPM_VERSION} ...`);
  runOrExit(pnpm[0], [...pnpm.slice(1), "install", "--frozen-lockfile"]);
}

const [task, ...rest] = process.argv.slice(2);
const pnpm = pnpmCommand();
ensureInstalled(pnpm);

if (task === "start") {
  // The server compiled (apps/server/dist, esbuild, source maps) and the reference pages
  // (apps/web/dist); turbo caches both builds, so a restart without changes only checks hashes.
  console.log("Building the server and the web pages (cached after the first start) ...");
  runOrExit(pnpm[0], [
    ...pnpm.slice(1),
    "exec",
    "turbo",
    "run",
    "build",
    "--filter=@clinic/server",
    "--filter=@clinic/web",
    "--output-logs=errors-only",
  ]);
  // Node directly (no wrapper), so that SIGTERM reaches the server and its graceful shutdown.
  const child = spawn(process.execPath, ["--enable-source-maps", "apps/server/dist/main.js", ...rest], {
    stdio: "inherit",
    cwd: root,
  });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else if (task === "test") {
  // The formatter first (seconds): a file Prettier would change fails the test command, as lint does.
  console.log("Checking the formatting (prettier --check; `npm run format` fixes it) ...");
  runOrExit(pnpm[0], [...pnpm.slice(1), "exec", "prettier", "--check", "--log-level", "warn", "."]);
  runOrExit(pnpm[0], [
    ...pnpm.slice(1),
    "exec",
    "turbo",
    "run",
    "build",
    "lint",
    "typecheck",
    "test",
    // Three tasks at a time on two cores: the suites wait much of their time (browsers, servers, jobs), and
    // with two the pages' browser suite started last and ran alone for three minutes (docs/testing.md#ci).
    // A --concurrency of the caller's wins (.ci/run's Citus target runs its suites one at a time).
    ...(rest.some((arg) => arg.startsWith("--concurrency")) ? [] : ["--concurrency=3"]),
    ...rest,
  ]);
} else if (task === "pnpm") {
  runOrExit(pnpm[0], [...pnpm.slice(1), ...rest]);
} else if (task === "turbo") {
  runOrExit(pnpm[0], [...pnpm.slice(1), "exec", "turbo", "run", ...rest]);
} else if (task === "agent") {
  // turbo finds pnpm only when it is on PATH, so it runs through the pinned pnpm here too. The build
  // log goes to stderr: stdout is the agent's conversation.
  runOrExit(
    pnpm[0],
    [...pnpm.slice(1), "exec", "turbo", "run", "build", "--filter=@clinic/client", "--output-logs=errors-only"],
    ["ignore", 2, 2],
  );
  const tsx = join(root, "node_modules", ".bin", process.platform === "win32" ? "tsx.cmd" : "tsx");
  const result = spawnSync(tsx, ["apps/agent/src/cli.ts", ...rest], { stdio: "inherit", cwd: root });
  process.exit(result.status ?? 1);
} else {
  console.error("usage: node scripts/run.mjs start|test|agent|turbo <tasks>|pnpm <args>");
  process.exit(2);
}
