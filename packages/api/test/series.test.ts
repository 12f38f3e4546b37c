// Series (courses of treatment, CONTRACT §14 R1–R3): the rule expanded in the clinic's zone across
// DST, all or nothing, skip_unavailable, dry runs, idempotency, one message, and cancelling.
import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { messages, rowsOf } from "@clinic/db";
import {
  addService,
  bookableClinic,
  callerFor,
  codeOf,
  pinnedNow,
  rejectionOf,
  useTestDatabase,
} from "../testing/index.ts";

const t = useTestDatabase();
const iso = (d: Date) => d.toISOString();

/** A clinic in `timezone` open Monday to Friday 08:00–18:00 local, with a 45-minute service. */
async function seriesClinic(timezone: string) {
  const c = await bookableClinic(t.db, {
    timezone,
    hours: { weekdays: [1, 2, 3, 4, 5], opens: "08:00", closes: "18:00" },
  });
  const service = await addService(t.db, c.clinicId, { name: "Physio", providerId: c.provider.id, durationMin: 45 });
  await c.asAdmin.services.update({ clinic_id: c.clinicId, id: service, slot_step_min: 15 });
  const staff = callerFor(t.db, c.staff, { now: pinnedNow });
  const book = (input: {
    start: Date;
    rrule: string;
    mode?: "all_or_nothing" | "skip_unavailable";
    dry_run?: boolean;
    idempotency_key?: string;
    email?: string;
  }) =>
    staff.series.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: input.start,
      rrule: input.rrule,
      patient: { name: "Pat Course", ...(input.email ? { email: input.email } : {}) },
      ...(input.mode ? { mode: input.mode } : {}),
      ...(input.dry_run === undefined ? {} : { dry_run: input.dry_run }),
      ...(input.idempotency_key ? { idempotency_key: input.idempotency_key } : {}),
    });
  const appointmentCount = async () =>
    (await staff.appointments.list({ clinic_id: c.clinicId, limit: 200 })).appointments.filter(
      (a) => a.status !== "canceled",
    ).length;
  return { ...c, service, staff, book, appointmentCount };
}

function booked(answer: Awaited<ReturnType<Awaited<ReturnType<typeof seriesClinic>>["book"]>>) {
  if ("dry_run" in answer) throw new Error("expected a booked series");
  return answer;
}

describe("series (R1–R3)", () => {
  it("keeps 09:00 in Europe/Berlin across the spring change: every Tuesday, four times", async () => {
    const s = await seriesClinic("Europe/Berlin");
    const series = booked(
      await s.book({ start: new Date("2027-03-16T08:00:00Z"), rrule: "FREQ=WEEKLY;BYDAY=TU;COUNT=4" }),
    );
    expect(series.occurrences.map((a) => iso(a.start))).toEqual([
      "2027-03-16T08:00:00.000Z",
      "2027-03-23T08:00:00.000Z",
      "2027-03-30T07:00:00.000Z",
      "2027-04-06T07:00:00.000Z",
    ]);
    expect(series.occurrences.every((a) => a.series_id === series.id && a.status === "booked")).toBe(true);
    expect(series.skipped).toEqual([]);
    // The service names its provider: the series says so, though the request left provider_id out.
    expect(series.provider_id).toBe(s.provider.id);
    expect(series.occurrences.every((a) => a.provider_id === s.provider.id)).toBe(true);
    expect(await s.staff.series.get({ clinic_id: s.clinicId, id: series.id })).toEqual(series);
  });

  it("keeps 09:00 in America/New_York across the spring change, and across the autumn one", async () => {
    const s = await seriesClinic("America/New_York");
    const spring = booked(await s.book({ start: new Date("2027-03-02T14:00:00Z"), rrule: "FREQ=WEEKLY;COUNT=3" }));
    expect(spring.occurrences.map((a) => iso(a.start))).toEqual([
      "2027-03-02T14:00:00.000Z",
      "2027-03-09T14:00:00.000Z",
      "2027-03-16T13:00:00.000Z",
    ]);
    const autumn = booked(
      await s.book({ start: new Date("2027-10-28T13:00:00Z"), rrule: "FREQ=DAILY;INTERVAL=7;UNTIL=20271111" }),
    );
    expect(autumn.occurrences.map((a) => iso(a.start))).toEqual([
      "2027-10-28T13:00:00.000Z",
      "2027-11-04T13:00:00.000Z",
      "2027-11-11T14:00:00.000Z",
    ]);
  });

  it("all_or_nothing: a conflict in occurrence 7 of 10 books nothing and names it with its §8 reason", async () => {
    const s = await seriesClinic("Europe/Berlin");
    const seventh = new Date("2027-04-27T07:00:00Z");
    await s.staff.appointments.book({
      clinic_id: s.clinicId,
      service_id: s.service,
      start: seventh,
      patient: { name: "In the way" },
    });
    const rejection = await rejectionOf(
      s.book({ start: new Date("2027-03-16T08:00:00Z"), rrule: "FREQ=WEEKLY;BYDAY=TU;COUNT=10" }),
    );
    expect(rejection.domainCode).toBe("SLOT_UNAVAILABLE");
    const conflicts = rejection.extra?.conflicts as { start: string; reasons: { code: string }[] }[];
    expect(conflicts.map((c) => c.start)).toEqual([iso(seventh)]);
    expect(conflicts[0]?.reasons.map((r) => r.code)).toContain("BOOKED");
    expect(await s.appointmentCount()).toBe(1);
  });

  it("skip_unavailable books the free ones and lists the others; a dry run shows the same and writes nothing", async () => {
    const s = await seriesClinic("Europe/Berlin");
    const third = new Date("2027-03-30T07:00:00Z");
    await s.asAdmin.closures.createClinic({
      clinic_id: s.clinicId,
      starts_at: third,
      ends_at: new Date(third.getTime() + 3_600_000),
      reason: "Team meeting",
    });
    const input = { start: new Date("2027-03-16T08:00:00Z"), rrule: "FREQ=WEEKLY;BYDAY=TU;COUNT=5" } as const;
    const dry = await s.book({ ...input, dry_run: true });
    if (!("dry_run" in dry)) throw new Error("expected a dry run");
    expect(dry.bookable).toBe(false);
    // The free ones only: the closed date is a conflict, not an occurrence (issue 46).
    expect(dry.occurrences.map((o) => iso(o.start))).not.toContain(iso(third));
    expect(dry.occurrences).toHaveLength(4);
    expect(dry.conflicts[0]?.reasons.map((r) => r.code)).toEqual(["CLINIC_CLOSURE"]);
    // all_or_nothing skips nothing (it would refuse): `skipped` is there, and empty.
    expect(dry.skipped).toEqual([]);
    expect(dry.provider_id).toBe(s.provider.id);
    expect(await s.appointmentCount()).toBe(0);
    const dryAll = await s.book({ ...input, mode: "skip_unavailable", dry_run: true });
    if (!("dry_run" in dryAll)) throw new Error("expected a dry run");
    expect(dryAll.bookable).toBe(true);
    expect(dryAll.skipped.map((k) => iso(k.start))).toEqual([iso(third)]);
    // The dry run shows exactly what the real request books: the skipped date only under `skipped`.
    expect(dryAll.occurrences.map((o) => iso(o.start))).not.toContain(iso(third));
    expect(dryAll.occurrences.every((o) => o.bookable)).toBe(true);
    const series = booked(await s.book({ ...input, mode: "skip_unavailable" }));
    expect(series.occurrences).toHaveLength(4);
    expect(series.occurrences.map((a) => iso(a.start))).toEqual(dryAll.occurrences.map((o) => iso(o.start)));
    expect(series.occurrences.map((a) => a.provider_id)).toEqual(dryAll.occurrences.map((o) => o.provider_id));
    expect(series.skipped.map((k) => iso(k.start))).toEqual(dryAll.skipped.map((k) => iso(k.start)));
    expect(series.skipped.map((k) => iso(k.start))).toEqual([iso(third)]);
    expect(series.skipped[0]?.reasons[0]?.code).toBe("CLINIC_CLOSURE");
    expect(await s.appointmentCount()).toBe(4);
  });

  it("every bad RRULE is a 400 naming the part that is wrong", async () => {
    const s = await seriesClinic("UTC");
    const start = new Date("2027-03-16T09:00:00Z");
    const cases: [string, string][] = [
      ["FREQ=MONTHLY;COUNT=3", "rrule.FREQ"],
      ["FREQ=WEEKLY;COUNT=105", "rrule.COUNT"],
      ["FREQ=WEEKLY;COUNT=0", "rrule.COUNT"],
      ["FREQ=WEEKLY", "rrule.COUNT"],
      ["FREQ=WEEKLY;COUNT=3;UNTIL=20270401", "rrule.COUNT"],
      ["FREQ=WEEKLY;UNTIL=20300101", "rrule.UNTIL"],
      ["FREQ=WEEKLY;BYDAY=XX;COUNT=3", "rrule.BYDAY"],
      ["FREQ=WEEKLY;BYDAY=MO;COUNT=3", "rrule.BYDAY"],
      ["FREQ=WEEKLY;INTERVAL=0;COUNT=3", "rrule.INTERVAL"],
      ["FREQ=WEEKLY;BYMONTH=3;COUNT=3", "rrule.BYMONTH"],
      ["FREQ=WEEKLY;COLOR=red;COUNT=3", "rrule.COLOR"],
      ["FREQ=DAILY;UNTIL=20290301", "rrule.UNTIL"],
      ["FREQ=WEEKLY;INTERVAL=52;COUNT=10", "rrule.COUNT"],
      ["nonsense", "rrule"],
    ];
    for (const [rrule, path] of cases) {
      const rejection = await rejectionOf(s.book({ start, rrule }));
      expect([rrule, rejection.domainCode, rejection.message.split(":")[0]]).toEqual([
        rrule,
        "VALIDATION_FAILED",
        path,
      ]);
    }
    expect(await s.appointmentCount()).toBe(0);
  });

  it("an Idempotency-Key replays the series; the same key with another request is refused", async () => {
    const s = await seriesClinic("UTC");
    const input = { start: new Date("2027-03-16T09:00:00Z"), rrule: "FREQ=DAILY;COUNT=3", idempotency_key: "course-1" };
    const first = booked(await s.book(input));
    const again = booked(await s.book(input));
    expect(again.id).toBe(first.id);
    expect(await s.appointmentCount()).toBe(3);
    expect(await codeOf(s.book({ ...input, rrule: "FREQ=DAILY;COUNT=4" }))).toBe("IDEMPOTENCY_KEY_REUSED");
  });

  it("tells the patient once, and an occurrence moved or canceled alone stays in its series", async () => {
    const s = await seriesClinic("UTC");
    const series = booked(
      await s.book({
        start: new Date("2027-03-15T09:00:00Z"),
        rrule: "FREQ=DAILY;BYDAY=MO,WE,FR;COUNT=6",
        email: "pat@example.test",
      }),
    );
    expect(series.occurrences.map((a) => iso(a.start).slice(0, 10))).toEqual([
      "2027-03-15",
      "2027-03-17",
      "2027-03-19",
      "2027-03-22",
      "2027-03-24",
      "2027-03-26",
    ]);
    const planned = await t.db
      .select({ kind: messages.kind, data: messages.data })
      .from(messages)
      .where(and(eq(messages.clinicId, s.clinicId)));
    expect(planned.map((m) => m.kind)).toEqual(["booked"]);
    const [second, third] = series.occurrences.slice(1, 3);
    if (!second || !third) throw new Error("expected occurrences");
    const moved = await s.staff.appointments.reschedule({
      clinic_id: s.clinicId,
      id: second.id,
      start: new Date("2027-03-17T11:00:00Z"),
    });
    expect(moved.series_id).toBe(series.id);
    const canceled = await s.staff.appointments.cancel({ clinic_id: s.clinicId, id: third.id });
    expect(canceled.series_id).toBe(series.id);
    const after = await s.staff.series.get({ clinic_id: s.clinicId, id: series.id });
    expect(after.occurrences.map((a) => a.status)).toEqual([
      "booked",
      "booked",
      "canceled",
      "booked",
      "booked",
      "booked",
    ]);
  });

  it("R3 cancels from an occurrence on, then all that are left, with one message each time", async () => {
    const s = await seriesClinic("UTC");
    const series = booked(
      await s.book({
        start: new Date("2027-03-15T09:00:00Z"),
        rrule: "FREQ=WEEKLY;COUNT=5",
        email: "pat@example.test",
      }),
    );
    const fourth = series.occurrences[3];
    if (!fourth) throw new Error("expected occurrences");
    expect(
      await codeOf(
        s.staff.series.cancel({ clinic_id: s.clinicId, id: series.id, from: new Date("2027-03-15T10:00:00Z") }),
      ),
    ).toBe("VALIDATION_FAILED");
    const fromFourth = await s.staff.series.cancel({ clinic_id: s.clinicId, id: series.id, from: fourth.start });
    expect(fromFourth.occurrences.map((a) => a.status)).toEqual(["booked", "booked", "booked", "canceled", "canceled"]);
    const all = await s.staff.series.cancel({ clinic_id: s.clinicId, id: series.id });
    expect(all.occurrences.every((a) => a.status === "canceled")).toBe(true);
    const kinds = rowsOf<{ kind: string; n: number }>(
      await t.db.execute(
        sql`select kind, count(*)::int as n from messages where clinic_id = ${s.clinicId}::uuid group by kind order by kind`,
      ),
    );
    expect(kinds).toEqual([
      { kind: "booked", n: 1 },
      { kind: "canceled", n: 2 },
    ]);
  });

  it("is a series of this clinic only: another clinic's id is 404", async () => {
    const s = await seriesClinic("UTC");
    const other = await seriesClinic("UTC");
    const series = booked(await s.book({ start: new Date("2027-03-16T09:00:00Z"), rrule: "FREQ=DAILY;COUNT=2" }));
    expect(await codeOf(other.staff.series.get({ clinic_id: other.clinicId, id: series.id }))).toBe("NOT_FOUND");
    expect(await codeOf(other.staff.series.cancel({ clinic_id: other.clinicId, id: series.id }))).toBe("NOT_FOUND");
  });
});
