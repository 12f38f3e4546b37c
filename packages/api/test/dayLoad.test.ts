// "What a provider has on a local day" has two producers that must agree (docs/database-functions.md):
// the booking's read counts it in SQL for the day it checks (day_load of clinic_schedule_context) and
// the series' check counts it in TypeScript for every date of the course (localDayLoad, the pure
// domain). Both rank the any-provider candidates. This test compares them on the days around the
// spring DST change in Europe/Berlin, with appointments at the local days' edges, a group session's
// seats, a live hold, a canceled appointment and time the provider is taken in another clinic.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { dayLoadKey, localDayLoad } from "../src/domain/dayLoad.ts";
import { addDays, wallClockToInstant } from "../src/domain/timezone.ts";
import { readScheduleContext } from "../src/modules/availability/index.ts";
import {
  addHours,
  addProvider,
  addService,
  bookableClinic,
  callerFor,
  pinnedNow,
  useTestDatabase,
} from "../testing/index.ts";

const t = useTestDatabase();
const zone = "Europe/Berlin";
const local = (date: string, hh: number, mm = 0) => new Date(wallClockToInstant(date, hh * 60 + mm, zone));

describe("a provider's local day: SQL (day_load) and TypeScript (localDayLoad)", () => {
  it("count the same appointments on every date, across the DST change and the days' edges", async () => {
    const week = { weekdays: [1, 2, 3, 4, 5, 6, 7], opens: "00:00", closes: "24:00" };
    const c = await bookableClinic(t.db, { timezone: zone, hours: week });
    const other = await addProvider(t.db, c.clinicId, "Bo Provider");
    await addHours(t.db, c.clinicId, other.id, week.weekdays, week.opens, week.closes);
    // Any provider: both are candidates.
    const service = await addService(t.db, c.clinicId, { name: "Any", durationMin: 30 });
    const group = await addService(t.db, c.clinicId, { name: "Group", providerId: c.provider.id, durationMin: 30 });
    await t.db.execute(
      sql`update services set capacity = 3 where clinic_id = ${c.clinicId}::uuid and id = ${group}::uuid`,
    );
    const staff = callerFor(t.db, c.staff, { now: pinnedNow });
    const book = (start: Date, providerId: string, serviceId = service) =>
      staff.appointments.book({
        clinic_id: c.clinicId,
        service_id: serviceId,
        provider_id: providerId,
        start,
        patient: { name: "Pat Day" },
      });
    // Saturday 27 March late, Sunday 28 March (23 hours: 02:00 does not exist), Monday 29 early.
    await book(local("2027-03-27", 23, 30), c.provider.id);
    await book(local("2027-03-28", 0, 0), c.provider.id);
    await book(local("2027-03-28", 3, 0), c.provider.id);
    await book(local("2027-03-28", 23, 30), c.provider.id);
    await book(local("2027-03-29", 0, 0), c.provider.id);
    await book(local("2027-03-28", 10, 0), other.id);
    // Two seats of one group session: two appointments.
    await book(local("2027-03-28", 12, 0), c.provider.id, group);
    await book(local("2027-03-28", 12, 0), c.provider.id, group);
    // A live hold counts; a canceled appointment does not.
    await staff.appointments.hold({
      clinic_id: c.clinicId,
      service_id: service,
      provider_id: other.id,
      start: local("2027-03-28", 14, 0),
    });
    const canceled = await book(local("2027-03-28", 15, 0), other.id);
    await staff.appointments.cancel({ clinic_id: c.clinicId, id: canceled.id });
    // The provider taken in another clinic that day: their time there is not this clinic's load.
    const elsewhere = await bookableClinic(t.db, { timezone: zone, hours: week });
    await elsewhere.asAdmin.members.add({
      clinic_id: elsewhere.clinicId,
      email: c.provider.email,
      user_id: c.provider.id,
      full_name: "Anna Elsewhere",
      is_provider: true,
    });
    await elsewhere.asAdmin.providers.approve({ clinic_id: elsewhere.clinicId, user_id: c.provider.id });
    await addHours(t.db, elsewhere.clinicId, c.provider.id, week.weekdays, week.opens, week.closes);
    const there = await addService(t.db, elsewhere.clinicId, { name: "There", providerId: c.provider.id });
    await callerFor(t.db, elsewhere.staff, { now: pinnedNow }).appointments.book({
      clinic_id: elsewhere.clinicId,
      service_id: there,
      start: local("2027-03-28", 16, 0),
      patient: { name: "Pat Elsewhere" },
    });

    let compared = 0;
    for (const date of ["2027-03-27", "2027-03-28", "2027-03-29"]) {
      const context = await readScheduleContext(t.db, {
        clinicId: c.clinicId,
        timeZone: zone,
        fromDate: addDays(date, -1),
        toDate: addDays(date, 1),
        from: local(addDays(date, -1), 0),
        to: local(addDays(date, 2), 0),
        serviceId: service,
        day: { start: local(date, 0), end: local(addDays(date, 1), 0) },
        now: pinnedNow(),
      });
      if (context === "rate limited") throw new Error("not counted");
      const typescript = localDayLoad(context.schedule.providers, zone);
      // The other clinic's appointment is in the read (as time taken elsewhere), and counts in neither.
      if (date === "2027-03-28")
        expect(context.schedule.providers.some((p) => p.bookings?.some((b) => b.elsewhere === true))).toBe(true);
      for (const providerId of [c.provider.id, other.id]) {
        expect(typescript.get(dayLoadKey(providerId, date)) ?? 0, `${date} ${providerId}`).toBe(
          context.dayLoad[providerId] ?? 0,
        );
        compared += context.dayLoad[providerId] ?? 0;
      }
    }
    // What was compared is what was booked: 1 + 5 + 1 for Anna (the group's two seats among them), 2 for Bo.
    expect(compared).toBe(9);
  });
});
