// Providers' own calendars (CONTRACT §18): K1–K4, busy time from an ICS calendar served by a local
// HTTP server this test controls (and makes fail, slow, huge or garbage), its effect on V1, the
// booking routes and V2, coherence of cached answers, the failure and stale rules, and the privacy
// rule for the URL's secrets and the events' details.
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { and, asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { availabilityVersions, calendarBusy, calendars, events, services } from "@clinic/db";
import { createContextInner } from "../src/context.ts";
import { DomainError } from "../src/errors.ts";
import { type CalendarSyncJob, calendarKeyOf, runCalendarSync } from "../src/modules/calendars/index.ts";
import { type Job, queueNames, runDueJobs } from "../src/modules/jobs/index.ts";
import { appRouter } from "../src/router/index.ts";
import { createCallerFactory } from "../src/trpc.ts";
import {
  type TestUser,
  addMember,
  addService,
  bookableClinic,
  addHours,
  codeOf,
  failureOf,
  pinnedNow,
  useTestDatabase,
} from "../testing/index.ts";

const t = useTestDatabase();
const createCaller = createCallerFactory(appRouter);
const MINUTE = 60_000;

/** A caller whose calendars may live on this machine (WEBHOOK_ALLOW_PRIVATE, as in development). */
const callerOf = (user: TestUser | null, now: () => Date = pinnedNow) =>
  createCaller(createContextInner({ db: t.db, user, now, webhooks: { allowPrivate: true } }));

/** The ICS server: what each path answers is up to the test. */
type Answer = {
  status?: number;
  body?: string;
  delayMs?: number;
  headers?: Record<string, string>;
  /** The Authorization header this path asks for (401 without it), and the query string. */
  authorization?: string;
  search?: string;
};
const served = new Map<string, Answer>();
const requests = new Map<string, number>();
let server: Server;
let base = "";
beforeAll(async () => {
  server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname;
    requests.set(path, (requests.get(path) ?? 0) + 1);
    const answer = served.get(path) ?? { status: 404, body: "no such calendar" };
    const search = new URL(request.url ?? "/", "http://x").search;
    if (
      (answer.authorization !== undefined && request.headers.authorization !== answer.authorization) ||
      (answer.search !== undefined && search !== answer.search)
    ) {
      response.writeHead(401, { "www-authenticate": 'Basic realm="calendar"' });
      response.end();
      return;
    }
    const send = () => {
      // A conditional GET of the same version: 304, as a calendar server answers it.
      const etag = answer.headers?.etag;
      if (etag && request.headers["if-none-match"] === etag) {
        response.writeHead(304, { etag });
        response.end();
        return;
      }
      response.writeHead(answer.status ?? 200, { "content-type": "text/calendar", ...answer.headers });
      response.end(answer.body ?? "");
    };
    if (answer.delayMs) setTimeout(send, answer.delayMs).unref();
    else send();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

let paths = 0;
/** A new path on the server answering `ics`. */
function serve(ics: string | Answer): string {
  paths += 1;
  const path = `/cal-${String(paths)}-${crypto.randomUUID()}.ics`;
  served.set(path, typeof ics === "string" ? { body: ics } : ics);
  return path;
}

const vevent = (uid: string, start: string, end: string, extra = "") =>
  `BEGIN:VEVENT\r\nUID:${uid}\r\nDTSTAMP:20270101T000000Z\r\nDTSTART:${start}\r\nDTEND:${end}\r\nSUMMARY:Secret meeting with Dr Who\r\nLOCATION:Room 42 Hidden\r\n${extra}END:VEVENT\r\n`;
const calendarOf = (...vevents: string[]) =>
  `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n${vevents.join("")}END:VCALENDAR\r\n`;

/** The sync's settings as the workers build them, with the test's clock and limits. */
const settingsAt = (now: () => Date, limits: { timeoutMs?: number; maxBytes?: number; maxEvents?: number } = {}) => ({
  key: calendarKeyOf({ key: undefined, production: false }),
  allowPrivate: true,
  syncIntervalS: 300,
  staleAfterS: 3600,
  timeoutMs: limits.timeoutMs ?? 10_000,
  maxBytes: limits.maxBytes ?? 5 * 1024 * 1024,
  maxEvents: limits.maxEvents ?? 20_000,
  now,
});

/** Runs the due calendar syncs (the job queue, as the workers do). */
const syncDue = (now: () => Date = pinnedNow, limits = {}) =>
  runDueJobs(
    t.db,
    new Map<string, (job: Job<object>) => Promise<unknown>>([
      [queueNames.calendarSync, (job) => runCalendarSync(t.db, settingsAt(now, limits), job.data as CalendarSyncJob)],
    ]),
  );

/** Syncs one calendar now, whatever else is due. */
const syncOne = (clinicId: string, calendarId: string, now: () => Date = pinnedNow, limits = {}) =>
  runCalendarSync(t.db, settingsAt(now, limits), { clinicId, calendarId });

const day = "2027-03-15";
const at = (hhmm: string) => new Date(`${day}T${hhmm}:00.000Z`);

async function setup(options: { bufferAfterMin?: number } = {}) {
  const c = await bookableClinic(t.db);
  const service = await addService(t.db, c.clinicId, {
    name: "Consultation",
    providerId: c.provider.id,
    durationMin: 30,
  });
  if (options.bufferAfterMin)
    await t.db.update(services).set({ bufferAfterMin: options.bufferAfterMin }).where(eq(services.id, service));
  const admin = callerOf(c.admin);
  const staff = callerOf(c.staff);
  const starts = async () =>
    (await staff.availability.get({ clinic_id: c.clinicId, service_id: service, from: day, to: day })).slots.map((s) =>
      s.start.toISOString().slice(11, 16),
    );
  const add = (url: string, more: { name?: string } = {}) =>
    admin.calendars.create({ clinic_id: c.clinicId, user_id: c.provider.id, kind: "ics", url, ...more });
  return { ...c, adminUser: c.admin, staffUser: c.staff, service, admin, staff, starts, add };
}

/** A second clinic where `provider` works too (approved, the same hours), with a service of theirs and its starts on `day`. */
async function secondClinicOf(provider: TestUser) {
  const b = await bookableClinic(t.db);
  await callerOf(b.admin).members.add({
    clinic_id: b.clinicId,
    email: provider.email,
    user_id: provider.id,
    full_name: "Anna in B",
    is_provider: true,
  });
  await callerOf(b.admin).providers.approve({ clinic_id: b.clinicId, user_id: provider.id });
  await addHours(t.db, b.clinicId, provider.id, [1, 2, 3, 4, 5], "09:00", "17:00");
  const serviceB = await addService(t.db, b.clinicId, { providerId: provider.id, durationMin: 30 });
  const startsB = async () =>
    (
      await callerOf(b.staff).availability.get({ clinic_id: b.clinicId, service_id: serviceB, from: day, to: day })
    ).slots.map((x) => x.start.toISOString().slice(11, 16));
  return { b, serviceB, startsB };
}

describe("providers' calendars: K1–K4", () => {
  it("adds, lists, reads and removes a calendar; the URL's secrets are never answered; at most five", async () => {
    const s = await setup();
    const path = serve(calendarOf());
    const created = await s.add(`${base}${path}?token=very-secret-token`, { name: "Personal" });
    expect(created).toMatchObject({
      clinic_id: s.clinicId,
      provider_id: s.provider.id,
      kind: "ics",
      url: `${base}${path}`,
      name: "Personal",
      write_back: false,
      status: "pending",
      last_synced_at: null,
      last_error: null,
      busy_count: 0,
    });
    const listed = await s.staff.calendars.list({ clinic_id: s.clinicId, user_id: s.provider.id });
    expect(listed.calendars.map((c) => c.id)).toEqual([created.id]);
    // STAFF reads them, but may not change them; CLINIC_ADMIN and the provider may.
    expect(listed.may_manage).toBe(false);
    expect((await s.admin.calendars.list({ clinic_id: s.clinicId, user_id: s.provider.id })).may_manage).toBe(true);
    expect(
      (await callerOf(s.provider).calendars.list({ clinic_id: s.clinicId, user_id: s.provider.id })).may_manage,
    ).toBe(true);
    expect(JSON.stringify(listed)).not.toContain("very-secret-token");
    // Stored encrypted: neither the token nor the URL is in the row in clear.
    const [row] = await t.db.select({ secret: calendars.secret }).from(calendars).where(eq(calendars.id, created.id));
    expect(row?.secret).not.toContain("very-secret-token");
    expect(row?.secret).not.toContain(path);
    // A sixth is 422 with the path `calendars`.
    for (let i = 0; i < 4; i++) await s.add(`${base}${serve(calendarOf())}`);
    const sixth = await failureOf(s.add(`${base}${serve(calendarOf())}`));
    expect(sixth).toBeInstanceOf(DomainError);
    if (!(sixth instanceof DomainError)) return;
    expect(sixth.domainCode).toBe("VALIDATION_FAILED");
    expect(sixth.code).toBe("UNPROCESSABLE_CONTENT");
    expect(sixth.errors?.[0]?.path).toBe("calendars");
    await s.admin.calendars.delete({ clinic_id: s.clinicId, user_id: s.provider.id, id: created.id });
    expect(await codeOf(s.staff.calendars.get({ clinic_id: s.clinicId, user_id: s.provider.id, id: created.id }))).toBe(
      "NOT_FOUND",
    );
  });

  it("takes a URL that carries its credentials (user info, ?token=): kept encrypted, used to read, never answered", async () => {
    const s = await setup();
    const path = serve({
      body: calendarOf(vevent("ev-cred", "20270315T100000Z", "20270315T110000Z")),
      // The user info decoded (p@ss:word), as HTTP Basic; and the query string as given.
      authorization: `Basic ${Buffer.from("anna.berg:p@ss:word").toString("base64")}`,
      search: "?token=cal-token-4711",
    });
    const withCredentials = `${base.replace("http://", "http://anna.berg:p%40ss%3Aword@")}${path}?token=cal-token-4711`;
    const created = await s.add(withCredentials);
    expect(created.url).toBe(`${base}${path}`);
    const [row] = await t.db.select({ secret: calendars.secret }).from(calendars).where(eq(calendars.id, created.id));
    for (const secret of ["anna.berg", "p@ss", "p%40ss", "cal-token-4711"]) {
      expect(row?.secret).not.toContain(secret);
      expect(JSON.stringify(created)).not.toContain(secret);
    }
    await syncOne(s.clinicId, created.id);
    const synced = await s.staff.calendars.get({ clinic_id: s.clinicId, user_id: s.provider.id, id: created.id });
    expect(synced).toMatchObject({ status: "ok", busy_count: 1, last_error: null });
    expect(JSON.stringify(synced)).not.toContain("anna.berg");
    // Without them the server refuses: they were what opened it.
    const bare = await s.add(`${base}${path}`);
    await syncOne(s.clinicId, bare.id);
    expect(await s.staff.calendars.get({ clinic_id: s.clinicId, user_id: s.provider.id, id: bare.id })).toMatchObject({
      status: "stale",
      busy_count: 0,
      last_error: "the server refused access (HTTP 401)",
    });
    // CalDAV: credentials in the URL and as username/password at once are a guess: 400 at url.
    const both = await failureOf(
      s.admin.calendars.create({
        clinic_id: s.clinicId,
        user_id: s.provider.id,
        kind: "caldav",
        url: `${base.replace("http://", "http://anna:x@")}/dav/`,
        username: "anna",
        password: "y",
      }),
    );
    expect(both instanceof DomainError ? [both.domainCode, both.errors?.[0]?.path] : both).toEqual([
      "VALIDATION_FAILED",
      "url",
    ]);
    // The internal-address rule holds with user info too.
    const strict = createCaller(createContextInner({ db: t.db, user: s.adminUser, now: pinnedNow }));
    expect(
      await codeOf(
        strict.calendars.create({
          clinic_id: s.clinicId,
          user_id: s.provider.id,
          kind: "ics",
          url: "https://user:pass@127.0.0.1/calendar.ics",
        }),
      ),
    ).toBe("VALIDATION_FAILED");
  });

  it("refuses what §18 and §10 refuse: write_back on ics, half credentials, internal addresses", async () => {
    const s = await setup();
    const strict = createCaller(createContextInner({ db: t.db, user: s.adminUser, now: pinnedNow }));
    const input = { clinic_id: s.clinicId, user_id: s.provider.id };
    expect(
      await codeOf(s.admin.calendars.create({ ...input, kind: "ics", url: `${base}/x.ics`, write_back: true })),
    ).toBe("VALIDATION_FAILED");
    expect(
      await codeOf(s.admin.calendars.create({ ...input, kind: "caldav", url: `${base}/dav/`, username: "only-user" })),
    ).toBe("VALIDATION_FAILED");
    // Without WEBHOOK_ALLOW_PRIVATE: https only, and never a loopback or private address.
    expect(await codeOf(strict.calendars.create({ ...input, kind: "ics", url: `${base}/x.ics` }))).toBe(
      "VALIDATION_FAILED",
    );
    expect(
      await codeOf(strict.calendars.create({ ...input, kind: "ics", url: "https://127.0.0.1/calendar.ics" })),
    ).toBe("VALIDATION_FAILED");
  });

  it("answers 404 NOT_FOUND on every verb of K1–K4 for a path that names no provider of the clinic", async () => {
    const s = await setup();
    const created = await s.admin.calendars.create({
      clinic_id: s.clinicId,
      user_id: s.provider.id,
      kind: "ics",
      url: `${base}/x.ics`,
    });
    const path = { clinic_id: s.clinicId, user_id: s.staffUser.id };
    expect(await codeOf(s.admin.calendars.create({ ...path, kind: "ics", url: `${base}/x.ics` }))).toBe("NOT_FOUND");
    expect(await codeOf(s.admin.calendars.list(path))).toBe("NOT_FOUND");
    expect(await codeOf(s.admin.calendars.get({ ...path, id: created.id }))).toBe("NOT_FOUND");
    expect(await codeOf(s.admin.calendars.sync({ ...path, id: created.id }))).toBe("NOT_FOUND");
    expect(await codeOf(s.admin.calendars.delete({ ...path, id: created.id }))).toBe("NOT_FOUND");
    // The provider's own calendar is untouched by those.
    expect((await s.admin.calendars.list({ clinic_id: s.clinicId, user_id: s.provider.id })).calendars).toHaveLength(1);
  });

  it("a production start without CALENDAR_KEY stores no calendar (503), and the key is what decrypts", async () => {
    const s = await setup();
    const production = createCaller(
      createContextInner({
        db: t.db,
        user: s.adminUser,
        now: pinnedNow,
        webhooks: { allowPrivate: true },
        calendars: { key: calendarKeyOf({ key: undefined, production: true }), allowPrivate: true },
      }),
    );
    const input = { clinic_id: s.clinicId, user_id: s.provider.id, kind: "ics" as const, url: `${base}/x.ics` };
    expect(await codeOf(production.calendars.create(input))).toBe("UNAVAILABLE");
    expect(await s.staff.calendars.list({ clinic_id: s.clinicId, user_id: s.provider.id })).toEqual({
      calendars: [],
      may_manage: false,
    });
    // Stored under one key, read under another: an error that says so, not the secret.
    const calendar = await s.add(`${base}${serve(calendarOf())}`);
    await runCalendarSync(
      t.db,
      {
        ...settingsAt(() => new Date()),
        key: calendarKeyOf({ key: "another-key-of-at-least-32-characters!", production: true }),
      },
      { clinicId: s.clinicId, calendarId: calendar.id },
    );
    const got = await s.staff.calendars.get({ clinic_id: s.clinicId, user_id: s.provider.id, id: calendar.id });
    expect(got.status).toBe("error");
    expect(got.last_error).toContain("does not decrypt with CALENDAR_KEY");
  });

  it("CLINIC_ADMIN or the provider themself may change them; STAFF may read; another clinic's are 404", async () => {
    const s = await setup();
    const other = await setup();
    const url = `${base}${serve(calendarOf())}`;
    const own = await callerOf(s.provider).calendars.create({
      clinic_id: s.clinicId,
      user_id: s.provider.id,
      kind: "ics",
      url,
    });
    expect(own.provider_id).toBe(s.provider.id);
    expect(
      await codeOf(s.staff.calendars.create({ clinic_id: s.clinicId, user_id: s.provider.id, kind: "ics", url })),
    ).toBe("FORBIDDEN");
    // A provider of the clinic without the STAFF role: not another provider's calendars.
    const colleague = await addMember(t.db, s.clinicId, {
      isProvider: true,
      role: "BOOKING_AGENT",
      fullName: "Colleague",
    });
    expect(
      await codeOf(callerOf(colleague).calendars.delete({ clinic_id: s.clinicId, user_id: s.provider.id, id: own.id })),
    ).toBe("FORBIDDEN");
    expect(await codeOf(callerOf(colleague).calendars.list({ clinic_id: s.clinicId, user_id: s.provider.id }))).toBe(
      "FORBIDDEN",
    );
    // Named through another clinic: 404, never its data.
    expect(
      await codeOf(other.admin.calendars.get({ clinic_id: other.clinicId, user_id: s.provider.id, id: own.id })),
    ).toBe("NOT_FOUND");
    expect(
      await codeOf(other.admin.calendars.sync({ clinic_id: other.clinicId, user_id: other.provider.id, id: own.id })),
    ).toBe("NOT_FOUND");
  });
});

describe("providers' calendars: busy time", () => {
  it("blocks V1 (with the service's buffers), refuses B1, and V2 says EXTERNAL_BUSY without the event's details", async () => {
    const s = await setup({ bufferAfterMin: 15 });
    const calendar = await s.add(`${base}${serve(calendarOf(vevent("ev-1", "20270315T100000Z", "20270315T110000Z")))}`);
    expect(await s.starts()).toContain("09:30");
    await syncDue();
    const synced = await s.staff.calendars.get({ clinic_id: s.clinicId, user_id: s.provider.id, id: calendar.id });
    expect(synced).toMatchObject({ status: "ok", busy_count: 1, last_error: null });
    expect(synced.last_synced_at).toEqual(pinnedNow());
    const starts = await s.starts();
    // 09:30 + 30 min + 15 min buffer reaches into 10:00; 10:00 and 10:30 overlap; 11:00 is free.
    expect(starts).toEqual(expect.arrayContaining(["09:00", "11:00"]));
    for (const taken of ["09:30", "10:00", "10:30"]) expect(starts).not.toContain(taken);
    const booking = s.staff.appointments.book({
      clinic_id: s.clinicId,
      service_id: s.service,
      start: at("10:00"),
      patient: { name: "Pat" },
    });
    expect(await codeOf(booking)).toBe("SLOT_UNAVAILABLE");
    // A move into it is refused too (B5).
    const elsewhere = await s.staff.appointments.book({
      clinic_id: s.clinicId,
      service_id: s.service,
      start: at("13:00"),
      patient: { name: "Pat" },
    });
    expect(
      await codeOf(s.staff.appointments.reschedule({ clinic_id: s.clinicId, id: elsewhere.id, start: at("10:30") })),
    ).toBe("SLOT_UNAVAILABLE");
    const why = await s.staff.availability.explain({
      clinic_id: s.clinicId,
      service_id: s.service,
      start: at("10:30"),
    });
    expect(why.providers[0]?.reasons.map((r) => r.code)).toEqual(["EXTERNAL_BUSY"]);
    expect(JSON.stringify(why)).not.toMatch(/Secret meeting|Dr Who|Room 42/);
    const nearBuffer = await s.staff.availability.explain({
      clinic_id: s.clinicId,
      service_id: s.service,
      start: at("09:30"),
    });
    expect(nearBuffer.providers[0]?.reasons.map((r) => r.code)).toEqual(["EXTERNAL_BUSY"]);
    // The service keeps no title or place: not in the busy rows, not anywhere in the calendar's row.
    const [row] = await t.db.select().from(calendars).where(eq(calendars.id, calendar.id));
    expect(JSON.stringify(row)).not.toMatch(/Secret meeting|Room 42/);
  });

  it("a change is seen at once by cached answers; the same calendar again bumps no version; delete frees at once", async () => {
    const s = await setup();
    const path = serve(calendarOf(vevent("ev-1", "20270315T100000Z", "20270315T110000Z")));
    const calendar = await s.add(`${base}${path}`);
    await syncDue();
    expect(await s.starts()).not.toContain("10:00");
    const versions = async () =>
      (
        await t.db
          .select({ version: availabilityVersions.version })
          .from(availabilityVersions)
          .where(and(eq(availabilityVersions.clinicId, s.clinicId), eq(availabilityVersions.scopeId, s.provider.id)))
      )[0]?.version;
    const before = await versions();
    await syncOne(s.clinicId, calendar.id);
    expect(await versions()).toBe(before);
    // Moved to 14:00: the cached answer (read above) is not served.
    served.set(path, { body: calendarOf(vevent("ev-1", "20270315T140000Z", "20270315T150000Z")) });
    await syncOne(s.clinicId, calendar.id, () => new Date(pinnedNow().getTime() + 13 * 3_600_000));
    const moved = await s.starts();
    expect(moved).toContain("10:00");
    expect(moved).not.toContain("14:00");
    await s.admin.calendars.delete({ clinic_id: s.clinicId, user_id: s.provider.id, id: calendar.id });
    expect(await s.starts()).toContain("14:00");
    expect(await t.db.select().from(calendarBusy).where(eq(calendarBusy.calendarId, calendar.id))).toEqual([]);
  });

  it("transparent and cancelled events do not block; an all-day event blocks the local day; written-back UIDs are not read back", async () => {
    const s = await setup();
    const mine = await s.staff.appointments.book({
      clinic_id: s.clinicId,
      service_id: s.service,
      start: at("09:00"),
      patient: { name: "Pat" },
    });
    const ics = calendarOf(
      vevent("free", "20270315T100000Z", "20270315T110000Z", "TRANSP:TRANSPARENT\r\n"),
      vevent("gone", "20270315T120000Z", "20270315T130000Z", "STATUS:CANCELLED\r\n"),
      // The service's own appointment, as write-back or a subscribed feed puts it there: not busy time.
      vevent(mine.id, "20270315T090000Z", "20270315T093000Z"),
      `BEGIN:VEVENT\r\nUID:allday\r\nDTSTAMP:20270101T000000Z\r\nDTSTART;VALUE=DATE:20270316\r\nDTEND;VALUE=DATE:20270317\r\nSUMMARY:Leave\r\nEND:VEVENT\r\n`,
    );
    const calendar = await s.add(`${base}${serve(ics)}`);
    await syncOne(s.clinicId, calendar.id);
    const got = await s.staff.calendars.get({ clinic_id: s.clinicId, user_id: s.provider.id, id: calendar.id });
    expect(got.busy_count).toBe(1);
    const starts = await s.starts();
    expect(starts).toEqual(expect.arrayContaining(["10:00", "12:00"]));
    const nextDay = await s.staff.availability.get({
      clinic_id: s.clinicId,
      service_id: s.service,
      from: "2027-03-16",
      to: "2027-03-16",
    });
    expect(nextDay.slots).toEqual([]);
  });

  it("fails safe: error keeps the last busy time; past CALENDAR_STALE_AFTER_S nothing is offered (CALENDAR_STALE); recovery restores", async () => {
    const s = await setup();
    const path = serve(calendarOf(vevent("ev-1", "20270315T100000Z", "20270315T110000Z")));
    const calendar = await s.add(`${base}${path}`);
    await syncOne(s.clinicId, calendar.id);
    const later = (minutes: number) => () => new Date(pinnedNow().getTime() + minutes * MINUTE);
    served.set(path, { status: 500, body: "boom" });
    await syncOne(s.clinicId, calendar.id, later(10));
    const failed = await s.staff.calendars.get({ clinic_id: s.clinicId, user_id: s.provider.id, id: calendar.id });
    expect(failed).toMatchObject({ status: "error", last_error: "the server answered HTTP 500", busy_count: 1 });
    expect(await s.starts()).not.toContain("10:00");
    expect(await s.starts()).toContain("12:00");
    await syncOne(s.clinicId, calendar.id, later(61));
    expect(
      (await s.staff.calendars.get({ clinic_id: s.clinicId, user_id: s.provider.id, id: calendar.id })).status,
    ).toBe("stale");
    expect(await s.starts()).toEqual([]);
    const why = await s.staff.availability.explain({
      clinic_id: s.clinicId,
      service_id: s.service,
      start: at("12:00"),
    });
    expect(why.providers[0]?.reasons.map((r) => r.code)).toEqual(["CALENDAR_STALE"]);
    served.set(path, { body: calendarOf(vevent("ev-1", "20270315T100000Z", "20270315T110000Z")) });
    await syncOne(s.clinicId, calendar.id, later(70));
    expect(
      (await s.staff.calendars.get({ clinic_id: s.clinicId, user_id: s.provider.id, id: calendar.id })).status,
    ).toBe("ok");
    expect(await s.starts()).toContain("12:00");
    expect(await s.starts()).not.toContain("10:00");
    const recorded = await t.db
      .select({ type: events.type, data: events.data })
      .from(events)
      .where(eq(events.clinicId, s.clinicId))
      .orderBy(asc(events.seq));
    const types = recorded.map((e) => e.type).filter((type) => type.startsWith("calendar."));
    expect(types).toEqual(["calendar.sync_failed", "calendar.sync_failed", "calendar.recovered"]);
    expect(JSON.stringify(recorded)).not.toContain("Secret meeting");
  });

  it("says why a calendar cannot be read: refused, garbage, too large, too slow, too many events", async () => {
    const s = await setup();
    const cases: [Answer, string, { timeoutMs?: number; maxBytes?: number; maxEvents?: number }][] = [
      [{ status: 401, body: "no" }, "the server refused access (HTTP 401)", {}],
      [{ body: "<html>not a calendar</html>" }, "not iCalendar", {}],
      [
        { body: calendarOf(vevent("a", "20270315T100000Z", "20270315T110000Z")).padEnd(3000, " ") },
        "larger than",
        { maxBytes: 2000 },
      ],
      [{ body: calendarOf(), delayMs: 2000 }, "no answer within", { timeoutMs: 300 }],
      [
        {
          body: calendarOf(
            vevent("a", "20270315T100000Z", "20270315T110000Z"),
            vevent("b", "20270315T120000Z", "20270315T130000Z"),
          ),
        },
        "more than 1",
        { maxEvents: 1 },
      ],
    ];
    for (const [answer, message, limits] of cases) {
      const calendar = await s.add(`${base}${serve(answer)}`);
      // The wall clock: a calendar that never synced turns stale CALENDAR_STALE_AFTER_S after it was added.
      await syncOne(s.clinicId, calendar.id, () => new Date(), limits);
      const got = await s.staff.calendars.get({ clinic_id: s.clinicId, user_id: s.provider.id, id: calendar.id });
      expect(got.status).toBe("error");
      expect(got.last_error).toContain(message);
      expect(got.last_error).not.toContain(base);
      await s.admin.calendars.delete({ clinic_id: s.clinicId, user_id: s.provider.id, id: calendar.id });
    }
  });

  it("K4 runs a sync now; two workers at once run it once (one job per calendar, leased)", async () => {
    const s = await setup();
    const path = serve(calendarOf(vevent("ev-1", "20270315T100000Z", "20270315T110000Z")));
    const calendar = await s.add(`${base}${path}`);
    await syncDue();
    expect(requests.get(path)).toBe(1);
    // Not due again before its interval (its job's next time is the sync clock's + 300 s).
    await syncDue();
    expect(requests.get(path)).toBe(1);
    const answered = await s.admin.calendars.sync({ clinic_id: s.clinicId, user_id: s.provider.id, id: calendar.id });
    expect(answered.id).toBe(calendar.id);
    await s.admin.calendars.sync({ clinic_id: s.clinicId, user_id: s.provider.id, id: calendar.id });
    served.set(path, { body: calendarOf(vevent("ev-1", "20270315T100000Z", "20270315T110000Z")), delayMs: 200 });
    await Promise.all([syncDue(), syncDue(), syncDue()]);
    expect(requests.get(path)).toBe(2);
  });

  it("a provider who joins another clinic is blocked there at the next sync, even when the calendar did not change (304)", async () => {
    const a = await setup();
    const path = serve({
      body: calendarOf(vevent("ev-1", "20270315T100000Z", "20270315T110000Z")),
      headers: { etag: '"v1"' },
    });
    const calendar = await a.add(`${base}${path}`);
    await syncOne(a.clinicId, calendar.id);
    // Unchanged and alone: a 304, nothing read.
    await syncOne(a.clinicId, calendar.id, () => new Date(pinnedNow().getTime() + 5 * MINUTE));
    expect(requests.get(path)).toBe(2);
    const { startsB } = await secondClinicOf(a.provider);
    expect(await startsB()).toContain("10:00");
    await syncOne(a.clinicId, calendar.id, () => new Date(pinnedNow().getTime() + 10 * MINUTE));
    expect(await startsB()).not.toContain("10:00");
  });

  it("busy time blocks the provider in every clinic of theirs", async () => {
    const a = await setup();
    const { b, serviceB, startsB } = await secondClinicOf(a.provider);
    expect(await startsB()).toContain("10:00");
    const calendar = await a.add(`${base}${serve(calendarOf(vevent("ev-1", "20270315T100000Z", "20270315T110000Z")))}`);
    await syncOne(a.clinicId, calendar.id);
    expect(await startsB()).not.toContain("10:00");
    expect(
      await codeOf(
        callerOf(b.staff).appointments.book({
          clinic_id: b.clinicId,
          service_id: serviceB,
          start: at("10:00"),
          patient: { name: "Pat" },
        }),
      ),
    ).toBe("SLOT_UNAVAILABLE");
    await a.admin.calendars.delete({ clinic_id: a.clinicId, user_id: a.provider.id, id: calendar.id });
    expect(await startsB()).toContain("10:00");
  });
});
