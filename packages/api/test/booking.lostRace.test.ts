// A write that loses a race the database breaks up (a deadlock, 40P01, or a serialization failure,
// 40001) outside the insert's own handler, as Citus's distributed deadlock detector does: nothing
// was written, so the request reads again instead of answering 409 CONFLICT (docs/performance.md,
// "Races that failed now and then"). The failure is injected once by a trigger on the events the
// booking records last, for this test's clinic only.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { rowsOf } from "@clinic/db";
import { afterLostRace } from "../src/modules/booking/clinicFunctions.ts";
import { addService, bookableClinic, callerFor, pinnedNow, useTestDatabase } from "../testing/index.ts";

const t = useTestDatabase();
// Citus refuses triggers on distributed tables, so the failure cannot be injected there; the
// mapping under test is the TypeScript write's, the same on every database, and Citus's own
// deadlock victims are counted in docs/performance.md.
let citus = false;
beforeAll(async () => {
  const [row] = rowsOf<{ on: boolean }>(
    await t.db.execute(sql`select exists (select 1 from pg_extension where extname = 'citus') as on`),
  );
  citus = row?.on ?? false;
});

/** The clinic's next `times` event inserts fail with `sqlstate` (the booking's write loses a race). */
async function failOnce(clinicId: string, sqlstate: "40P01" | "40001", times = 1) {
  const name = `lost_race_${sqlstate.toLowerCase()}`;
  await t.db.execute(sql.raw(`CREATE SEQUENCE IF NOT EXISTS ${name}_once`));
  await t.db.execute(
    sql.raw(`CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $f$
    BEGIN
      IF NEW.clinic_id = '${clinicId}'::uuid AND nextval('${name}_once') <= ${String(times)} THEN
        RAISE EXCEPTION USING ERRCODE = '${sqlstate}', MESSAGE = 'injected lost race';
      END IF;
      RETURN NEW;
    END $f$`),
  );
  await t.db.execute(sql.raw(`DROP TRIGGER IF EXISTS ${name} ON events`));
  await t.db.execute(sql.raw(`CREATE TRIGGER ${name} BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION ${name}()`));
}

afterAll(async () => {
  if (citus) return;
  for (const name of ["lost_race_40p01", "lost_race_40001"]) {
    await t.db.execute(sql.raw(`DROP TRIGGER IF EXISTS ${name} ON events`));
    await t.db.execute(sql.raw(`DROP FUNCTION IF EXISTS ${name}()`));
    await t.db.execute(sql.raw(`DROP SEQUENCE IF EXISTS ${name}_once`));
  }
});

describe("a write that loses a race the database broke up", () => {
  for (const sqlstate of ["40P01", "40001"] as const) {
    it(`is read again (${sqlstate}): a booking and a series still succeed`, async (ctx) => {
      if (citus) ctx.skip();
      const c = await bookableClinic(t.db);
      const service = await addService(t.db, c.clinicId, { providerId: c.provider.id, durationMin: 30 });
      const staff = callerFor(t.db, c.staff, { now: pinnedNow });
      await failOnce(c.clinicId, sqlstate);
      const booked = await staff.appointments.book({
        clinic_id: c.clinicId,
        service_id: service,
        start: new Date("2027-03-15T10:00:00Z"),
        patient: { name: "Pat" },
      });
      expect(booked.status).toBe("booked");
      await t.db.execute(sql.raw(`ALTER SEQUENCE lost_race_${sqlstate.toLowerCase()}_once RESTART`));
      const series = await staff.series.book({
        clinic_id: c.clinicId,
        service_id: service,
        start: new Date("2027-03-16T09:00:00Z"),
        rrule: "FREQ=WEEKLY;COUNT=3",
        patient: { name: "Course" },
      });
      expect("dry_run" in series).toBe(false);
    });
  }
});

describe("lost races in a row", () => {
  const bookAfter = async (losses: number) => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { providerId: c.provider.id, durationMin: 30 });
    await t.db.execute(sql.raw(`ALTER SEQUENCE IF EXISTS lost_race_40p01_once RESTART`));
    await failOnce(c.clinicId, "40P01", losses);
    return callerFor(t.db, c.staff, { now: pinnedNow }).appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: new Date("2027-03-15T10:00:00Z"),
      patient: { name: "Pat" },
    });
  };

  it("do not use up the three reads for a changed schedule: five, and the sixth attempt books", async (ctx) => {
    if (citus) ctx.skip();
    expect((await bookAfter(5)).status).toBe("booked");
  });

  it("end in 409 CONFLICT after six", async (ctx) => {
    if (citus) ctx.skip();
    await expect(bookAfter(6)).rejects.toMatchObject({ domainCode: "CONFLICT" });
  });
});

describe("the wait after a lost race (afterLostRace)", () => {
  it("waits 5-50 ms before the next read, and not at all inside a transaction the database has aborted", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    try {
      let waited = false;
      const outside = afterLostRace(t.db).then(() => {
        waited = true;
      });
      await vi.advanceTimersByTimeAsync(4);
      expect(waited).toBe(false);
      await vi.advanceTimersByTimeAsync(46);
      await outside;
      expect(waited).toBe(true);
    } finally {
      vi.useRealTimers();
    }
    // Inside a transaction it returns at once: within two microtask turns, before any timer could run.
    await t.db.transaction(async (tx) => {
      let done = false;
      const inside = afterLostRace(tx).then(() => {
        done = true;
      });
      await Promise.resolve();
      await Promise.resolve();
      expect(done).toBe(true);
      await inside;
    });
  });
});
