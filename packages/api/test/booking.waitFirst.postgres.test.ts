import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import {
  type Db,
  type DbHandle,
  appointments,
  hasCitus,
  openDatabase,
  providerBusy,
  resourceBookings,
} from "@clinic/db";
import { TEST_CONNECT_TIMEOUT_S } from "@clinic/db/testing";
import {
  addResource,
  addService,
  bookableClinic,
  callerFor,
  codeOf,
  type TestUser,
  lockWaiters,
  pinnedNow,
  sharedProviderClinics,
  unique,
} from "../testing/index.ts";

// After a lost race a booking's next write waits for the slot's writers in flight before its row is
// in the table (p.wait_first: INSERT … ON CONFLICT DO NOTHING checks first; the shared provider's
// provider_busy row the same way). A retry that inserted at once would be waited for by the oldest
// racer, whose exclusion check restarts after each wait: on Citus, whose detector cancels the
// youngest, a livelock (docs/front-desk.md). Here the oldest racer is a transaction of the test's
// own: after the retry waits on its first row, its second row overlaps the time the retry wants,
// and it is let in at once because the retry has no row yet. The lost race is injected by a trigger
// on the table (Citus refuses triggers on distributed tables: not there).
const databaseUrl = inject("databaseUrl");
const at = (hhmm: string) => new Date(`2027-03-15T${hhmm}:00Z`);

describe.skipIf(!databaseUrl)("a booking's write after a lost race (PostgreSQL)", () => {
  let racer: DbHandle;
  let booker: DbHandle;
  let citus = false;
  const triggers: string[] = [];
  const created: string[] = [];
  beforeAll(async () => {
    racer = await openDatabase({ url: databaseUrl, poolMax: 2, connectTimeoutS: TEST_CONNECT_TIMEOUT_S });
    booker = await openDatabase({ url: databaseUrl, poolMax: 2, connectTimeoutS: TEST_CONNECT_TIMEOUT_S });
    citus = await hasCitus(racer.db);
  });
  afterAll(async () => {
    for (const table of new Set(triggers)) {
      await racer.db.execute(sql.raw(`DROP TRIGGER IF EXISTS wait_first_lost_race ON ${table}`));
    }
    for (const name of created) await racer.db.execute(sql.raw(`DROP ${name}`));
    await racer.close();
    await booker.close();
  });

  /**
   * The booking's first insert into `table` where `booking` holds loses a race (40001, a serialization
   * failure, before its row is written: the insert's own handler takes deadlocks only). The racer
   * writes `firstRow` (10:15-10:45), keeps it uncommitted until the booking waits on it, then tries
   * `secondRow` (09:45-10:15, overlapping the booking's 10:00-10:30) under a 400 ms lock timeout.
   */
  async function raceRetry(options: {
    table: "appointments" | "provider_busy" | "resource_bookings";
    booking: string;
    row: (tx: Db, from: string, to: string) => Promise<unknown>;
    /** The booking: this clinic's staff books the service at 10:00 for "Pat". */
    clinic: { clinicId: string; staff: TestUser };
    service: string;
  }): Promise<{ secondRow: string; booking: string; appointments: string[] }> {
    const fn = `wait_first_lost_race_${options.table}`;
    const once = `${fn}_${unique().replace(/[^a-z0-9]/gi, "")}`;
    await racer.db.execute(sql.raw(`CREATE SEQUENCE ${once}`));
    created.push(`SEQUENCE IF EXISTS ${once}`, `FUNCTION IF EXISTS ${fn}()`);
    await racer.db.execute(
      sql.raw(`CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $f$
      BEGIN
        IF ${options.booking} AND nextval('${once}') = 1 THEN
          RAISE EXCEPTION USING ERRCODE = '40001', MESSAGE = 'injected lost race';
        END IF;
        RETURN NEW;
      END $f$`),
    );
    await racer.db.execute(sql.raw(`DROP TRIGGER IF EXISTS wait_first_lost_race ON ${options.table}`));
    await racer.db.execute(
      sql.raw(
        `CREATE TRIGGER wait_first_lost_race BEFORE INSERT ON ${options.table} FOR EACH ROW EXECUTE FUNCTION ${fn}()`,
      ),
    );
    triggers.push(options.table);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let step: () => void = () => undefined;
    const firstRowIn = new Promise<void>((resolve) => {
      step = resolve;
    });
    let secondRow: Promise<string> = Promise.resolve("not tried");
    const oldest = racer.db.transaction(async (tx) => {
      await options.row(tx, "10:15", "10:45");
      step();
      await held;
      secondRow = tx
        .execute(sql.raw(`SET LOCAL lock_timeout = '400ms'`))
        .then(() => options.row(tx, "09:45", "10:15"))
        .then(
          () => "inserted",
          (error: unknown) => `refused: ${error instanceof Error ? error.message : String(error)}`,
        );
      await secondRow;
    });
    await firstRowIn;
    // (codeOf throws when the call succeeds: then "booked".)
    const booking = codeOf(
      callerFor(booker.db, options.clinic.staff, { now: pinnedNow }).appointments.book({
        clinic_id: options.clinic.clinicId,
        service_id: options.service,
        start: at("10:00"),
        patient: { name: "Pat" },
      }),
    ).catch(() => "booked");
    try {
      expect(await lockWaiters(racer.db, "clinic_book_appointment")).toBe(1);
    } finally {
      release();
    }
    await oldest.catch(() => undefined);
    await racer.db.execute(sql.raw(`DROP TRIGGER IF EXISTS wait_first_lost_race ON ${options.table}`));
    const result = { secondRow: await secondRow, booking: await booking };
    const rows = await racer.db
      .select({ startsAt: appointments.startsAt, patientName: appointments.patientName })
      .from(appointments)
      .where(eq(appointments.clinicId, options.clinic.clinicId))
      .orderBy(appointments.startsAt);
    return { ...result, appointments: rows.map((r) => `${r.patientName} ${r.startsAt.toISOString()}`) };
  }

  it("waits for the racer's uncommitted appointment without adding one of its own, then answers SLOT_UNAVAILABLE", async (ctx) => {
    if (citus) ctx.skip();
    const c = await bookableClinic(racer.db);
    const service = await addService(racer.db, c.clinicId, { providerId: c.provider.id, durationMin: 30 });
    const outcome = await raceRetry({
      table: "appointments",
      booking: `NEW.clinic_id = '${c.clinicId}'::uuid AND NEW.patient_name <> 'Racer'`,
      row: (tx, from, to) =>
        tx.insert(appointments).values({
          clinicId: c.clinicId,
          serviceId: service,
          providerId: c.provider.id,
          startsAt: at(from),
          endsAt: at(to),
          occupiedStart: at(from),
          occupiedEnd: at(to),
          patientName: "Racer",
        }),
      clinic: c,
      service,
    });
    // A retry that inserted first would have been waited for: the lock timeout, not this.
    expect(outcome).toEqual({
      secondRow: "inserted",
      booking: "SLOT_UNAVAILABLE",
      appointments: ["Racer 2027-03-15T09:45:00.000Z", "Racer 2027-03-15T10:15:00.000Z"],
    });
  }, 30_000);

  it("waits the same way for a shared provider's time taken in another clinic", async (ctx) => {
    if (citus) ctx.skip();
    const { a, b, person } = await sharedProviderClinics(racer.db, [1]);
    const service = await addService(racer.db, a.clinicId, { providerId: person.id, durationMin: 30 });
    // The racer: the person's time in clinic B (as clinic B's bookings claim it), uncommitted.
    const outcome = await raceRetry({
      table: "provider_busy",
      booking: `NEW.clinic_id = '${a.clinicId}'::uuid`,
      row: (tx, from, to) =>
        tx.insert(providerBusy).values({
          userId: person.id,
          clinicId: b.clinicId,
          appointmentId: crypto.randomUUID(),
          occupiedStart: at(from),
          occupiedEnd: at(to),
        }),
      clinic: a,
      service,
    });
    expect(outcome).toEqual({ secondRow: "inserted", booking: "SLOT_UNAVAILABLE", appointments: [] });
  }, 30_000);

  it("waits the same way for the room the service needs", async (ctx) => {
    if (citus) ctx.skip();
    const c = await bookableClinic(racer.db);
    const service = await addService(racer.db, c.clinicId, { providerId: c.provider.id, durationMin: 30 });
    await racer.db.execute(
      sql`update services set required_resource_kinds = '{treatment_room}' where clinic_id = ${c.clinicId}::uuid and id = ${service}::uuid`,
    );
    const room = await addResource(racer.db, c.clinicId, { name: "The room" });
    // The racer: the room's time for two other appointments of the clinic, uncommitted.
    const racers = { "10:15": crypto.randomUUID(), "09:45": crypto.randomUUID() };
    const outcome = await raceRetry({
      table: "resource_bookings",
      booking: `NEW.clinic_id = '${c.clinicId}'::uuid AND NEW.appointment_id NOT IN ('${racers["10:15"]}', '${racers["09:45"]}')`,
      row: (tx, from, to) =>
        tx.insert(resourceBookings).values({
          clinicId: c.clinicId,
          resourceId: room,
          appointmentId: from === "10:15" ? racers["10:15"] : racers["09:45"],
          occupiedStart: at(from),
          occupiedEnd: at(to),
        }),
      clinic: c,
      service,
    });
    expect(outcome).toEqual({ secondRow: "inserted", booking: "SLOT_UNAVAILABLE", appointments: [] });
  }, 30_000);
});
