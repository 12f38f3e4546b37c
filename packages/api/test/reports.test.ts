// Reports (CONTRACT §20, docs/reports.md): RP1 utilization and RP2 the appointment list, at the
// procedure level. The figures of a Europe/Berlin week with the spring-forward Sunday (2026-03-29,
// 23 hours) and of the fall-back Sunday (2026-10-25, 25 hours) are computed by hand in the comments
// and in docs/reports.md#a-worked-example.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Db } from "@clinic/db";
import {
  addClosure,
  addHours,
  addProvider,
  addService,
  bookableClinic,
  callerFor,
  clinicFixture,
  codeOf,
  rejectionOf,
  useTestDatabase,
} from "../testing/index.ts";

const t = useTestDatabase();
const zone = "Europe/Berlin";

/** An appointment row written as it would stand after its life at the desk (times are instants). */
async function insertAppointment(
  db: Db,
  a: {
    clinicId: string;
    serviceId: string;
    providerId: string;
    start: string;
    end: string;
    status: string;
    createdAt: string;
    canceledAt?: string;
    heldUntil?: string;
    patientName?: string;
  },
): Promise<string> {
  const result = await db.execute(sql`
    insert into appointments (clinic_id, service_id, provider_id, starts_at, ends_at, occupied_start, occupied_end,
      status, held_until, patient_name, notes, created_at, updated_at, canceled_at)
    values (${a.clinicId}::uuid, ${a.serviceId}::uuid, ${a.providerId}::uuid, ${a.start}::timestamptz, ${a.end}::timestamptz,
      ${a.start}::timestamptz, ${a.end}::timestamptz, ${a.status}, ${a.heldUntil ?? null}::timestamptz,
      ${a.patientName ?? "Pat Patient"}, 'private note', ${a.createdAt}::timestamptz, ${a.createdAt}::timestamptz,
      ${a.canceledAt ?? null}::timestamptz)
    returning id`);
  const rows = (Array.isArray(result) ? result : (result as { rows: { id: string }[] }).rows) as { id: string }[];
  const id = rows[0]?.id;
  if (!id) throw new Error("no appointment");
  return id;
}

/**
 * The DST week of docs/reports.md#a-worked-example, clinic open every day all day, in Berlin:
 * - Anna: Mon–Fri 09:00–17:00 and Sunday 00:00–24:00; 30 min taken in another clinic on Monday,
 *   90 min of calendar busy time on Tuesday, a clinic closure 12:00–13:00 on Friday.
 * - Ben: Mon–Fri 08:00–12:00; an override 14:00–16:00 on Wednesday, a closure 10:00–11:00 on
 *   Thursday; a stale calendar (left out of reports).
 * - Cleo: suspended (no available time).
 * Consultation is unassigned (Anna and Ben); Massage is Ben's.
 */
async function dstWeek() {
  const f = await clinicFixture(t.db, { timezone: zone });
  const anna = await addProvider(t.db, f.clinicId, "Anna Berg");
  const ben = await addProvider(t.db, f.clinicId, "Ben Cole");
  const cleo = await addProvider(t.db, f.clinicId, "Cleo Dunn", { status: "suspended" });
  await addHours(t.db, f.clinicId, null, [1, 2, 3, 4, 5, 6, 7], "00:00", "24:00");
  await addHours(t.db, f.clinicId, anna.id, [1, 2, 3, 4, 5], "09:00", "17:00");
  await addHours(t.db, f.clinicId, anna.id, [7], "00:00", "24:00");
  await addHours(t.db, f.clinicId, ben.id, [1, 2, 3, 4, 5], "08:00", "12:00");
  await addHours(t.db, f.clinicId, cleo.id, [1, 2, 3, 4, 5], "08:00", "12:00");
  const consultation = await addService(t.db, f.clinicId, { name: "Consultation", durationMin: 30 });
  const massage = await addService(t.db, f.clinicId, { name: "Massage", durationMin: 30, providerId: ben.id });
  await f.asAdmin.dateOverrides.putProvider({
    clinic_id: f.clinicId,
    provider_id: ben.id,
    date: "2026-03-25",
    periods: [{ opens_at: "14:00", closes_at: "16:00" }],
  });
  // Thursday 10:00–11:00 CET; Friday 12:00–13:00 CET.
  await addClosure(t.db, f.clinicId, ben.id, "2026-03-26T09:00:00Z", "2026-03-26T10:00:00Z");
  await addClosure(t.db, f.clinicId, null, "2026-03-27T11:00:00Z", "2026-03-27T12:00:00Z");
  // Anna's calendar: Tuesday 09:00–10:30 CET. Ben's calendar is stale: a row that spans all time.
  await t.db
    .execute(sql`insert into calendar_busy (clinic_id, provider_id, calendar_clinic_id, calendar_id, starts_at, ends_at, stale)
    values (${f.clinicId}::uuid, ${anna.id}::uuid, ${f.clinicId}::uuid, gen_random_uuid(), '2026-03-24T08:00:00Z', '2026-03-24T09:30:00Z', false),
           (${f.clinicId}::uuid, ${ben.id}::uuid, ${f.clinicId}::uuid, gen_random_uuid(), '2000-01-01T00:00:00Z', '2100-01-01T00:00:00Z', true)`);
  // Anna also works in another clinic, where she is booked Monday 09:00–09:30 CET.
  const other = await bookableClinic(t.db, { timezone: zone });
  await other.asAdmin.members.add({
    clinic_id: other.clinicId,
    email: anna.email,
    user_id: anna.id,
    full_name: "Anna elsewhere",
    is_provider: true,
  });
  await other.asAdmin.providers.approve({ clinic_id: other.clinicId, user_id: anna.id });
  await addHours(t.db, other.clinicId, anna.id, [1], "09:00", "17:00");
  const otherService = await addService(t.db, other.clinicId, { providerId: anna.id, durationMin: 30 });
  await callerFor(t.db, other.staff, { now: () => new Date("2026-03-01T00:00:00Z") }).appointments.book({
    clinic_id: other.clinicId,
    service_id: otherService,
    start: new Date("2026-03-23T08:00:00Z"),
    patient: { name: "Elsewhere Patient" },
  });

  const add = (a: Omit<Parameters<typeof insertAppointment>[1], "clinicId">) =>
    insertAppointment(t.db, { clinicId: f.clinicId, ...a });
  const ids = {
    // 1. Anna, Mon 10:00–11:00, completed; booked 72 h ahead.
    monday: await add({
      serviceId: consultation,
      providerId: anna.id,
      start: "2026-03-23T09:00:00Z",
      end: "2026-03-23T10:00:00Z",
      status: "completed",
      createdAt: "2026-03-20T09:00:00Z",
    }),
    // 2. Anna, Tue 11:00–11:30, no-show; 24 h ahead.
    tuesday: await add({
      serviceId: consultation,
      providerId: anna.id,
      start: "2026-03-24T10:00:00Z",
      end: "2026-03-24T10:30:00Z",
      status: "no_show",
      createdAt: "2026-03-23T10:00:00Z",
    }),
    // 3. Ben, Wed 14:00–15:00 (his override), booked; 6 h ahead.
    wednesday: await add({
      serviceId: massage,
      providerId: ben.id,
      start: "2026-03-25T13:00:00Z",
      end: "2026-03-25T14:00:00Z",
      status: "booked",
      createdAt: "2026-03-25T07:00:00Z",
    }),
    // 4. Ben, Thu 08:00–08:30, canceled 12 h before its start (inside the 24 h cutoff: late); 384 h ahead.
    thursday: await add({
      serviceId: consultation,
      providerId: ben.id,
      start: "2026-03-26T07:00:00Z",
      end: "2026-03-26T07:30:00Z",
      status: "canceled",
      createdAt: "2026-03-10T07:00:00Z",
      canceledAt: "2026-03-25T19:00:00Z",
    }),
    // 5. Anna, Fri 09:00–10:00, canceled a week before (not late); 624 h ahead.
    friday: await add({
      serviceId: consultation,
      providerId: anna.id,
      start: "2026-03-27T08:00:00Z",
      end: "2026-03-27T09:00:00Z",
      status: "canceled",
      createdAt: "2026-03-01T08:00:00Z",
      canceledAt: "2026-03-20T08:00:00Z",
    }),
    // 9. Ben, Fri 09:00–09:45, pending (occupies time); 24 h ahead.
    pending: await add({
      serviceId: massage,
      providerId: ben.id,
      start: "2026-03-27T08:00:00Z",
      end: "2026-03-27T08:45:00Z",
      status: "pending",
      createdAt: "2026-03-26T08:00:00Z",
    }),
    // 6. Anna, Sun 01:00 CET – 04:00 CEST: two real hours across the jump; completed; 24 h ahead.
    sunday: await add({
      serviceId: consultation,
      providerId: anna.id,
      start: "2026-03-29T00:00:00Z",
      end: "2026-03-29T02:00:00Z",
      status: "completed",
      createdAt: "2026-03-28T00:00:00Z",
    }),
    // 7. Anna, Sun 10:00–10:30 CEST, held: counts nowhere.
    held: await add({
      serviceId: consultation,
      providerId: anna.id,
      start: "2026-03-29T08:00:00Z",
      end: "2026-03-29T08:30:00Z",
      status: "held",
      heldUntil: "2099-01-01T00:00:00Z",
      createdAt: "2026-03-29T07:55:00Z",
    }),
    // 8. Ben, Sun 22 23:30 – Mon 00:30 CET: 30 min inside the range, on Monday; 3.5 h ahead.
    before: await add({
      serviceId: consultation,
      providerId: ben.id,
      start: "2026-03-22T22:30:00Z",
      end: "2026-03-22T23:30:00Z",
      status: "booked",
      createdAt: "2026-03-22T19:00:00Z",
    }),
    // 8'. Anna, Sun 29 23:30 – Mon 00:30 CEST: 30 min inside the range, on Sunday; 0.5 h ahead.
    after: await add({
      serviceId: consultation,
      providerId: anna.id,
      start: "2026-03-29T21:30:00Z",
      end: "2026-03-29T22:30:00Z",
      status: "booked",
      createdAt: "2026-03-29T21:00:00Z",
    }),
    // Outside the range: Mon 30 10:00 CEST.
    outside: await add({
      serviceId: consultation,
      providerId: anna.id,
      start: "2026-03-30T08:00:00Z",
      end: "2026-03-30T08:30:00Z",
      status: "booked",
      createdAt: "2026-03-29T08:00:00Z",
    }),
  };
  return { ...f, anna, ben, cleo, consultation, massage, other, ids };
}

const week = { from: "2026-03-23", to: "2026-03-29" };

describe("RP1 utilization on a DST week (Europe/Berlin, 2026-03-23 … 2026-03-29)", () => {
  it("by day: a 23-hour Sunday has 23 hours; every figure as computed by hand", async () => {
    const w = await dstWeek();
    const { rows } = await w.asAdmin.reports.utilization({ clinic_id: w.clinicId, ...week, group_by: "day" });
    const pick = rows.map((r) => [
      r.key,
      r.available_minutes,
      r.booked_minutes,
      r.utilization,
      r.appointments,
      r.completed,
      r.no_show,
      r.canceled,
      r.canceled_late,
      r.no_show_rate,
      r.median_lead_time_hours,
    ]);
    expect(pick).toEqual([
      // key, available, booked, utilization, appointments, completed, no_show, canceled, late, rate, median lead
      ["2026-03-23", 690, 90, 0.1304, 2, 1, 0, 0, 0, 0, 37.75],
      ["2026-03-24", 630, 30, 0.0476, 1, 0, 1, 0, 0, 1, 24],
      ["2026-03-25", 600, 60, 0.1, 1, 0, 0, 0, 0, null, 6],
      ["2026-03-26", 660, 0, 0, 1, 0, 0, 1, 1, null, 384],
      ["2026-03-27", 660, 45, 0.0682, 2, 0, 0, 1, 0, null, 324],
      ["2026-03-28", 0, 0, null, 0, 0, 0, 0, 0, null, null],
      ["2026-03-29", 1380, 150, 0.1087, 2, 1, 0, 0, 0, 0, 12.25],
    ]);
    expect(rows.map((r) => r.label)).toEqual(rows.map((r) => r.key));
  });

  it("by week and by month: one row with the week's totals", async () => {
    const w = await dstWeek();
    const total = {
      available_minutes: 4620,
      booked_minutes: 375,
      utilization: 0.0812,
      appointments: 9,
      completed: 2,
      no_show: 1,
      canceled: 2,
      canceled_late: 1,
      no_show_rate: 0.3333,
      median_lead_time_hours: 24,
    };
    const byWeek = await w.asAdmin.reports.utilization({ clinic_id: w.clinicId, ...week, group_by: "week" });
    expect(byWeek.rows).toEqual([{ key: "2026-03-23", label: "2026-W13", ...total }]);
    const byMonth = await w.asAdmin.reports.utilization({ clinic_id: w.clinicId, ...week, group_by: "month" });
    expect(byMonth.rows).toEqual([{ key: "2026-03-01", label: "2026-03", ...total }]);
  });

  it("by provider: each provider's own time; a suspended provider has none and no row", async () => {
    const w = await dstWeek();
    const { rows } = await w.asAdmin.reports.utilization({ clinic_id: w.clinicId, ...week, group_by: "provider" });
    expect(
      rows.map((r) => [r.key, r.label, r.available_minutes, r.booked_minutes, r.utilization, r.appointments]),
    ).toEqual([
      [w.anna.id, "Anna Berg", 3600, 240, 0.0667, 5],
      [w.ben.id, "Ben Cole", 1020, 135, 0.1324, 4],
    ]);
  });

  it("by service: the time of the providers who may deliver it", async () => {
    const w = await dstWeek();
    const { rows } = await w.asAdmin.reports.utilization({ clinic_id: w.clinicId, ...week, group_by: "service" });
    expect(
      rows.map((r) => [r.key, r.label, r.available_minutes, r.booked_minutes, r.utilization, r.appointments]),
    ).toEqual([
      [w.consultation, "Consultation", 4620, 270, 0.0584, 7],
      [w.massage, "Massage", 1020, 105, 0.1029, 2],
    ]);
  });

  it("filters: provider_id and service_id narrow both the appointments and the available time", async () => {
    const w = await dstWeek();
    const ben = await w.asAdmin.reports.utilization({
      clinic_id: w.clinicId,
      ...week,
      group_by: "week",
      provider_id: w.ben.id,
    });
    expect(ben.rows.map((r) => [r.available_minutes, r.booked_minutes, r.appointments, r.canceled_late])).toEqual([
      [1020, 135, 4, 1],
    ]);
    const massage = await w.asAdmin.reports.utilization({
      clinic_id: w.clinicId,
      ...week,
      group_by: "day",
      service_id: w.massage,
    });
    expect(massage.rows.map((r) => [r.key, r.available_minutes, r.booked_minutes])).toEqual([
      ["2026-03-23", 240, 0],
      ["2026-03-24", 240, 0],
      ["2026-03-25", 120, 60],
      ["2026-03-26", 180, 0],
      ["2026-03-27", 240, 45],
      ["2026-03-28", 0, 0],
      ["2026-03-29", 0, 0],
    ]);
  });

  it("the clinic's own appointments never make time unavailable (utilization = booked ÷ available)", async () => {
    const w = await dstWeek();
    // Ben's Wednesday is his override's 120 minutes, though 60 of them are booked.
    const { rows } = await w.asAdmin.reports.utilization({
      clinic_id: w.clinicId,
      from: "2026-03-25",
      to: "2026-03-25",
      group_by: "provider",
      provider_id: w.ben.id,
    });
    expect(rows.map((r) => [r.available_minutes, r.booked_minutes, r.utilization])).toEqual([[120, 60, 0.5]]);
  });
});

describe("RP1 on the fall-back Sunday (2026-10-25, 25 hours)", () => {
  it("a 25-hour day has 25 hours, and an appointment across the repeated hour counts its real minutes", async () => {
    const f = await clinicFixture(t.db, { timezone: zone });
    const anna = await addProvider(t.db, f.clinicId, "Anna Berg");
    await addHours(t.db, f.clinicId, null, [7], "00:00", "24:00");
    await addHours(t.db, f.clinicId, anna.id, [7], "00:00", "24:00");
    const service = await addService(t.db, f.clinicId, { name: "Night watch", durationMin: 60 });
    // 02:30 CEST (00:30Z) to 02:30 CET (01:30Z): one wall-clock "nothing", one real hour.
    await insertAppointment(t.db, {
      clinicId: f.clinicId,
      serviceId: service,
      providerId: anna.id,
      start: "2026-10-25T00:30:00Z",
      end: "2026-10-25T01:30:00Z",
      status: "completed",
      createdAt: "2026-10-24T00:30:00Z",
    });
    const { rows } = await f.asAdmin.reports.utilization({
      clinic_id: f.clinicId,
      from: "2026-10-24",
      to: "2026-10-25",
      group_by: "day",
    });
    expect(
      rows.map((r) => [r.key, r.available_minutes, r.booked_minutes, r.utilization, r.median_lead_time_hours]),
    ).toEqual([
      ["2026-10-24", 0, 0, null, null],
      ["2026-10-25", 1500, 60, 0.04, 24],
    ]);
  });

  it("keys are clinic-local: an appointment at 00:30 local on the 1st is in that month, though it is the 31st in UTC", async () => {
    const f = await clinicFixture(t.db, { timezone: zone });
    const anna = await addProvider(t.db, f.clinicId, "Anna Berg");
    const service = await addService(t.db, f.clinicId, { name: "Early" });
    await insertAppointment(t.db, {
      clinicId: f.clinicId,
      serviceId: service,
      providerId: anna.id,
      start: "2026-11-30T23:30:00Z",
      end: "2026-12-01T00:00:00Z",
      status: "booked",
      createdAt: "2026-11-01T00:00:00Z",
    });
    const { rows } = await f.asAdmin.reports.utilization({
      clinic_id: f.clinicId,
      from: "2026-11-30",
      to: "2026-12-06",
      group_by: "month",
    });
    expect(rows.map((r) => [r.key, r.label, r.appointments, r.booked_minutes])).toEqual([
      ["2026-11-01", "2026-11", 0, 0],
      ["2026-12-01", "2026-12", 1, 30],
    ]);
    const weeks = await f.asAdmin.reports.utilization({
      clinic_id: f.clinicId,
      from: "2026-11-29",
      to: "2026-12-06",
      group_by: "week",
    });
    // The first week's key is its Monday, before the range.
    expect(weeks.rows.map((r) => [r.key, r.label, r.appointments])).toEqual([
      ["2026-11-23", "2026-W48", 0],
      ["2026-11-30", "2026-W49", 1],
    ]);
  });
});

describe("RP2 the appointment list", () => {
  it("one row per appointment of the range, by start, without notes and answers; held only when asked", async () => {
    const w = await dstWeek();
    const { rows } = await w.asAdmin.reports.appointments({ clinic_id: w.clinicId, ...week });
    expect(rows.map((r) => r.id)).toEqual([
      w.ids.before,
      w.ids.monday,
      w.ids.tuesday,
      w.ids.wednesday,
      w.ids.thursday,
      // Same start: by id.
      ...[w.ids.friday, w.ids.pending].sort(),
      w.ids.sunday,
      w.ids.after,
    ]);
    const sunday = rows.find((r) => r.id === w.ids.sunday);
    expect(sunday).toMatchObject({
      start: new Date("2026-03-29T00:00:00Z"),
      end: new Date("2026-03-29T02:00:00Z"),
      start_local: "2026-03-29T01:00",
      status: "completed",
      provider_id: w.anna.id,
      provider_name: "Anna Berg",
      service_id: w.consultation,
      service_name: "Consultation",
      duration_min: 120,
      patient_name: "Pat Patient",
      lead_time_hours: 24,
      canceled_at: null,
      canceled_late: false,
    });
    const thursday = rows.find((r) => r.id === w.ids.thursday);
    expect(thursday?.canceled_late).toBe(true);
    expect(rows.find((r) => r.id === w.ids.friday)?.canceled_late).toBe(false);
    for (const row of rows) {
      expect(row).not.toHaveProperty("notes");
      expect(row).not.toHaveProperty("answers");
    }
    const held = await w.asAdmin.reports.appointments({ clinic_id: w.clinicId, ...week, status: "held" });
    expect(held.rows.map((r) => r.id)).toEqual([w.ids.held]);
    const some = await w.asAdmin.reports.appointments({
      clinic_id: w.clinicId,
      ...week,
      status: "canceled,no_show",
      provider_id: w.anna.id,
    });
    expect(some.rows.map((r) => r.id)).toEqual([w.ids.tuesday, w.ids.friday]);
  });

  it("RP2 agrees with RP1: the rows of a range are RP1's appointments", async () => {
    const w = await dstWeek();
    const list = await w.asAdmin.reports.appointments({ clinic_id: w.clinicId, ...week, service_id: w.massage });
    const util = await w.asAdmin.reports.utilization({
      clinic_id: w.clinicId,
      ...week,
      group_by: "week",
      service_id: w.massage,
    });
    expect(list.rows.length).toBe(util.rows[0]?.appointments);
  });
});

describe("who may read reports, and what is asked", () => {
  it("CLINIC_ADMIN only: STAFF and custom roles 403; an admin of another clinic 403; an unknown clinic for ADMIN 404", async () => {
    const f = await clinicFixture(t.db, { timezone: zone });
    const other = await clinicFixture(t.db);
    const ask = { clinic_id: f.clinicId, ...week, group_by: "day" as const };
    expect(await codeOf(f.asStaff.reports.utilization(ask))).toBe("FORBIDDEN");
    expect(await codeOf(f.asCustom.reports.appointments({ clinic_id: f.clinicId, ...week }))).toBe("FORBIDDEN");
    expect(await codeOf(other.asAdmin.reports.utilization(ask))).toBe("FORBIDDEN");
    expect((await f.asAdmin.reports.utilization(ask)).rows).toHaveLength(7);
  });

  it("a provider or service of another clinic is 404, as a missing one", async () => {
    const f = await clinicFixture(t.db, { timezone: zone });
    const other = await bookableClinic(t.db);
    const foreignService = await addService(t.db, other.clinicId);
    const base = { clinic_id: f.clinicId, ...week };
    expect(
      await codeOf(f.asAdmin.reports.utilization({ ...base, group_by: "provider", provider_id: other.provider.id })),
    ).toBe("NOT_FOUND");
    expect(await codeOf(f.asAdmin.reports.utilization({ ...base, group_by: "day", service_id: foreignService }))).toBe(
      "NOT_FOUND",
    );
    expect(await codeOf(f.asAdmin.reports.appointments({ ...base, provider_id: other.provider.id }))).toBe("NOT_FOUND");
    expect(await codeOf(f.asAdmin.reports.appointments({ ...base, service_id: foreignService }))).toBe("NOT_FOUND");
  });

  it("validation: at most 366 dates, to not before from, group_by and status enums, date format", async () => {
    const f = await clinicFixture(t.db, { timezone: zone });
    const ask = (input: Record<string, unknown>) =>
      rejectionOf(f.asAdmin.reports.utilization({ clinic_id: f.clinicId, group_by: "day", ...week, ...input }));
    // A leap year's 366 dates are one report, and so are 2027-01-01 … 2028-01-01; a day more is not.
    const leap = await f.asAdmin.reports.utilization({
      clinic_id: f.clinicId,
      from: "2028-01-01",
      to: "2028-12-31",
      group_by: "month",
    });
    expect(leap.rows).toHaveLength(12);
    expect(await ask({ from: "2027-01-01", to: "2028-01-02" })).toMatchObject({
      domainCode: "VALIDATION_FAILED",
      errors: [{ path: "to" }],
    });
    expect(await ask({ from: "2026-03-29", to: "2026-03-23" })).toMatchObject({
      domainCode: "VALIDATION_FAILED",
      errors: [{ path: "to" }],
    });
    expect(await ask({ group_by: "year" })).toMatchObject({
      domainCode: "VALIDATION_FAILED",
      errors: [{ path: "group_by" }],
    });
    expect(await ask({ from: "2026-3-1" })).toMatchObject({
      domainCode: "VALIDATION_FAILED",
      errors: [{ path: "from" }],
    });
    expect(
      await rejectionOf(f.asAdmin.reports.appointments({ clinic_id: f.clinicId, ...week, status: "booked,later" })),
    ).toMatchObject({ domainCode: "VALIDATION_FAILED", errors: [{ path: "status" }] });
  });

  it("nothing available and nothing booked: utilization and no_show_rate are null, counts 0", async () => {
    const f = await clinicFixture(t.db, { timezone: zone });
    const { rows } = await f.asAdmin.reports.utilization({
      clinic_id: f.clinicId,
      from: "2026-03-23",
      to: "2026-03-24",
      group_by: "day",
    });
    expect(rows).toEqual(
      ["2026-03-23", "2026-03-24"].map((key) => ({
        key,
        label: key,
        available_minutes: 0,
        booked_minutes: 0,
        utilization: null,
        appointments: 0,
        completed: 0,
        no_show: 0,
        canceled: 0,
        canceled_late: 0,
        no_show_rate: null,
        median_lead_time_hours: null,
      })),
    );
  });
});
