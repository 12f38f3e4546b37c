// Providers' own calendars over CalDAV (CONTRACT §18) against a real server: Radicale (Debian's
// `radicale`, started by the test on a loopback port with a temporary store and a password). Busy
// time read from a calendar collection, a wrong password, and write-back of the provider's
// appointments (PUT, moved, removed), never read back as busy time.
import { eq } from "drizzle-orm";
import ICAL from "ical.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calendars, events } from "@clinic/db";
import { createContextInner } from "../src/context.ts";
import {
  type CalendarSyncJob,
  type WriteBackJob,
  calendarKeyOf,
  runCalendarSync,
  runCalendarWriteBack,
} from "../src/modules/calendars/index.ts";
import { type Job, queueNames, runDueJobs } from "../src/modules/jobs/index.ts";
import { appRouter } from "../src/router/index.ts";
import { createCallerFactory } from "../src/trpc.ts";
import {
  type Radicale,
  type TestUser,
  addService,
  bookableClinic,
  codeOf,
  pinnedNow,
  startRadicale,
  useTestDatabase,
} from "../testing/index.ts";

const t = useTestDatabase();
const createCaller = createCallerFactory(appRouter);
const callerOf = (user: TestUser | null) =>
  createCaller(createContextInner({ db: t.db, user, now: pinnedNow, webhooks: { allowPrivate: true } }));

let radicale: Radicale;
beforeAll(async () => {
  radicale = await startRadicale();
}, 30_000);
afterAll(async () => {
  await radicale.stop();
});

const settings = {
  key: calendarKeyOf({ key: undefined, production: false }),
  allowPrivate: true,
  syncIntervalS: 300,
  staleAfterS: 3600,
  timeoutMs: 10_000,
  maxBytes: 5 * 1024 * 1024,
  maxEvents: 20_000,
  now: pinnedNow,
  retryDelaysS: [1],
};

/** Runs the due calendar jobs: syncs and write-backs. */
const runJobs = () =>
  runDueJobs(
    t.db,
    new Map<string, (job: Job<object>) => Promise<unknown>>([
      [queueNames.calendarSync, (job) => runCalendarSync(t.db, settings, job.data as CalendarSyncJob)],
      [queueNames.calendarWriteBack, (job) => runCalendarWriteBack(t.db, settings, job as Job<WriteBackJob>)],
    ]),
  );

const day = "2027-03-15";
const at = (hhmm: string) => new Date(`${day}T${hhmm}:00.000Z`);
const vevent = (uid: string, start: string, end: string) =>
  `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:${uid}\r\nDTSTAMP:20270101T000000Z\r\nDTSTART:${start}\r\nDTEND:${end}\r\nSUMMARY:Private dentist\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`;

async function setup() {
  const c = await bookableClinic(t.db);
  const service = await addService(t.db, c.clinicId, {
    name: "Consultation",
    providerId: c.provider.id,
    durationMin: 30,
  });
  const admin = callerOf(c.admin);
  const staff = callerOf(c.staff);
  const collection = await radicale.createCalendar(`cal-${crypto.randomUUID()}`);
  const starts = async () =>
    (await staff.availability.get({ clinic_id: c.clinicId, service_id: service, from: day, to: day })).slots.map((s) =>
      s.start.toISOString().slice(11, 16),
    );
  return { ...c, service, admin, staff, collection, starts };
}

describe("CalDAV calendars (Radicale)", () => {
  it("reads a collection's events as busy time, within the horizon, and skips the read when nothing changed", async () => {
    const s = await setup();
    await radicale.putEvent(s.collection, "dentist", vevent("dentist", "20270315T100000Z", "20270315T110000Z"));
    // Beyond the widest horizon (366 days): not read.
    await radicale.putEvent(s.collection, "far", vevent("far", "20290315T100000Z", "20290315T110000Z"));
    const calendar = await s.admin.calendars.create({
      clinic_id: s.clinicId,
      user_id: s.provider.id,
      kind: "caldav",
      url: s.collection,
      username: radicale.username,
      password: radicale.password,
    });
    expect(JSON.stringify(calendar)).not.toContain(radicale.password);
    await runJobs();
    const synced = await s.staff.calendars.get({ clinic_id: s.clinicId, user_id: s.provider.id, id: calendar.id });
    expect(synced).toMatchObject({ status: "ok", busy_count: 1, last_error: null });
    expect(await s.starts()).not.toContain("10:00");
    expect(await s.starts()).toContain("11:00");
    // Nothing changed (the same sync-token): the next sync reads no events (its last full read stays the first).
    const fullReadAt = async () =>
      (await t.db.select({ state: calendars.syncState }).from(calendars).where(eq(calendars.id, calendar.id)))[0]?.state
        .fullReadAt;
    const minutesLater = (n: number) => () => new Date(pinnedNow().getTime() + n * 60_000);
    await runCalendarSync(
      t.db,
      { ...settings, now: minutesLater(1) },
      { clinicId: s.clinicId, calendarId: calendar.id },
    );
    expect(await fullReadAt()).toBe(pinnedNow().toISOString());
    // A new event changes the token: read at the next sync.
    await radicale.putEvent(s.collection, "lunch", vevent("lunch", "20270315T120000Z", "20270315T130000Z"));
    await runCalendarSync(
      t.db,
      { ...settings, now: minutesLater(2) },
      { clinicId: s.clinicId, calendarId: calendar.id },
    );
    expect(await fullReadAt()).toBe(minutesLater(2)().toISOString());
    expect(await s.starts()).not.toContain("12:00");
    expect(
      (await s.staff.calendars.get({ clinic_id: s.clinicId, user_id: s.provider.id, id: calendar.id })).busy_count,
    ).toBe(2);
  });

  it("a wrong password is an error that names no secret; the password is stored encrypted", async () => {
    const s = await setup();
    const calendar = await s.admin.calendars.create({
      clinic_id: s.clinicId,
      user_id: s.provider.id,
      kind: "caldav",
      url: s.collection,
      username: radicale.username,
      password: "wrong-password-123",
    });
    // The wall clock: a calendar that never synced turns stale CALENDAR_STALE_AFTER_S after it was added.
    await runCalendarSync(
      t.db,
      { ...settings, now: () => new Date() },
      { clinicId: s.clinicId, calendarId: calendar.id },
    );
    const got = await s.staff.calendars.get({ clinic_id: s.clinicId, user_id: s.provider.id, id: calendar.id });
    expect(got.status).toBe("error");
    const [row] = await t.db.select().from(calendars).where(eq(calendars.id, calendar.id));
    expect(JSON.stringify(row)).not.toContain("wrong-password-123");
    const recorded = await t.db.select().from(events).where(eq(events.clinicId, s.clinicId));
    expect(recorded.map((e) => e.type)).toContain("calendar.sync_failed");
    expect(JSON.stringify(recorded)).not.toContain("wrong-password-123");
    expect(got.last_error).toContain("401");
    expect(got.last_error).not.toContain("wrong-password-123");
    expect(
      await codeOf(s.staff.calendars.delete({ clinic_id: s.clinicId, user_id: s.provider.id, id: calendar.id })),
    ).toBe("FORBIDDEN");
  });

  it("writes the provider's appointments back (no patient data), moves and removes them, and never reads them back as busy", async () => {
    const s = await setup();
    const calendar = await s.admin.calendars.create({
      clinic_id: s.clinicId,
      user_id: s.provider.id,
      kind: "caldav",
      url: s.collection,
      username: radicale.username,
      password: radicale.password,
      write_back: true,
    });
    await runJobs();
    const booked = await s.staff.appointments.book({
      clinic_id: s.clinicId,
      service_id: s.service,
      start: at("09:00"),
      patient: { name: "Patient Zebediah", email: "zebediah@example.com" },
      notes: "knee pain",
    });
    await runJobs();
    const written = () =>
      radicale.listEvents(s.collection).then((list) =>
        list.map(({ ics }) => {
          const vevent = new ICAL.Component(ICAL.parse(ics) as unknown[]).getFirstSubcomponent("vevent");
          if (!vevent) throw new Error("a written object without a VEVENT");
          const event = new ICAL.Event(vevent);
          return { uid: event.uid, summary: event.summary, start: event.startDate.toJSDate().toISOString(), ics };
        }),
      );
    const first = await written();
    expect(first.map(({ uid, summary, start }) => ({ uid, summary, start }))).toEqual([
      { uid: booked.id, summary: "Consultation", start: at("09:00").toISOString() },
    ]);
    expect(first[0]?.ics).not.toMatch(/Zebediah|zebediah@example.com|knee pain/);
    // Its own appointment is not read back as busy time.
    await runCalendarSync(t.db, settings, { clinicId: s.clinicId, calendarId: calendar.id });
    expect(
      (await s.staff.calendars.get({ clinic_id: s.clinicId, user_id: s.provider.id, id: calendar.id })).busy_count,
    ).toBe(0);
    await s.staff.appointments.reschedule({ clinic_id: s.clinicId, id: booked.id, start: at("14:00") });
    await runJobs();
    expect((await written()).map((e) => e.start)).toEqual([at("14:00").toISOString()]);
    await s.staff.appointments.cancel({ clinic_id: s.clinicId, id: booked.id });
    await runJobs();
    expect(await written()).toEqual([]);
  });
});
