// A provider's daily limit (CONTRACT §8 v1.4, issue 46; docs/availability.md#a-providers-daily-limit):
// M3 sets it, the Member and provider answers carry it, V1 offers none of the provider's slots on a
// full local date, B1/T2/B5/R1 refuse them with 409 SLOT_UNAVAILABLE, V2 names DAILY_LIMIT.
import { describe, expect, it } from "vitest";
import {
  addHours,
  addProvider,
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

async function limitedClinic(max: number | null, options: Parameters<typeof bookableClinic>[1] = {}) {
  const c = await bookableClinic(t.db, options);
  await c.asAdmin.members.update({ clinic_id: c.clinicId, user_id: c.provider.id, max_daily_appointments: max });
  const service = await addService(t.db, c.clinicId, { providerId: c.provider.id });
  return { ...c, service, booker: callerFor(t.db, c.staff, { now: pinnedNow }) };
}

describe("max_daily_appointments on the membership (M3)", () => {
  it("is set by a CLINIC_ADMIN, 1–100 or null, and carried by the Member and provider answers", async () => {
    const c = await bookableClinic(t.db);
    const set = await c.asAdmin.members.update({
      clinic_id: c.clinicId,
      user_id: c.provider.id,
      max_daily_appointments: 8,
    });
    expect(set.max_daily_appointments).toBe(8);
    const members = await c.asAdmin.members.list({ clinic_id: c.clinicId });
    expect(members.members.find((m) => m.user_id === c.provider.id)?.max_daily_appointments).toBe(8);
    expect(members.members.find((m) => m.user_id === c.staff.id)?.max_daily_appointments).toBeNull();
    const list = await c.asStaff.providers.list({ clinic_id: c.clinicId });
    expect(list.providers[0]?.max_daily_appointments).toBe(8);
    const detail = await c.asStaff.providers.get({ clinic_id: c.clinicId, user_id: c.provider.id });
    expect(detail.max_daily_appointments).toBe(8);
    for (const bad of [0, 101, 2.5])
      expect(
        await codeOf(
          c.asAdmin.members.update({ clinic_id: c.clinicId, user_id: c.provider.id, max_daily_appointments: bad }),
        ),
      ).toBe("VALIDATION_FAILED");
    expect(
      await codeOf(
        c.asStaff.members.update({ clinic_id: c.clinicId, user_id: c.provider.id, max_daily_appointments: 3 }),
      ),
    ).toBe("FORBIDDEN");
    const cleared = await c.asAdmin.members.update({
      clinic_id: c.clinicId,
      user_id: c.provider.id,
      max_daily_appointments: null,
    });
    expect(cleared.max_daily_appointments).toBeNull();
  });
});

describe("a provider's daily limit", () => {
  it("refuses a booking past it (409 SLOT_UNAVAILABLE), V1 offers none of that date, V2 says DAILY_LIMIT", async () => {
    const c = await limitedClinic(2);
    const first = await c.booker.appointments.book({
      clinic_id: c.clinicId,
      service_id: c.service,
      start: at("2027-03-15T09:00:00Z"),
      patient,
    });
    const book = (start: string) =>
      c.booker.appointments.book({ clinic_id: c.clinicId, service_id: c.service, start: at(start), patient });
    // The slots of the day are offered until the limit is reached.
    const before = await c.booker.availability.get({
      clinic_id: c.clinicId,
      service_id: c.service,
      from: "2027-03-15",
      to: "2027-03-16",
    });
    expect(before.slots.some((s) => s.start.toISOString().startsWith("2027-03-15"))).toBe(true);
    await book("2027-03-15T10:00:00Z");
    expect(await codeOf(book("2027-03-15T11:00:00Z"))).toBe("SLOT_UNAVAILABLE");
    const listed = await c.booker.availability.get({
      clinic_id: c.clinicId,
      service_id: c.service,
      from: "2027-03-15",
      to: "2027-03-16",
    });
    expect(listed.slots.some((s) => s.start.toISOString().startsWith("2027-03-15"))).toBe(false);
    expect(listed.slots.some((s) => s.start.toISOString().startsWith("2027-03-16"))).toBe(true);
    const explained = await c.booker.availability.explain({
      clinic_id: c.clinicId,
      service_id: c.service,
      start: at("2027-03-15T11:00:00Z"),
    });
    expect(explained.bookable).toBe(false);
    expect(explained.providers[0]?.reasons).toEqual([
      {
        code: "DAILY_LIMIT",
        detail: "the provider already has 2 appointments on 2027-03-15, their daily limit of 2",
      },
    ]);
    // A canceled appointment occupies no time: the place is free again.
    await c.booker.appointments.cancel({ clinic_id: c.clinicId, id: first.id });
    await book("2027-03-15T11:00:00Z");
  });

  it("counts holds (T2); a move within the day is free, a move into a full day is refused (B5)", async () => {
    const c = await limitedClinic(1);
    const monday = await c.booker.appointments.book({
      clinic_id: c.clinicId,
      service_id: c.service,
      start: at("2027-03-15T09:00:00Z"),
      patient,
    });
    // As if the moved appointment did not exist: its own day is not full for it.
    await c.booker.appointments.reschedule({ clinic_id: c.clinicId, id: monday.id, start: at("2027-03-15T10:00:00Z") });
    await c.booker.appointments.hold({
      clinic_id: c.clinicId,
      service_id: c.service,
      start: at("2027-03-16T09:00:00Z"),
    });
    expect(
      await codeOf(
        c.booker.appointments.book({
          clinic_id: c.clinicId,
          service_id: c.service,
          start: at("2027-03-16T12:00:00Z"),
          patient,
        }),
      ),
    ).toBe("SLOT_UNAVAILABLE");
    expect(
      await codeOf(
        c.booker.appointments.reschedule({ clinic_id: c.clinicId, id: monday.id, start: at("2027-03-16T11:00:00Z") }),
      ),
    ).toBe("SLOT_UNAVAILABLE");
  });

  it("gives an any-provider booking to the next free provider (§6), and a series skips a full day (R1)", async () => {
    const c = await limitedClinic(1);
    const zed = await addProvider(t.db, c.clinicId, "Zed Provider");
    await addHours(t.db, c.clinicId, zed.id, [1, 2, 3, 4, 5], "09:00", "17:00");
    const any = await addService(t.db, c.clinicId, { name: "Any" });
    const staff = callerFor(t.db, c.staff, { now: pinnedNow });
    // One each: Anna (first by name at equal load) is full, so Zed gets the next one.
    await staff.appointments.book({
      clinic_id: c.clinicId,
      service_id: any,
      start: at("2027-03-15T09:00:00Z"),
      provider_id: c.provider.id,
      patient,
    });
    await staff.appointments.book({
      clinic_id: c.clinicId,
      service_id: any,
      start: at("2027-03-15T09:00:00Z"),
      provider_id: zed.id,
      patient,
    });
    const next = await staff.appointments.book({
      clinic_id: c.clinicId,
      service_id: any,
      start: at("2027-03-15T12:00:00Z"),
      patient,
    });
    expect(next.provider_id).toBe(zed.id);
    // A series of Anna's, daily Mon–Wed: Monday is full, so skip_unavailable books Tuesday and Wednesday.
    const series = await staff.series.book({
      clinic_id: c.clinicId,
      service_id: c.service,
      start: at("2027-03-15T14:00:00Z"),
      rrule: "FREQ=DAILY;COUNT=3",
      patient,
      mode: "skip_unavailable",
    });
    expect("occurrences" in series ? series.occurrences.map((o) => o.start.toISOString()) : []).toEqual([
      "2027-03-16T14:00:00.000Z",
      "2027-03-17T14:00:00.000Z",
    ]);
    expect("skipped" in series ? series.skipped.map((s) => s.reasons.map((r) => r.code)) : []).toEqual([
      ["DAILY_LIMIT"],
    ]);
  });

  it("counts by the clinic's local date on a DST day (Europe/Berlin, 2027-03-28 has 23 hours)", async () => {
    const c = await limitedClinic(1, {
      timezone: "Europe/Berlin",
      hours: { weekdays: [1, 2, 3, 4, 5, 6, 7], opens: "00:00", closes: "24:00" },
    });
    const book = (start: string) =>
      c.booker.appointments.book({ clinic_id: c.clinicId, service_id: c.service, start: at(start), patient });
    // 00:30 in Berlin on the 28th is 23:30 UTC on the 27th.
    await book("2027-03-27T23:30:00Z");
    // 23:00 in Berlin on the 28th (21:00Z): the same local date, full.
    expect(await codeOf(book("2027-03-28T21:00:00Z"))).toBe("SLOT_UNAVAILABLE");
    // 23:30 on the 27th (22:30Z) and 00:00 on the 29th (22:00Z on the 28th): other local dates.
    await book("2027-03-27T22:30:00Z");
    await book("2027-03-28T22:00:00Z");
  });
});
