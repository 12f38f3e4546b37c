import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { type DbHandle, appointments, hasCitus, openDatabase } from "@clinic/db";
import { TEST_CONNECT_TIMEOUT_S } from "@clinic/db/testing";
import { addService, bookableClinic, callerFor, codeOf, lockWaiters, pinnedNow } from "../testing/index.ts";

// After a lost race a booking's next write waits for the slot's writers in flight before its row is
// in the table (p.wait_first: INSERT … ON CONFLICT DO NOTHING checks first). A retry that inserted
// at once would be waited for by the oldest racer, whose exclusion check restarts after each wait:
// on Citus, whose detector cancels the youngest, a livelock (docs/front-desk.md). Here the oldest
// racer is a transaction of the test's own: after the retry waits on its first row, its second row
// overlaps the time the retry wants, and it is let in at once because the retry has no row yet.
// The lost race is injected by a trigger (Citus refuses triggers on distributed tables: not there).
const databaseUrl = inject("databaseUrl");

describe.skipIf(!databaseUrl)("a booking's write after a lost race (PostgreSQL)", () => {
  let racer: DbHandle;
  let booker: DbHandle;
  let citus = false;
  beforeAll(async () => {
    racer = await openDatabase({ url: databaseUrl, poolMax: 2, connectTimeoutS: TEST_CONNECT_TIMEOUT_S });
    booker = await openDatabase({ url: databaseUrl, poolMax: 2, connectTimeoutS: TEST_CONNECT_TIMEOUT_S });
    citus = await hasCitus(racer.db);
  });
  afterAll(async () => {
    if (!citus) {
      await racer.db.execute(sql.raw(`DROP TRIGGER IF EXISTS wait_first_lost_race ON appointments`));
      await racer.db.execute(sql.raw(`DROP FUNCTION IF EXISTS wait_first_lost_race()`));
      await racer.db.execute(sql.raw(`DROP SEQUENCE IF EXISTS wait_first_lost_race_once`));
    }
    await racer.close();
    await booker.close();
  });

  it("waits for the racer's uncommitted row without adding one of its own, then answers SLOT_UNAVAILABLE", async (ctx) => {
    if (citus) ctx.skip();
    const c = await bookableClinic(racer.db);
    const service = await addService(racer.db, c.clinicId, { providerId: c.provider.id, durationMin: 30 });
    // The booking's first insert loses a race (40001, a serialization failure, before its row is written:
    // the insert's own handler takes deadlocks only).
    await racer.db.execute(sql.raw(`CREATE SEQUENCE IF NOT EXISTS wait_first_lost_race_once`));
    await racer.db.execute(
      sql.raw(`CREATE OR REPLACE FUNCTION wait_first_lost_race() RETURNS trigger LANGUAGE plpgsql AS $f$
      BEGIN
        IF NEW.clinic_id = '${c.clinicId}'::uuid AND NEW.patient_name <> 'Racer'
           AND nextval('wait_first_lost_race_once') = 1 THEN
          RAISE EXCEPTION USING ERRCODE = '40001', MESSAGE = 'injected lost race';
        END IF;
        RETURN NEW;
      END $f$`),
    );
    await racer.db.execute(sql.raw(`DROP TRIGGER IF EXISTS wait_first_lost_race ON appointments`));
    await racer.db.execute(
      sql.raw(
        `CREATE TRIGGER wait_first_lost_race BEFORE INSERT ON appointments FOR EACH ROW EXECUTE FUNCTION wait_first_lost_race()`,
      ),
    );
    const at = (hhmm: string) => new Date(`2027-03-15T${hhmm}:00Z`);
    const row = (from: string, to: string) => ({
      clinicId: c.clinicId,
      serviceId: service,
      providerId: c.provider.id,
      startsAt: at(from),
      endsAt: at(to),
      occupiedStart: at(from),
      occupiedEnd: at(to),
      patientName: "Racer",
    });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let secondRow: Promise<string> = Promise.resolve("not tried");
    let step: () => void = () => undefined;
    const firstRowIn = new Promise<void>((resolve) => {
      step = resolve;
    });
    // The oldest racer: 10:15-10:45, uncommitted until the booking waits on it; then 09:45-10:15,
    // which overlaps the booking's 10:00-10:30 and would wait for a row of the booking's.
    const oldest = racer.db.transaction(async (tx) => {
      await tx.insert(appointments).values(row("10:15", "10:45"));
      step();
      await held;
      secondRow = tx
        .execute(sql.raw(`SET LOCAL lock_timeout = '400ms'`))
        .then(() => tx.insert(appointments).values(row("09:45", "10:15")))
        .then(
          () => "inserted",
          (error: unknown) => `refused: ${error instanceof Error ? error.message : String(error)}`,
        );
      await secondRow;
    });
    await firstRowIn;
    const booking = codeOf(
      callerFor(booker.db, c.staff, { now: pinnedNow }).appointments.book({
        clinic_id: c.clinicId,
        service_id: service,
        start: at("10:00"),
        patient: { name: "Pat" },
      }),
    );
    try {
      expect(await lockWaiters(racer.db, "clinic_book_appointment")).toBe(1);
    } finally {
      release();
    }
    await oldest.catch(() => undefined);
    // A retry that inserted first would have been waited for: the lock timeout, not this.
    expect(await secondRow).toBe("inserted");
    expect(await booking).toBe("SLOT_UNAVAILABLE");
    const rows = await racer.db
      .select({ startsAt: appointments.startsAt, patientName: appointments.patientName })
      .from(appointments)
      .where(eq(appointments.clinicId, c.clinicId))
      .orderBy(appointments.startsAt);
    expect(rows).toEqual([
      { startsAt: at("09:45"), patientName: "Racer" },
      { startsAt: at("10:15"), patientName: "Racer" },
    ]);
  }, 30_000);
});
