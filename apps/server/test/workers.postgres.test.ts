// WORKERS=2 (docs/operations.md#workers): the start command forks two processes that share the
// port; both serve, a booking made through one is read through the other, and one SIGTERM stops
// them all. PostgreSQL only (the embedded database has one owner).
import { Agent } from "node:http";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { addService, bookableClinic } from "@clinic/api/testing";
import type { DbHandle } from "@clinic/db";
import { createScratchDatabase, type ScratchDatabase } from "@clinic/db/testing";
import { type ServerProcess, call, startServer } from "./processes.ts";

const databaseUrl = inject("databaseUrl");

describe.skipIf(!databaseUrl)("WORKERS=2", () => {
  let started: ServerProcess;
  let scratch: ScratchDatabase;
  let handle: DbHandle;
  let port = 0;

  beforeAll(async () => {
    // A database of its own (on Citus, a Citus database): the server's job workers must not take
    // other test files' jobs.
    scratch = await createScratchDatabase(databaseUrl, "clinic_workers", { migrated: true });
    started = await startServer(scratch.url ?? "", { WORKERS: "2" });
    port = started.port;
    // The server migrated it; the test's own pool writes the fixtures.
    handle = await scratch.open({ poolMax: 2 });
  }, 90_000);
  afterAll(async () => {
    await started.kill9();
    await handle.close();
    await scratch.drop();
  });

  it("serves from two processes; a booking through one is visible through the other; SIGTERM stops both", async () => {
    expect(started.output()).toContain("2 worker processes serving");
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
    expect(firstPid).not.toBe(started.process.pid);

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
      started.process.once("exit", (code) => {
        resolve(code);
      }),
    );
    started.process.kill("SIGTERM");
    expect(await exited).toBe(0);
    for (const pid of [firstPid, secondPid]) expect(() => process.kill(pid, 0)).toThrow();
  }, 60_000);
});
