import { describe, expect, inject, it } from "vitest";
import { openTestDatabase } from "@clinic/db/testing";
import { createContextInner, defaultApiLimits } from "../src/context.ts";
import { appRouter } from "../src/router/index.ts";
import { createCallerFactory } from "../src/trpc.ts";
import {
  addService,
  bookableClinic,
  callerFor,
  codeOf,
  createUser,
  pinnedNow,
  useTestDatabase,
} from "../testing/index.ts";

const t = useTestDatabase();
const outcome = (call: Promise<unknown>) =>
  codeOf(call).catch((error: unknown) =>
    error instanceof Error && error.message === "expected the call to fail" ? "OK" : "THREW",
  );

// Real parallel connections only exist on the PostgreSQL server (PGlite is one connection).
describe.skipIf(!inject("databaseUrl"))("patients under concurrency (PostgreSQL)", () => {
  it("one patient's 10 parallel bookings with a limit of 2: exactly 2 booked, 8 BOOKING_LIMIT", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { providerId: c.provider.id, durationMin: 30 });
    await c.asAdmin.clinics.update({ clinic_id: c.clinicId, online_booking: true, max_open_bookings_per_patient: 2 });
    const patient = callerFor(t.db, await createUser(t.db), { now: pinnedNow });
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, k) =>
        outcome(
          patient.onlineBooking.book({
            clinic_id: c.clinicId,
            service_id: service,
            start: new Date(Date.parse("2027-03-15T09:00:00Z") + k * 30 * 60_000),
            patient: { name: "Pat" },
          }),
        ),
      ),
    );
    expect(outcomes.filter((o) => o === "OK")).toHaveLength(2);
    expect(outcomes.filter((o) => o === "BOOKING_LIMIT")).toHaveLength(8);
    expect((await patient.me.appointments({ status: "booked" })).appointments).toHaveLength(2);
  });

  it("the booking-write limit holds across two server processes (two pools on one database)", async () => {
    const second = await openTestDatabase({ url: inject("databaseUrl") });
    try {
      const c = await bookableClinic(t.db);
      const service = await addService(t.db, c.clinicId, { providerId: c.provider.id, durationMin: 30 });
      await c.asAdmin.clinics.update({
        clinic_id: c.clinicId,
        online_booking: true,
        max_open_bookings_per_patient: 100,
      });
      const user = await createUser(t.db);
      const limits = { ...defaultApiLimits, bookingWritesPerMinute: 5 };
      const callers = [t.db, second.db].map((db) =>
        createCallerFactory(appRouter)(createContextInner({ db, user, now: pinnedNow, limits })),
      );
      const outcomes = await Promise.all(
        Array.from({ length: 12 }, (_, k) =>
          outcome(
            (callers[k % 2] ?? callers[0])?.onlineBooking.book({
              clinic_id: c.clinicId,
              service_id: service,
              start: new Date(Date.parse("2027-03-16T09:00:00Z") + k * 30 * 60_000),
              patient: { name: "Pat" },
            }) ?? Promise.resolve(),
          ),
        ),
      );
      expect(outcomes.filter((o) => o === "OK")).toHaveLength(5);
      expect(outcomes.filter((o) => o === "RATE_LIMITED")).toHaveLength(7);
    } finally {
      await second.close();
    }
  });
});
