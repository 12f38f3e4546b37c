// The service as a separate process (node with tsx's loader, `apps/server/src/main.ts`), for the
// tests that start, signal and kill it: WORKERS=2, and `kill -9` under load.
import { type ChildProcess, spawn } from "node:child_process";
import { type Agent, request as httpRequest } from "node:http";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { testSecret } from "@clinic/api/testing";

const root = fileURLToPath(new URL("../../../", import.meta.url));

/** A port on 127.0.0.1 that nothing listens on (yet). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
  if (typeof address !== "object" || !address) throw new Error("no free port");
  return address.port;
}

export interface ServerProcess {
  process: ChildProcess;
  port: number;
  /** Everything it wrote to stdout and stderr so far. */
  output: () => string;
  /** SIGKILL to its process group: the primary and every worker process, with no chance to clean up. */
  kill9: () => Promise<void>;
}

/**
 * Starts the server on `databaseUrl` (it migrates it) in a process group of its own, so that
 * nothing outlives the test, and waits until it listens.
 */
export async function startServer(databaseUrl: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "apps/server/src/main.ts"], {
    cwd: root,
    detached: true,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: "127.0.0.1",
      JWT_SECRET: testSecret,
      DEMO: "off",
      LOG_LEVEL: "warn",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 60_000;
  while (!output.includes("listening on")) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the server did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    process: child,
    port,
    output: () => output,
    kill9: async () => {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      process.kill(-child.pid, "SIGKILL");
      await exited;
    },
  };
}

/** One HTTP request on `agent` (a kept-alive connection stays with the process that accepted it). */
export function call(
  agent: Agent,
  port: number,
  options: { method: string; path: string; token?: string; body?: unknown },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = httpRequest(
      {
        agent,
        host: "127.0.0.1",
        port,
        method: options.method,
        path: options.path,
        headers: {
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
          ...(payload ? { "content-type": "application/json" } : {}),
        },
      },
      (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => (body += chunk.toString()));
        res.on("end", () => {
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}
