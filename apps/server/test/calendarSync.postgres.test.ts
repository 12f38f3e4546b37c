// One sync of one calendar at a time, with any number of processes (CONTRACT §18): the service runs
// with WORKERS=2, each process with its job workers; "sync now" (K4) is asked of both processes over
// and over while a slow calendar server counts how many reads of the calendar are open at once.
// PostgreSQL and Citus (the embedded database has one owner).
import { type Server, createServer } from "node:http";
import { Agent } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { bookableClinic } from "@clinic/api/testing";
import type { DbHandle } from "@clinic/db";
import { createScratchDatabase, type ScratchDatabase } from "@clinic/db/testing";
import { type ServerProcess, call, startServer } from "./processes.ts";

const databaseUrl = inject("databaseUrl");

describe.skipIf(!databaseUrl)("calendar sync with two processes", () => {
  let started: ServerProcess;
  let scratch: ScratchDatabase;
  let handle: DbHandle;
  let ics: Server;
  let icsBase = "";
  let open = 0;
  let mostOpen = 0;
  let reads = 0;

  beforeAll(async () => {
    // A slow calendar: each read stays open 400 ms.
    ics = createServer((_request, response) => {
      open += 1;
      reads += 1;
      mostOpen = Math.max(mostOpen, open);
      setTimeout(() => {
        open -= 1;
        response.writeHead(200, { "content-type": "text/calendar" });
        // An hour tomorrow: inside the horizon the sync reads (from the wall clock).
        const stamp = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, "").slice(0, 15) + "Z";
        const start = Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 86_400_000;
        response.end(
          `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:busy\r\nDTSTAMP:20270101T000000Z\r\nDTSTART:${stamp(start)}\r\nDTEND:${stamp(start + 3_600_000)}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`,
        );
      }, 400);
    });
    await new Promise<void>((resolve) => ics.listen(0, "127.0.0.1", resolve));
    icsBase = `http://127.0.0.1:${String((ics.address() as AddressInfo).port)}`;
    // A database of its own: the server's workers must not take other test files' jobs.
    scratch = await createScratchDatabase(databaseUrl, "clinic_calsync", { migrated: true });
    started = await startServer(scratch.url ?? "", {
      WORKERS: "2",
      WEBHOOK_ALLOW_PRIVATE: "true",
      JOB_POLL_INTERVAL_MS: "50",
    });
    handle = await scratch.open({ poolMax: 2 });
  }, 90_000);
  afterAll(async () => {
    await started.kill9();
    await handle.close();
    await scratch.drop();
    ics.closeAllConnections();
    await new Promise((resolve) => ics.close(resolve));
  });

  it("reads the calendar once at a time however often both processes are asked to sync it", async () => {
    const c = await bookableClinic(handle.db);
    const path = `/v1/clinics/${c.clinicId}/providers/${c.provider.id}/calendars`;
    // Connections until both processes have answered: K4 reaches each of them.
    const agents: Agent[] = [];
    const pids = new Set<number>();
    for (let i = 0; i < 100 && pids.size < 2; i++) {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const { pid } = JSON.parse((await call(agent, started.port, { method: "GET", path: "/healthz" })).body) as {
        pid: number;
      };
      if (pids.has(pid)) agent.destroy();
      else {
        pids.add(pid);
        agents.push(agent);
      }
    }
    expect(pids.size).toBe(2);
    const [first] = agents;
    if (!first) throw new Error("no agent");
    const created = await call(first, started.port, {
      method: "POST",
      path,
      token: c.admin.token,
      body: { kind: "ics", url: `${icsBase}/calendar.ics` },
    });
    expect(created.status, created.body).toBe(201);
    const { id } = JSON.parse(created.body) as { id: string };
    // Sync now, through both processes, 24 times in 3 s.
    for (let round = 0; round < 12; round++) {
      const answers = await Promise.all(
        agents.map((agent) =>
          call(agent, started.port, { method: "POST", path: `${path}/${id}/sync`, token: c.admin.token }),
        ),
      );
      for (const answer of answers) expect(answer.status, answer.body).toBe(202);
      await new Promise((r) => setTimeout(r, 250));
    }
    // Until the last asked sync has run.
    const deadline = Date.now() + 20_000;
    let last = -1;
    while (Date.now() < deadline && (open > 0 || reads !== last)) {
      last = reads;
      await new Promise((r) => setTimeout(r, 1000));
    }
    const state = JSON.parse(
      (await call(first, started.port, { method: "GET", path: `${path}/${id}`, token: c.admin.token })).body,
    ) as { status: string; busy_count: number };
    expect(state).toMatchObject({ status: "ok", busy_count: 1 });
    expect(reads).toBeGreaterThanOrEqual(2);
    // Never two reads of the calendar at once, and fewer reads than asks: a sync under way counts.
    expect(mostOpen).toBe(1);
    expect(reads).toBeLessThan(24);
    for (const agent of agents) agent.destroy();
  });
});
