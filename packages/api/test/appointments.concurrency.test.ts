import { describe, expect, inject, it } from "vitest";
import {
  addHours,
  addMember,
  addService,
  bookableClinic,
  callerFor,
  pinnedNow,
  useTestDatabase,
} from "../testing/index.ts";

const t = useTestDatabase();

// Real parallel connections only exist on the PostgreSQL server (PGlite is one connection), so
// these run when the suite is pointed at one with DATABASE_URL (as .ci/run does).
describe.skipIf(!inject("databaseUrl"))("booking under concurrency (PostgreSQL)", () => {
  it("50 simultaneous bookings of one slot yield exactly one appointment", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { durationMin: 30, providerId: c.provider.id });
    const callers = await Promise.all(
      Array.from({ length: 50 }, () => addMember(t.db, c.clinicId, { role: "BOOKING_AGENT" })),
    );
    const results = await Promise.allSettled(
      callers.map((user, k) =>
        callerFor(t.db, user, { now: pinnedNow }).appointments.book({
          clinic_id: c.clinicId,
          service_id: service,
          start: new Date("2027-03-15T09:00:00Z"),
          patient: { name: `P${String(k)}` },
        }),
      ),
    );
    const ok = results.filter((r) => r.status === "fulfilled");
    const codes = results.flatMap((r) => {
      const reason: unknown = r.status === "rejected" ? r.reason : undefined;
      return typeof reason === "object" && reason !== null && "domainCode" in reason ? [String(reason.domainCode)] : [];
    });
    expect(ok).toHaveLength(1);
    expect(codes).toHaveLength(49);
    expect(new Set(codes)).toEqual(new Set(["SLOT_UNAVAILABLE"]));
    const list = await callerFor(t.db, c.staff).appointments.list({ clinic_id: c.clinicId });
    expect(list.appointments).toHaveLength(1);
  });

  it("concurrent any-provider bookings of one slot fill every free provider, then 409", async () => {
    const c = await bookableClinic(t.db);
    const others = await Promise.all(
      ["B", "C"].map((n) =>
        addMember(t.db, c.clinicId, { isProvider: true, status: "approved", fullName: `${n} Provider` }),
      ),
    );
    for (const p of others) await addHours(t.db, c.clinicId, p.id, [1], "09:00", "17:00");
    const service = await addService(t.db, c.clinicId, { durationMin: 30 });
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, k) =>
        callerFor(t.db, c.custom, { now: pinnedNow }).appointments.book({
          clinic_id: c.clinicId,
          service_id: service,
          start: new Date("2027-03-15T09:00:00Z"),
          patient: { name: `P${String(k)}` },
        }),
      ),
    );
    const booked = results.flatMap((r) => (r.status === "fulfilled" ? [r.value.provider_id] : []));
    const reasons = results.flatMap((r) =>
      r.status === "rejected" ? [r.reason instanceof Error ? r.reason.message : "unknown"] : [],
    );
    expect(booked, reasons.join(" | ")).toHaveLength(3);
    expect(new Set(booked).size).toBe(3);
  });

  it("concurrent retries with one Idempotency-Key book once", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { durationMin: 30, providerId: c.provider.id });
    const request = {
      clinic_id: c.clinicId,
      service_id: service,
      start: new Date("2027-03-15T10:00:00Z"),
      patient: { name: "Once" },
      idempotency_key: "same-key",
    };
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () => callerFor(t.db, c.custom, { now: pinnedNow }).appointments.book(request)),
    );
    const ids = new Set(results.flatMap((r) => (r.status === "fulfilled" ? [r.value.id] : [])));
    expect(ids.size).toBe(1);
    expect(results.every((r) => r.status === "fulfilled")).toBe(true);
  });
});
