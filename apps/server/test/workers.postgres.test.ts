// WORKERS=2 (docs/operations.md#workers): the start command forks two processes that share the
// port; both serve, a booking made through one is read through the other, and one SIGTERM stops
// them all. PostgreSQL only (the embedded database has one owner).
import { type ChildProcess, spawn } from "node:child_process";
import { Agent, request as httpRequest } from "node:http";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { addService, bookableClinic, testSecret } from "@clinic/api/testing";
import type { DbHandle } from "@clinic/db";
import { createScratchDatabase, type ScratchDatabase } from "@clinic/db/testing";

const databaseUrl = inject("databaseUrl");
const root = fileURLToPath(new URL("../../../", import.meta.url));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
  return typeof address === "object" && address ? address.port : 0;
}

/** One HTTP request on `agent` (a kept-alive connection stays with the process that accepted it). */
function call(
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

describe.skipIf(!databaseUrl)("WORKERS=2", () => {
  let server: ChildProcess;
  let scratch: ScratchDatabase;
  let handle: DbHandle;
  let port = 0;
  let output = "";

  beforeAll(async () => {
    // A database of its own (on Citus, a Citus database): the server's job workers must not take
    // other test files' jobs.
    scratch = await createScratchDatabase(databaseUrl, "clinic_workers");
    const url = scratch.url ?? "";
    port = await freePort();
    // Node itself with tsx's loader (no wrapper process between the test and the primary), in a
    // process group of its own so that nothing outlives the test.
    server = spawn(process.execPath, ["--import", "tsx", "apps/server/src/main.ts"], {
      cwd: root,
      detached: true,
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: url,
        WORKERS: "2",
        PORT: String(port),
        HOST: "127.0.0.1",
        JWT_SECRET: testSecret,
        DEMO: "off",
        LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    server.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    server.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 60_000;
    while (!output.includes("listening on")) {
      if (Date.now() > deadline || server.exitCode !== null) throw new Error(`the server did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // The server migrated it; the test's own pool writes the fixtures.
    handle = await scratch.open({ poolMax: 2 });
  }, 90_000);
  afterAll(async () => {
    if (server.exitCode === null && server.pid !== undefined) process.kill(-server.pid, "SIGKILL");
    await handle.close();
    await scratch.drop();
  });

  it("serves from two processes; a booking through one is visible through the other; SIGTERM stops both", async () => {
    expect(output).toContain("2 worker processes serving");
    // Connections until two different processes have answered.
    const byPid = new Map<number, Agent>();
    for (let i = 0; i < 100 && byPid.size < 2; i++) {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const { body } = await call(agent, port, { method: "GET", path: "/healthz" });
      const { pid } = JSON.parse(body) as { pid: number };
      if (byPid.has(pid)) agent.destroy();
      else byPid.set(pid, agent);
    }
    expect(byPid.size).toBe(2);
    const [[firstPid, first], [secondPid, second]] = [...byPid.entries()] as [[number, Agent], [number, Agent]];
    expect(firstPid).not.toBe(server.pid);

    const c = await bookableClinic(handle.db);
    const service = await addService(handle.db, c.clinicId, { providerId: c.provider.id });
    const booked = await call(first, port, {
      method: "POST",
      path: `/v1/appointments?clinic_id=${c.clinicId}`,
      token: c.staff.token,
      body: { service_id: service, start: "2031-03-17T09:00:00Z", patient: { name: "Two Processes" } },
    });
    expect(booked.status, booked.body).toBe(201);
    const { id } = JSON.parse(booked.body) as { id: string };
    const read = await call(second, port, {
      method: "GET",
      path: `/v1/appointments/${id}?clinic_id=${c.clinicId}`,
      token: c.staff.token,
    });
    expect(read.status).toBe(200);
    expect(JSON.parse(read.body)).toMatchObject({ id, patient: { name: "Two Processes" } });
    // Each answer came from the process it was meant to.
    expect(JSON.parse((await call(first, port, { method: "GET", path: "/healthz" })).body)).toMatchObject({
      pid: firstPid,
    });
    expect(JSON.parse((await call(second, port, { method: "GET", path: "/healthz" })).body)).toMatchObject({
      pid: secondPid,
    });
    // The same slot through the other process: the database still has one winner.
    const again = await call(second, port, {
      method: "POST",
      path: `/v1/appointments?clinic_id=${c.clinicId}`,
      token: c.staff.token,
      body: { service_id: service, start: "2031-03-17T09:00:00Z", patient: { name: "Late" } },
    });
    expect(again.status, again.body).toBe(409);
    first.destroy();
    second.destroy();

    const exited = new Promise<number | null>((resolve) =>
      server.once("exit", (code) => {
        resolve(code);
      }),
    );
    server.kill("SIGTERM");
    expect(await exited).toBe(0);
    for (const pid of [firstPid, secondPid]) expect(() => process.kill(pid, 0)).toThrow();
  }, 60_000);
});
