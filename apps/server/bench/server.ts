// What the HTTP benches (`pnpm bench`, `npm run bench:soak`) share: the compiled server started in
// a process of its own on a free port, and the load generator (load.ts) run in yet another.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { loadConfig } from "@clinic/config";
import type { LoadResult, LoadSpec } from "./load.ts";

/** The repository root: the compiled server and load.ts are run from there. */
export const root = fileURLToPath(new URL("../../../", import.meta.url));

/** The JWT secret the benches' server verifies, and their tokens are minted with. */
export const benchSecret = "bench-secret-0123456789-0123456789-abcdef";

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
      server.close(() => { resolve(typeof address === "object" && address ? address.port : 0); });
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
export async function startServer(databaseUrl: string, workers: number): Promise<BenchServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ["--enable-source-maps", "apps/server/dist/main.js"], {
    cwd: root,
    detached: true,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: databaseUrl,
      WORKERS: String(workers),
      PORT: String(port),
      HOST: "127.0.0.1",
      JWT_SECRET: benchSecret,
      DEMO: "off",
      LOG_LEVEL: "warn",
      // Neither the per-IP nor the per-user booking-write limit may answer for the database here.
      RATE_LIMIT_MAX: "1000000000",
      BOOKING_RATE_LIMIT: "1000000",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
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

/** One row of load (load.ts) from a process of its own; resolves with its figures. */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const { stdout } = await execFileAsync(process.execPath, ["--import", "tsx", "apps/server/bench/load.ts", JSON.stringify(spec)], { cwd: root, encoding: "utf8" });
  return JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as LoadResult;
}
