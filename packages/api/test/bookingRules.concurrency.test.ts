import { describe, expect, inject, it } from "vitest";
import {
  addMember,
  addService,
  bookableClinic,
  callerFor,
  codeOf,
  pinnedNow,
  useTestDatabase,
} from "../testing/index.ts";

const t = useTestDatabase();
const at = (iso: string) => new Date(iso);
const patient = { name: "Pat" };
/** "OK" for a call that succeeded, else its API code. */
const outcome = (call: Promise<unknown>) =>
  codeOf(call).catch((error: unknown) =>
    error instanceof Error && error.message === "expected the call to fail" ? "OK" : `THREW ${String(error)}`,
  );

// Real parallel connections only exist on the PostgreSQL server (PGlite is one connection).
describe.skipIf(!inject("databaseUrl"))("booking rules under concurrency (PostgreSQL)", () => {
  it("two reschedules into one slot: one wins, the other changes nothing", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { providerId: c.provider.id });
    const staff = callerFor(t.db, c.staff, { now: pinnedNow });
    const a = await staff.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: at("2027-03-15T09:00:00Z"),
      patient,
    });
    const b = await staff.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: at("2027-03-15T10:00:00Z"),
      patient,
    });
    const target = at("2027-03-15T12:00:00Z");
    const outcomes = await Promise.all(
      [a, b].map((x) => outcome(staff.appointments.reschedule({ clinic_id: c.clinicId, id: x.id, start: target }))),
    );
    expect(outcomes.sort()).toEqual(["OK", "SLOT_UNAVAILABLE"]);
    const starts = (await staff.appointments.list({ clinic_id: c.clinicId, status: "booked" })).appointments
      .map((x) => x.start.toISOString())
      .sort();
    expect(starts).toHaveLength(2);
    expect(starts).toContain(target.toISOString());
  });

  it("a reschedule and a booking into one slot: one wins", async () => {
    for (let round = 0; round < 5; round++) {
      const c = await bookableClinic(t.db);
      const service = await addService(t.db, c.clinicId, { providerId: c.provider.id });
      const staff = callerFor(t.db, c.staff, { now: pinnedNow });
      const a = await staff.appointments.book({
        clinic_id: c.clinicId,
        service_id: service,
        start: at("2027-03-15T09:00:00Z"),
        patient,
      });
      const target = at("2027-03-15T14:00:00Z");
      const outcomes = await Promise.all([
        outcome(staff.appointments.reschedule({ clinic_id: c.clinicId, id: a.id, start: target })),
        outcome(
          callerFor(t.db, c.custom, { now: pinnedNow }).appointments.book({
            clinic_id: c.clinicId,
            service_id: service,
            start: target,
            patient,
          }),
        ),
      ]);
      expect(outcomes.sort()).toEqual(["OK", "SLOT_UNAVAILABLE"]);
      const atTarget = (
        await staff.appointments.list({
          clinic_id: c.clinicId,
          status: "booked",
          from: target,
          to: at("2027-03-15T14:30:00Z"),
        })
      ).appointments;
      expect(atTarget).toHaveLength(1);
    }
  });

  it("bookings whose buffered ranges overlap (but not their times): one wins", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { providerId: c.provider.id });
    await c.asAdmin.services.update({
      clinic_id: c.clinicId,
      id: service,
      buffer_before_min: 30,
      buffer_after_min: 30,
      slot_step_min: 30,
    });
    const agents = await Promise.all(
      Array.from({ length: 6 }, () => addMember(t.db, c.clinicId, { role: "BOOKING_AGENT" })),
    );
    // 10:00, 10:30, 11:00 … each adjacent pair is free of each other in time, never in buffers.
    const outcomes = await Promise.all(
      agents.map((agent, k) =>
        outcome(
          callerFor(t.db, agent, { now: pinnedNow }).appointments.book({
            clinic_id: c.clinicId,
            service_id: service,
            start: at(`2027-03-15T10:${k % 2 === 0 ? "00" : "30"}:00Z`),
            patient,
          }),
        ),
      ),
    );
    expect(
      outcomes.filter((o) => o === "OK"),
      outcomes.join(", "),
    ).toHaveLength(1);
    expect(
      outcomes.filter((o) => o === "SLOT_UNAVAILABLE"),
      outcomes.join(", "),
    ).toHaveLength(5);
  });

  it("10 concurrent replaces of one date override with one stamp: exactly one 200; concurrent creates: one creates", async () => {
    const c = await bookableClinic(t.db);
    const creates = await Promise.all(
      Array.from({ length: 6 }, (_, k) =>
        outcome(
          c.asAdmin.dateOverrides.putClinic({
            clinic_id: c.clinicId,
            date: "2027-03-20",
            periods: [{ opens_at: `0${String(k)}:00`, closes_at: "12:00" }],
          }),
        ),
      ),
    );
    expect(creates.filter((o) => o === "OK")).toHaveLength(1);
    expect(creates.filter((o) => o === "PRECONDITION_REQUIRED")).toHaveLength(5);
    const [current] = (await c.asAdmin.dateOverrides.listClinic({ clinic_id: c.clinicId })).date_overrides;
    if (!current) throw new Error("no override");
    const replaces = await Promise.all(
      Array.from({ length: 10 }, (_, k) =>
        outcome(
          c.asAdmin.dateOverrides.putClinic({
            clinic_id: c.clinicId,
            date: "2027-03-20",
            periods: [{ opens_at: "09:00", closes_at: `1${String(k)}:30` }],
            if_updated_at: current.updated_at,
          }),
        ),
      ),
    );
    expect(replaces.filter((o) => o === "OK")).toHaveLength(1);
    expect(replaces.filter((o) => o === "STALE_UPDATED_AT")).toHaveLength(9);
  });
});
