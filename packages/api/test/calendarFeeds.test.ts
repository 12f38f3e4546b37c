// Calendar feeds (F1–F4): created with a url shown once, parsed back with an iCalendar parser.
import ICAL from "ical.js";
import { describe, expect, it } from "vitest";
import {
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
const tokenOf = (url: string) => /\/v1\/calendar\/([^/]+)\.ics$/.exec(url)?.[1] ?? "";

/** The VEVENTs of a feed: uid, start, end (UTC), summary, sequence. */
function parse(text: string) {
  const calendar = new ICAL.Component(ICAL.parse(text) as unknown[]);
  return calendar.getAllSubcomponents("vevent").map((vevent) => {
    const event = new ICAL.Event(vevent);
    return {
      uid: event.uid,
      start: event.startDate.toJSDate().toISOString(),
      end: event.endDate.toJSDate().toISOString(),
      summary: event.summary,
      sequence: event.sequence,
      utc: event.startDate.zone.tzid,
    };
  });
}

describe("calendar feeds", () => {
  it("serve the clinic's booked appointments as iCalendar, with patient names only when asked, SEQUENCE growing on reschedule", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { name: "Massage", providerId: c.provider.id });
    const staff = callerFor(t.db, c.staff, { now: pinnedNow });
    const kept = await staff.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: at("2027-03-15T09:00:00Z"),
      patient: { name: "Pat Named" },
    });
    const gone = await staff.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: at("2027-03-15T10:00:00Z"),
      patient: { name: "Gone" },
    });
    await staff.appointments.cancel({ clinic_id: c.clinicId, id: gone.id });

    const plain = await c.asAdmin.calendarFeeds.create({ clinic_id: c.clinicId });
    const named = await c.asAdmin.calendarFeeds.create({ clinic_id: c.clinicId, include_patient_names: true });
    expect(plain.url).toMatch(/^http:\/\/127\.0\.0\.1:3000\/v1\/calendar\/[0-9a-f]{32}[A-Za-z0-9_-]{43}\.ics$/);
    const feed = (url: string) =>
      callerFor(t.db, null, { now: pinnedNow }).calendarFeeds.ics({ file: `${tokenOf(url)}.ics` });

    const events = parse(await feed(plain.url));
    expect(events).toEqual([
      {
        uid: kept.id,
        start: "2027-03-15T09:00:00.000Z",
        end: "2027-03-15T09:30:00.000Z",
        summary: "Massage",
        sequence: 0,
        utc: "UTC",
      },
    ]);
    expect(parse(await feed(named.url))[0]?.summary).toBe("Massage – Pat Named");

    await staff.appointments.reschedule({ clinic_id: c.clinicId, id: kept.id, start: at("2027-03-15T11:00:00Z") });
    expect(parse(await feed(plain.url))[0]).toMatchObject({ start: "2027-03-15T11:00:00.000Z", sequence: 1 });

    // Listed without urls; deleted, its url is 404.
    const listed = await c.asAdmin.calendarFeeds.list({ clinic_id: c.clinicId });
    expect(listed.calendar_feeds.map((f) => f.id).sort()).toEqual([plain.id, named.id].sort());
    expect(JSON.stringify(listed)).not.toContain(tokenOf(plain.url));
    await c.asAdmin.calendarFeeds.remove({ clinic_id: c.clinicId, id: plain.id });
    expect(await codeOf(feed(plain.url))).toBe("NOT_FOUND");
    expect(
      // The token with its last character changed (to another one: 1 in 64 tokens ends in "A").
      await codeOf(
        callerFor(t.db, null).calendarFeeds.ics({
          file: `${tokenOf(named.url).slice(0, -1)}${tokenOf(named.url).endsWith("A") ? "B" : "A"}.ics`,
        }),
      ),
    ).toBe("NOT_FOUND");
  });

  it("let a provider subscribe to their own appointments only; the whole clinic is CLINIC_ADMIN's", async () => {
    const c = await bookableClinic(t.db);
    const ben = await addProvider(t.db, c.clinicId, "Ben");
    const asProvider = callerFor(t.db, c.provider, { now: pinnedNow });
    const own = await asProvider.calendarFeeds.create({ clinic_id: c.clinicId, provider_id: c.provider.id });
    expect(own.provider_id).toBe(c.provider.id);
    expect(await codeOf(asProvider.calendarFeeds.create({ clinic_id: c.clinicId }))).toBe("FORBIDDEN");
    expect(await codeOf(asProvider.calendarFeeds.create({ clinic_id: c.clinicId, provider_id: ben.id }))).toBe(
      "FORBIDDEN",
    );
    expect(await codeOf(c.asStaff.calendarFeeds.create({ clinic_id: c.clinicId }))).toBe("FORBIDDEN");
    const clinicWide = await c.asAdmin.calendarFeeds.create({ clinic_id: c.clinicId });
    expect((await asProvider.calendarFeeds.list({ clinic_id: c.clinicId })).calendar_feeds.map((f) => f.id)).toEqual([
      own.id,
    ]);
    expect(await codeOf(asProvider.calendarFeeds.remove({ clinic_id: c.clinicId, id: clinicWide.id }))).toBe(
      "FORBIDDEN",
    );
    await asProvider.calendarFeeds.remove({ clinic_id: c.clinicId, id: own.id });

    // A provider's feed holds only their appointments.
    const service = await addService(t.db, c.clinicId, { durationMin: 30 });
    const bensFeed = await c.asAdmin.calendarFeeds.create({ clinic_id: c.clinicId, provider_id: ben.id });
    await callerFor(t.db, c.staff, { now: pinnedNow }).appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: at("2027-03-15T09:00:00Z"),
      provider_id: c.provider.id,
      patient: { name: "P" },
    });
    expect(
      parse(
        await callerFor(t.db, null, { now: pinnedNow }).calendarFeeds.ics({ file: `${tokenOf(bensFeed.url)}.ics` }),
      ),
    ).toEqual([]);
    const other = await bookableClinic(t.db);
    expect(await codeOf(other.asAdmin.calendarFeeds.remove({ clinic_id: other.clinicId, id: bensFeed.id }))).toBe(
      "NOT_FOUND",
    );
  });
});
