// A calendar's sync (CONTRACT §18; docs/calendars.md#sync): read the provider's calendar, turn it
// into busy time, and copy that into every clinic of the provider with their versions bumped. One
// job row per calendar (its id is the calendar's) that repeats itself: the queue's lease is the
// "one sync of one calendar at a time, with any number of processes".
import { createHash } from "node:crypto";
import { and, eq, gt, lt, sql } from "drizzle-orm";
import { fetchCalendarObjects, getBasicAuthHeaders, propfind } from "tsdav";
import {
  type CalendarStatus,
  type CalendarSyncState,
  type Db,
  appointments,
  calendarBusy,
  calendars,
  clinics,
  services,
} from "@clinic/db";
import { type BusyInterval, CalendarDataError, busyFromICalendar } from "../../domain/icalBusy.ts";
import { invalidateAvailability } from "../availability/index.ts";
import { recordChanges } from "../events/index.ts";
import type { Repeat } from "../jobs/index.ts";
import { type CalendarSyncJob, calendarColumns, clinicsOfProvider, dropBusyCopies, toCalendar } from "./calendars.ts";
import { guardedFetch } from "./fetch.ts";
import { type CalendarSecret, decryptSecret } from "./secret.ts";

const DAY = 86_400_000;
/** A skip (nothing changed) never lasts longer than this: the horizon moves on every day. */
const FULL_READ_EVERY_MS = 12 * 3_600_000;
/** A stale calendar's row spans all the time anyone books. */
const STALE_FROM = new Date("2000-01-01T00:00:00Z");
const STALE_TO = new Date("9999-01-01T00:00:00Z");

/** How calendars are read (CALENDAR_* settings, docs/calendars.md). */
export interface CalendarSyncSettings {
  key: Buffer | null;
  allowPrivate: boolean;
  syncIntervalS: number;
  staleAfterS: number;
  /** Each request's limit (§18: 10 s). */
  timeoutMs: number;
  /** An answer's limit (§18: 5 MB). */
  maxBytes: number;
  /** A calendar's limit (§18: 20,000 events). */
  maxEvents: number;
  now: () => Date;
}

export const defaultCalendarLimits = { timeoutMs: 10_000, maxBytes: 5 * 1024 * 1024, maxEvents: 20_000 };

/** A read that failed: its message is what `last_error` says (no secrets: never the URL or a credential). */
export class CalendarReadError extends Error {}

interface Loaded {
  id: string;
  clinicId: string;
  providerId: string;
  kind: "ics" | "caldav";
  secret: string;
  status: CalendarStatus;
  lastSyncedAt: Date | null;
  createdAt: Date;
  busyDigest: string | null;
  busyClinicIds: string[];
  syncState: CalendarSyncState;
  timeZone: string;
}

/** What a read found: the busy set, or that nothing changed since the last one. */
type ReadResult =
  { unchanged: true; state: CalendarSyncState } | { unchanged: false; busy: BusyInterval[]; state: CalendarSyncState };

/** Runs one sync of the job's calendar; answers when it runs again (nothing when the calendar is gone). */
export async function runCalendarSync(
  db: Db,
  settings: CalendarSyncSettings,
  job: CalendarSyncJob,
): Promise<Repeat | undefined> {
  const calendar = await load(db, job);
  if (!calendar) return undefined;
  const now = settings.now();
  const window = await horizonOf(db, calendar.clinicId, now);
  let result: ReadResult | Error;
  try {
    if (!settings.key)
      throw new CalendarReadError("the service has no CALENDAR_KEY to read the calendar's secret with");
    const secret = decryptSecret(settings.key, calendar.id, calendar.secret);
    const ownIds = await ownAppointmentIds(db, calendar, window);
    // A provider who joined or left a clinic since the last read: read it all, to copy it anew.
    const clinicIds = await clinicsOfProvider(db, calendar.clinicId, calendar.providerId);
    const moved = clinicIds.join(",") !== [...calendar.busyClinicIds].sort().join(",");
    result = await read(calendar, secret, settings, window, now, (uid) => ownIds.has(uid.toLowerCase()), moved);
  } catch (error) {
    result = error instanceof Error ? error : new Error(String(error));
  }
  const base = calendar.lastSyncedAt ?? calendar.createdAt;
  if (result instanceof Error) {
    const stale = now.getTime() - base.getTime() >= settings.staleAfterS * 1000;
    await recordFailure(db, calendar, messageOf(result), stale);
    return { repeatAt: new Date(now.getTime() + nextDelayMs(settings, stale ? null : base, now)) };
  }
  await recordSuccess(db, calendar, result, now);
  return { repeatAt: new Date(now.getTime() + nextDelayMs(settings, now, now)) };
}

/** The next run: one interval on, or sooner when the calendar would turn stale before it (then at that moment). */
function nextDelayMs(settings: CalendarSyncSettings, lastSuccess: Date | null, now: Date): number {
  const interval = settings.syncIntervalS * 1000;
  if (!lastSuccess) return interval;
  const untilStale = lastSuccess.getTime() + settings.staleAfterS * 1000 - now.getTime();
  return Math.max(1000, Math.min(interval, untilStale > 0 ? untilStale : interval));
}

/**
 * A failure's message as `last_error` keeps it: ours as is; anything else (the guarded fetch's, a
 * library's) by its first line with every URL taken out — a library's message may carry the
 * server's URL or its answer, and `last_error` carries no secret.
 */
function messageOf(error: Error): string {
  if (error instanceof CalendarReadError || error instanceof CalendarDataError) return error.message.slice(0, 500);
  const line = (error.message.split("\n", 1)[0] ?? "").replace(/\b[a-z][a-z0-9+.-]*:\/\/\S*/gi, "<url>");
  const raw = line.indexOf("Raw response");
  return (raw >= 0 ? line.slice(0, raw).trim() : line).slice(0, 300) || "the calendar could not be read";
}

async function load(db: Db, job: CalendarSyncJob): Promise<Loaded | undefined> {
  const [row] = await db
    .select({
      id: calendars.id,
      clinicId: calendars.clinicId,
      providerId: calendars.providerId,
      kind: calendars.kind,
      secret: calendars.secret,
      status: calendars.status,
      lastSyncedAt: calendars.lastSyncedAt,
      createdAt: calendars.createdAt,
      busyDigest: calendars.busyDigest,
      busyClinicIds: calendars.busyClinicIds,
      syncState: calendars.syncState,
      timeZone: clinics.timezone,
    })
    .from(calendars)
    .innerJoin(clinics, eq(clinics.id, calendars.clinicId))
    .where(and(eq(calendars.clinicId, job.clinicId), eq(calendars.id, job.calendarId), eq(clinics.id, job.clinicId)));
  return row;
}

/**
 * The time busy time is read for: from a day ago (an event under way) to the clinic's widest booking
 * horizon, at most 366 days ahead (§18), and a day more for the local dates at its end.
 */
async function horizonOf(db: Db, clinicId: string, now: Date): Promise<{ from: Date; to: Date }> {
  const [row] = await db
    .select({ days: sql<number | null>`max(coalesce(${services.bookingHorizonDays}, 366))` })
    .from(services)
    .where(and(eq(services.clinicId, clinicId), sql`${services.deletedAt} is null`));
  const days = Math.min(366, row?.days ?? 366);
  return { from: new Date(now.getTime() - DAY), to: new Date(now.getTime() + (days + 1) * DAY) };
}

/** The provider's own appointments in the window, in every clinic of theirs: the UIDs write-back and the feeds use (§10). */
async function ownAppointmentIds(db: Db, calendar: Loaded, window: { from: Date; to: Date }): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const clinicId of await clinicsOfProvider(db, calendar.clinicId, calendar.providerId)) {
    const rows = await db
      .select({ id: appointments.id })
      .from(appointments)
      .where(
        and(
          eq(appointments.clinicId, clinicId),
          eq(appointments.providerId, calendar.providerId),
          lt(appointments.startsAt, window.to),
          gt(appointments.endsAt, window.from),
        ),
      );
    for (const row of rows) ids.add(row.id);
  }
  return ids;
}

async function read(
  calendar: Loaded,
  secret: CalendarSecret,
  settings: CalendarSyncSettings,
  window: { from: Date; to: Date },
  now: Date,
  ignoreUid: (uid: string) => boolean,
  readAll: boolean,
): Promise<ReadResult> {
  const fetch = guardedFetch({
    allowPrivate: settings.allowPrivate,
    timeoutMs: settings.timeoutMs,
    maxBytes: settings.maxBytes,
  });
  const fresh = (state: CalendarSyncState) =>
    !readAll &&
    state.fullReadAt !== undefined &&
    state.fullReadAt !== null &&
    now.getTime() - Date.parse(state.fullReadAt) < FULL_READ_EVERY_MS;
  const options = {
    fromMs: window.from.getTime(),
    toMs: window.to.getTime(),
    timeZone: calendar.timeZone,
    ignoreUid,
    maxEvents: settings.maxEvents,
  };
  if (calendar.kind === "ics") {
    const previous = calendar.syncState;
    const headers: Record<string, string> = { accept: "text/calendar", ...authHeadersOf(secret) };
    if (fresh(previous) && previous.etag) headers["if-none-match"] = previous.etag;
    if (fresh(previous) && previous.lastModified) headers["if-modified-since"] = previous.lastModified;
    const answer = await fetch(secret.url, { headers });
    if (answer.status === 304) return { unchanged: true, state: previous };
    if (answer.status === 401 || answer.status === 403)
      throw new CalendarReadError(`the server refused access (HTTP ${String(answer.status)})`);
    if (answer.status < 200 || answer.status >= 300)
      throw new CalendarReadError(`the server answered HTTP ${String(answer.status)}`);
    const busy = busyFromICalendar(await answer.text(), options);
    return {
      unchanged: false,
      busy,
      state: {
        etag: answer.headers.get("etag"),
        lastModified: answer.headers.get("last-modified"),
        fullReadAt: now.toISOString(),
      },
    };
  }
  // CalDAV: the collection's sync-token (RFC 6578), else its getctag, says whether anything changed.
  const headers = authHeadersOf(secret);
  const [props] = await propfind({
    url: secret.url,
    props: { "d:sync-token": {}, "cs:getctag": {} },
    depth: "0",
    headers,
    fetch,
  });
  assertDavOk(props?.status);
  const syncToken = stringOf(props?.props?.syncToken);
  const ctag = stringOf(props?.props?.getctag);
  const previous = calendar.syncState;
  if (
    fresh(previous) &&
    ((syncToken !== null && syncToken === previous.syncToken) ||
      (syncToken === null && ctag !== null && ctag === previous.ctag))
  )
    return { unchanged: true, state: previous };
  // The horizon only (a time-range calendar-query, RFC 4791 §7.8).
  let objects: Awaited<ReturnType<typeof fetchCalendarObjects>>;
  try {
    objects = await fetchCalendarObjects({
      calendar: { url: secret.url },
      timeRange: { start: window.from.toISOString(), end: window.to.toISOString() },
      headers,
      fetch,
    });
  } catch (error) {
    // tsdav's message carries the URL and the server's answer: only the status is kept.
    const status = /\b([45]\d\d)\b/.exec(error instanceof Error ? error.message : "")?.[1];
    if (status) assertDavOk(Number(status));
    throw error;
  }
  if (objects.length > settings.maxEvents)
    throw new CalendarDataError(`more than ${settings.maxEvents.toLocaleString("en")} events`);
  const busy: BusyInterval[] = [];
  let events = 0;
  for (const object of objects) {
    const text = typeof object.data === "string" ? object.data : "";
    if (!text) continue;
    const found = busyFromICalendar(text, { ...options, maxEvents: Math.max(1, settings.maxEvents - events) });
    events += 1;
    busy.push(...found);
  }
  return { unchanged: false, busy: merge(busy), state: { syncToken, ctag, fullReadAt: now.toISOString() } };
}

function stringOf(value: unknown): string | null {
  if (typeof value === "string" && value) return value;
  if (typeof value === "number") return String(value);
  return null;
}

function assertDavOk(status: number | undefined): void {
  if (status === undefined || (status >= 200 && status < 300)) return;
  if (status === 401 || status === 403)
    throw new CalendarReadError(`the server refused access (HTTP ${String(status)})`);
  throw new CalendarReadError(`the server answered HTTP ${String(status)}`);
}

/** Sorted, overlapping and touching intervals merged. */
function merge(list: BusyInterval[]): BusyInterval[] {
  const sorted = [...list].sort((a, b) => a.start - b.start || a.end - b.end);
  const out: BusyInterval[] = [];
  for (const i of sorted) {
    const last = out.at(-1);
    if (last && i.start <= last.end) last.end = Math.max(last.end, i.end);
    else out.push({ ...i });
  }
  return out;
}

function digestOf(busy: readonly BusyInterval[], clinicIds: readonly string[]): string {
  return createHash("sha256")
    .update(JSON.stringify([clinicIds, busy.map((b) => [b.start, b.end])]))
    .digest("base64url");
}

/** Locks the calendar's row for the write of a sync's outcome; undefined when it was deleted meanwhile. */
async function lockCalendar(tx: Db, calendar: Loaded) {
  const [row] = await tx
    .select({ status: calendars.status, busyDigest: calendars.busyDigest, busyClinicIds: calendars.busyClinicIds })
    .from(calendars)
    .where(and(eq(calendars.clinicId, calendar.clinicId), eq(calendars.id, calendar.id)))
    .for("update");
  return row;
}

async function recordSuccess(db: Db, calendar: Loaded, result: ReadResult, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const current = await lockCalendar(tx, calendar);
    if (!current) return;
    const clinicIds = await clinicsOfProvider(tx, calendar.clinicId, calendar.providerId);
    let busyFields = {};
    if (!result.unchanged) {
      const digest = digestOf(result.busy, clinicIds);
      // A busy set that changed (or a calendar that was stale) is written anew in every clinic of the
      // provider, their versions bumped; the same set writes nothing and bumps nothing.
      if (digest !== current.busyDigest || current.status === "stale") {
        await dropBusyCopies(tx, calendar.id, calendar.providerId, [
          ...new Set([...current.busyClinicIds, ...clinicIds]),
        ]);
        await insertBusy(tx, calendar, clinicIds, result.busy);
      }
      busyFields = { busyDigest: digest, busyClinicIds: clinicIds, busyCount: result.busy.length };
    } else if (current.status === "stale") {
      // Unchanged, but no longer stale: only the all-time row goes.
      await dropStaleRows(tx, calendar, current.busyClinicIds);
    }
    const [after] = await tx
      .update(calendars)
      .set({ status: "ok", lastSyncedAt: now, lastError: null, syncState: result.state, ...busyFields })
      .where(and(eq(calendars.clinicId, calendar.clinicId), eq(calendars.id, calendar.id)))
      .returning(calendarColumns);
    if (after && (current.status === "error" || current.status === "stale"))
      await recordChanges(tx, calendar.clinicId, [
        { type: "calendar.recovered", data: { ...toCalendar(after), previous_status: current.status } },
      ]);
  });
}

async function recordFailure(db: Db, calendar: Loaded, message: string, stale: boolean): Promise<void> {
  await db.transaction(async (tx) => {
    const current = await lockCalendar(tx, calendar);
    if (!current) return;
    const status: CalendarStatus = stale ? "stale" : "error";
    if (status === "stale" && current.status !== "stale") {
      // The provider offers nothing in any clinic until the calendar syncs (§18): one row over all time.
      const clinicIds = [
        ...new Set([
          ...current.busyClinicIds,
          ...(await clinicsOfProvider(tx, calendar.clinicId, calendar.providerId)),
        ]),
      ].sort();
      for (const clinicId of clinicIds) {
        await invalidateAvailability(tx, clinicId, [calendar.providerId]);
      }
      await tx
        .insert(calendarBusy)
        .values(
          clinicIds.map((clinicId) => ({
            clinicId,
            providerId: calendar.providerId,
            calendarClinicId: calendar.clinicId,
            calendarId: calendar.id,
            startsAt: STALE_FROM,
            endsAt: STALE_TO,
            stale: true,
          })),
        )
        .onConflictDoNothing();
      await tx
        .update(calendars)
        .set({ busyClinicIds: clinicIds })
        .where(and(eq(calendars.clinicId, calendar.clinicId), eq(calendars.id, calendar.id)));
    }
    const [after] = await tx
      .update(calendars)
      .set({ status, lastError: message })
      .where(and(eq(calendars.clinicId, calendar.clinicId), eq(calendars.id, calendar.id)))
      .returning(calendarColumns);
    if (after && current.status !== status && !(current.status === "stale" && status === "error"))
      await recordChanges(tx, calendar.clinicId, [
        { type: "calendar.sync_failed", data: { ...toCalendar(after), previous_status: current.status } },
      ]);
  });
}

async function insertBusy(
  tx: Db,
  calendar: Loaded,
  clinicIds: readonly string[],
  busy: readonly BusyInterval[],
): Promise<void> {
  const rows = clinicIds.flatMap((clinicId) =>
    busy.map((b) => ({
      clinicId,
      providerId: calendar.providerId,
      calendarClinicId: calendar.clinicId,
      calendarId: calendar.id,
      startsAt: new Date(b.start),
      endsAt: new Date(b.end),
    })),
  );
  // In pieces: a statement's parameters are limited (65,535).
  for (let i = 0; i < rows.length; i += 5000) await tx.insert(calendarBusy).values(rows.slice(i, i + 5000));
}

async function dropStaleRows(tx: Db, calendar: Loaded, clinicIds: readonly string[]): Promise<void> {
  for (const clinicId of [...clinicIds].sort()) {
    await invalidateAvailability(tx, clinicId, [calendar.providerId]);
    await tx
      .delete(calendarBusy)
      .where(
        and(
          eq(calendarBusy.clinicId, clinicId),
          eq(calendarBusy.calendarId, calendar.id),
          eq(calendarBusy.stale, true),
        ),
      );
  }
}

/** HTTP Basic credentials of a calendar (given as username/password or in its URL), if it has any. */
function authHeadersOf(secret: CalendarSecret): Record<string, string> {
  return secret.username !== null && secret.password !== null
    ? getBasicAuthHeaders({ username: secret.username, password: secret.password })
    : {};
}
