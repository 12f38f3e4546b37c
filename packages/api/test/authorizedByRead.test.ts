// B1 authorized by the booking's read (docs/performance.md#authorized-by-the-read): the same answers
// as a clinic procedure that authorizes first — 403 to a non-member and to a member of another
// clinic, 404 to a global ADMIN for a clinic that does not exist, the refusal before a bad input's
// 400 — with one statement less once the process knows the clinic's zone; a zone changed by
// another process is found by the read and the booking lands in the new one.
import { describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { clinics, rateLimitCounters, rowsOf } from "@clinic/db";
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

describe("B1 authorized by its read", () => {
  it("refuses a non-member (403, nothing counted), a member of another clinic, and answers ADMIN 404 for no clinic", async () => {
    const c = await bookableClinic(t.db);
    const other = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { durationMin: 30, providerId: c.provider.id });
    const stranger = await createUser(t.db);
    const request = {
      clinic_id: c.clinicId,
      service_id: service,
      start: new Date("2027-03-15T09:00:00Z"),
      patient: { name: "Pat" },
    };
    // A booking by staff first: this process then knows the clinic's zone, so the next requests
    // are decided by the read itself (the path under test), not by the authorization statement.
    await callerFor(t.db, c.staff, { now: pinnedNow }).appointments.book(request);

    const later = { ...request, start: new Date("2027-03-15T10:00:00Z") };
    expect(await codeOf(callerFor(t.db, stranger, { now: pinnedNow }).appointments.book(later))).toBe("FORBIDDEN");
    expect(await codeOf(callerFor(t.db, other.staff, { now: pinnedNow }).appointments.book(later))).toBe("FORBIDDEN");
    // With an idempotency key too: a refused caller is not answered from a key's booking.
    expect(
      await codeOf(
        callerFor(t.db, stranger, { now: pinnedNow }).appointments.book({ ...later, idempotency_key: "k-stranger" }),
      ),
    ).toBe("FORBIDDEN");
    // The refused read counted nothing against the stranger's booking-write limit.
    const counted = await t.db
      .select({ hits: rateLimitCounters.hits })
      .from(rateLimitCounters)
      .where(eq(rateLimitCounters.key, `booking-writes:${stranger.id}`));
    expect(counted).toEqual([]);

    const admin = await createUser(t.db, { admin: true });
    expect(
      await codeOf(
        callerFor(t.db, admin, { now: pinnedNow }).appointments.book({ ...later, clinic_id: crypto.randomUUID() }),
      ),
    ).toBe("NOT_FOUND");
    // A global ADMIN who is no member books in an existing clinic.
    const byAdmin = await callerFor(t.db, admin, { now: pinnedNow }).appointments.book(later);
    expect(byAdmin.status).toBe("booked");
  });

  it("answers a non-member's bad input with the refusal, not the 400, as when authorization came first", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { durationMin: 30, providerId: c.provider.id });
    const stranger = await createUser(t.db);
    const staff = callerFor(t.db, c.staff, { now: pinnedNow });
    await staff.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: new Date("2027-03-15T09:00:00Z"),
      patient: { name: "Pat" },
    });
    const bad = { clinic_id: c.clinicId, service_id: service, start: new Date("2027-03-15T10:00:00Z"), patient: {} };
    // @ts-expect-error -- the patient's name is missing on purpose
    expect(await codeOf(callerFor(t.db, stranger, { now: pinnedNow }).appointments.book(bad))).toBe("FORBIDDEN");
    // @ts-expect-error -- the same bad input from a member is the 400
    expect(await codeOf(staff.appointments.book(bad))).toBe("VALIDATION_FAILED");
  });

  it("books in the clinic's new zone when another process changed it since this one read it", async () => {
    // Open 09:00–17:00 every weekday; 09:00 in Berlin is 03:00 in New York (closed there).
    const c = await bookableClinic(t.db, { timezone: "Europe/Berlin" });
    const service = await addService(t.db, c.clinicId, { durationMin: 30, providerId: c.provider.id });
    const staff = callerFor(t.db, c.staff, { now: pinnedNow });
    const book = (start: string) =>
      staff.appointments.book({
        clinic_id: c.clinicId,
        service_id: service,
        start: new Date(start),
        patient: { name: "P" },
      });
    // 2027-03-15 09:00 Berlin (CET): this process now knows the zone.
    expect((await book("2027-03-15T08:00:00Z")).status).toBe("booked");
    // Another process's C4, as this one never saw it: straight in the database.
    await t.db.update(clinics).set({ timezone: "America/New_York" }).where(eq(clinics.id, c.clinicId));
    // 2027-03-16 09:00 Berlin = 04:00 New York: closed in the clinic's zone now.
    expect(await codeOf(book("2027-03-16T08:00:00Z"))).toBe("SLOT_UNAVAILABLE");
    // 2027-03-16 09:00 New York (EDT since 2027-03-14) = 13:00 UTC: open.
    const moved = await book("2027-03-16T13:00:00Z");
    expect(moved.status).toBe("booked");
    const [row] = rowsOf<{ n: number }>(
      await t.db.execute(sql`select count(*)::int as n from appointments where clinic_id = ${c.clinicId}::uuid`),
    );
    expect(row?.n).toBe(2);
  });
});
