import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, inject, it } from "vitest";
import { appRouter, createCallerFactory, createContextInner } from "@clinic/api";
import { seedDemo, demoUsers } from "../src/demo.ts";
import { useTestApp } from "./helpers.ts";
import { freePort } from "./processes.ts";

const root = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * One development start of the server on the embedded database in `dataDir`, as `npm start` runs
 * it: answers what it printed once it has printed its banner, then stops it (SIGTERM) and waits.
 */
async function startOnce(dataDir: string): Promise<string> {
  const port = await freePort();
  // Node itself with tsx's loader, in a process group of its own so that nothing outlives the test.
  const server: ChildProcess = spawn(process.execPath, ["--import", "tsx", "apps/server/src/main.ts"], {
    cwd: root,
    detached: true,
    env: {
      NODE_ENV: "development",
      PGLITE_DIR: join(dataDir, "pglite"),
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  server.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  server.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) =>
    server.once("exit", () => {
      resolve();
    }),
  );
  try {
    // The banner ends with the curl line; the lines after it are printed at once, or never.
    const deadline = Date.now() + 90_000;
    while (!output.includes("Try it:")) {
      if (Date.now() > deadline || server.exitCode !== null) throw new Error(`the server did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const settle = Date.now() + 2_000;
    while (!output.includes("  4. curl") && Date.now() < settle) await new Promise((r) => setTimeout(r, 50));
    return output;
  } finally {
    if (server.pid !== undefined && server.exitCode === null) process.kill(-server.pid, "SIGTERM");
    await exited;
  }
}

const t = useTestApp();

describe("demo clinic", () => {
  it("creates a Berlin clinic with providers in every state, hours, services, a closure and appointments, once", async () => {
    // A name of its own, so the test also passes on a database that already has the demo.
    const name = `Demo ${crypto.randomUUID()}`;
    const first = await seedDemo(t.handle.db, new Date("2027-03-10T10:00:00Z"), name);
    expect(first.created).toBe(true);
    const again = await seedDemo(t.handle.db, new Date("2027-03-10T10:00:00Z"), name);
    expect(again).toEqual({ ...first, created: false });

    const staff = { id: demoUsers.staff.id, email: demoUsers.staff.email, phoneE164: null, isAdmin: false };
    const api = createCallerFactory(appRouter)(
      createContextInner({ db: t.handle.db, user: staff, now: () => new Date("2027-03-10T10:00:00Z") }),
    );
    const providers = await api.providers.list({ clinic_id: first.clinicId });
    expect(providers.providers.map((p) => [p.full_name, p.status])).toEqual([
      ["Anna Berg", "approved"],
      ["Ben Koch", "approved"],
      ["Carla Diaz", "pending"],
      ["David Wolf", "suspended"],
    ]);
    const services = await api.services.list({ clinic_id: first.clinicId });
    expect(services.services.map((s) => s.name)).toContain("Deep Tissue Massage - Anna Berg");
    expect(services.services.some((s) => s.provider_id === null)).toBe(true);
    const appointments = await api.appointments.list({ clinic_id: first.clinicId });
    expect(appointments.appointments.length).toBeGreaterThanOrEqual(3);
    const closures = await api.closures.listProvider({ clinic_id: first.clinicId, provider_id: demoUsers.ben.id });
    expect(closures.closures).toHaveLength(1);
    const hours = await api.workHours.listProvider({
      clinic_id: first.clinicId,
      provider_id: demoUsers.anna.id,
      weekday: 1,
    });
    expect(hours.work_hours.map((h) => `${h.opens_at}-${h.closes_at}`)).toEqual(["09:00-12:00", "13:00-17:00"]);
    // The booking page is open to the demo patient, who is not a member.
    const patient = { id: demoUsers.patient.id, email: demoUsers.patient.email, phoneE164: null, isAdmin: false };
    const asPatient = createCallerFactory(appRouter)(
      createContextInner({ db: t.handle.db, user: patient, now: () => new Date("2027-03-10T10:00:00Z") }),
    );
    expect((await asPatient.onlineBooking.services({ clinic_id: first.clinicId })).services.length).toBeGreaterThan(0);
  });
});

// The embedded database whatever the target: on the PostgreSQL and Citus targets of CI it would repeat
// the embedded target's run exactly (docs/testing.md#ci).
describe.skipIf(Boolean(inject("databaseUrl")))("npm start on the embedded database", () => {
  it(
    "prints the demo clinic's pages and its people's tokens at every development start, not only the first",
    { timeout: 240_000 },
    async () => {
      const dataDir = await mkdtemp(join(tmpdir(), "clinic-start-"));
      try {
        const first = await startOnce(dataDir);
        expect(first).toContain("Creating the demo clinic");
        const clinicId = /Demo clinic "Praxis Mitte \(demo\)" \(Europe\/Berlin\): ([0-9a-f-]{36})/.exec(first)?.[1];
        expect(clinicId, first).toBeDefined();
        // The same data directory again: the demo exists already, and the newcomer still gets the way in.
        const second = await startOnce(dataDir);
        expect(second).not.toContain("Creating the demo clinic");
        for (const output of [first, second]) {
          expect(output).toContain(`/book/${clinicId ?? ""}`);
          expect(output).toContain(`/desk/${clinicId ?? ""}`);
          expect(output).toContain(`Demo clinic "Praxis Mitte (demo)" (Europe/Berlin): ${clinicId ?? ""}`);
          expect(output).toMatch(/^ {2}CLINIC_ADMIN Clara Admin: +\S+$/m);
          // What .ci/run's smoke test reads from the start log.
          expect(output).toMatch(/access_token=[A-Za-z0-9._-]+/);
          expect(output).toMatch(new RegExp(`^  1\\. curl .*clinic_id=${clinicId ?? ""}`, "m"));
          expect(output).toMatch(new RegExp(`^  2\\. npm run agent .*--clinic ${clinicId ?? ""}`, "m"));
        }
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  );
});
