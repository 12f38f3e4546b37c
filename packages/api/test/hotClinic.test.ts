// The hot clinic (docs/performance.md#the-hot-clinic): every writer of one clinic waits for the
// clinic's event number (event_counters, held until the commit), so a write does nothing after
// taking it but insert its event. Counted per transaction with track_functions: the caller's
// view (clinic_appointment_view) is not read again after the event; the writes answer the view
// they read before it, answers included.
import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { rowsOf } from "@clinic/db";
import { bookableClinic, callerFor, pinnedNow, useTestDatabase } from "../testing/index.ts";

const t = useTestDatabase();
const at = (iso: string) => new Date(iso);

describe("the hot clinic's critical section", () => {
  it("book, reschedule and cancel answer the view read before the event number, not re-read after it", async () => {
    const c = await bookableClinic(t.db);
    const admin = callerFor(t.db, c.admin, { now: pinnedNow });
    const service = await admin.services.create({
      clinic_id: c.clinicId,
      name: "Check",
      duration_min: 30,
      provider_id: c.provider.id,
    });
    const calls = await t.db.transaction(async (tx) => {
      await tx.execute(sql`SET LOCAL track_functions = 'pl'`);
      const inTx = callerFor(tx, c.admin, { now: pinnedNow });
      const booked = await inTx.appointments.book({
        clinic_id: c.clinicId,
        service_id: service.id,
        start: at("2027-03-15T09:00:00Z"),
        patient: { name: "Pat" },
      });
      expect(booked).toMatchObject({ status: "booked", answers: [] });
      const moved = await inTx.appointments.reschedule({
        clinic_id: c.clinicId,
        id: booked.id,
        start: at("2027-03-15T10:00:00Z"),
      });
      expect(moved).toMatchObject({ id: booked.id, start: at("2027-03-15T10:00:00Z"), answers: [] });
      const canceled = await inTx.appointments.cancel({ clinic_id: c.clinicId, id: booked.id });
      expect(canceled).toMatchObject({ id: booked.id, status: "canceled", answers: [] });
      return rowsOf<{ funcname: string; calls: number }>(
        await tx.execute(sql`SELECT funcname, calls::int AS calls FROM pg_stat_xact_user_functions
                             WHERE funcname IN ('clinic_appointment_view', 'clinic_record_event')`),
      );
    });
    const count = (name: string) => calls.find((r) => r.funcname === name)?.calls ?? 0;
    // The booking and the reschedule (a cancel records its event in TypeScript, recordChanges).
    expect(count("clinic_record_event")).toBe(2);
    expect(count("clinic_appointment_view")).toBe(0);
  });
});
