// What the HTTP benches (`npm run bench`, `npm run bench:soak`) share: the compiled server started
// in a process of its own on a free port, the load generator (load.ts) run in yet another, and the
// sink the seeded clinics' webhooks deliver to.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { type Server, createServer as createHttpServer } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { loadConfig } from "@clinic/config";
import type { LoadResult, LoadSpec } from "./load.ts";

/** The repository root: the compiled server and load.ts are run from there. */
export const root = fileURLToPath(new URL("../../../", import.meta.url));

/** The JWT secret the benches' server verifies, and their tokens are minted with. */
export const benchSecret = "bench-secret-0123456789-0123456789-abcdef";

/** The bearer token of the benches' server's /metrics. */
export const benchMetricsToken = "bench-metrics-0123456789";

/** DATABASE_URL, else the local server's `postgres` database. */
export function benchDatabaseUrl(): string {
  return loadConfig().databaseUrl ?? "postgres://postgres@127.0.0.1:5432/postgres";
}

/** A URL without its credentials, for printing. */
export const shownUrl = (url: string) => url.replace(/\/\/[^@]*@/, "//");

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => {
        resolve(typeof address === "object" && address ? address.port : 0);
      });
    });
  });
}

export interface BenchServer {
  base: string;
  /** The server's process (its primary, with WORKERS > 1). */
  pid: number;
  stop: () => Promise<void>;
}

/** The compiled server with `workers` processes on `databaseUrl`; resolves once it listens. */
export async function startServer(databaseUrl: string, workers: number, poolMax?: number): Promise<BenchServer> {
  const port = await freePort();
  // BENCH_CPU_PROF_DIR: each server process writes a V8 CPU profile there when it stops (where the time goes).
  const profile = process.env.BENCH_CPU_PROF_DIR
    ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`]
    : [];
  // BENCH_NODE_FLAGS: more flags for the server processes (e.g. "--log-deopt --logfile=dir/v8.log").
  const flags = (process.env.BENCH_NODE_FLAGS ?? "").split(" ").filter((flag) => flag !== "");
  const child: ChildProcess = spawn(
    process.execPath,
    [...profile, ...flags, "--enable-source-maps", "apps/server/dist/main.js"],
    {
      cwd: root,
      detached: true,
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: databaseUrl,
        WORKERS: String(workers),
        ...(poolMax === undefined ? {} : { DATABASE_POOL_MAX: String(poolMax) }),
        PORT: String(port),
        HOST: "127.0.0.1",
        JWT_SECRET: benchSecret,
        DEMO: "off",
        LOG_LEVEL: "warn",
        // Neither the per-IP nor the per-user booking-write limit may answer for the database here.
        RATE_LIMIT_MAX: "1000000000",
        BOOKING_RATE_LIMIT: "1000000",
        // The webhooks of the seeded clinics point at the sink on 127.0.0.1 (startSink).
        WEBHOOK_ALLOW_PRIVATE: "true",
        // The availability cache's hits and misses (cacheLookups).
        METRICS_TOKEN: benchMetricsToken,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 60_000;
  while (!output.includes("listening on")) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the server did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base: `http://127.0.0.1:${String(port)}`,
    pid: child.pid ?? 0,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      // The whole process group: with WORKERS > 1 the primary's workers too.
      if (child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
      await exited;
    },
  };
}

const execFileAsync = promisify(execFile);

/**
 * One row of load (load.ts) from a process of its own; resolves with its figures. The spec goes
 * through a file: a world's thousand tokens are more than one command-line argument may hold.
 */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const dir = await mkdtemp(join(tmpdir(), "clinic-bench-"));
  try {
    const file = join(dir, "spec.json");
    await writeFile(file, JSON.stringify(spec));
    const { stdout } = await execFileAsync(process.execPath, ["--import", "tsx", "apps/server/bench/load.ts", file], {
      cwd: root,
      encoding: "utf8",
      maxBuffer: 16 * 1024 * 1024,
    });
    return JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as LoadResult;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The availability cache's lookups so far, from /metrics: exact with one process; with several,
 * /metrics answers from whichever process takes the connection.
 */
export async function cacheLookups(base: string): Promise<{ hits: number; misses: number }> {
  const answer = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${benchMetricsToken}` } });
  const text = await answer.text();
  const count = (result: string) =>
    Number(new RegExp(`^availability_cache_requests_total\\{result="${result}"\\} (\\d+)`, "m").exec(text)?.[1] ?? 0);
  return { hits: count("hit"), misses: count("miss") };
}

export interface Sink {
  /** The sink's base URL (a webhook's URL is this plus a path). */
  url: string;
  /** Deliveries received so far. */
  received: () => number;
  stop: () => Promise<void>;
}

/** The webhook receiver of the bench: answers every request 204 and counts them. */
export async function startSink(): Promise<Sink> {
  let received = 0;
  const server: Server = createHttpServer((request, response) => {
    request.resume();
    request.on("end", () => {
      received++;
      response.writeHead(204).end();
    });
  });
  const port = await new Promise<number>((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve(typeof address === "object" && address ? address.port : 0);
    });
  });
  return {
    url: `http://127.0.0.1:${String(port)}/hooks`,
    received: () => received,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
