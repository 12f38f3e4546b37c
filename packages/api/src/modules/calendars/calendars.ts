// Providers' own calendars, K1–K4 (CONTRACT §18; docs/calendars.md): what a calendar is, and
// adding, listing, removing and syncing one. The sync itself is in sync.ts, write-back in writeBack.ts.
import { and, asc, count, eq, gt, inArray, lt } from "drizzle-orm";
import { z } from "zod";
import {
  type Db,
  calendarBusy,
  calendarKinds,
  calendarStatuses,
  calendars,
  clinicMembers,
  jobs,
  sharedProviders,
} from "@clinic/db";
import { DomainError, notFound, validationFailed } from "../../errors.ts";
import { invalidateAvailability } from "../availability/index.ts";
import { cancelJobs, queueNames, runRecurringNow } from "../jobs/index.ts";
import { assertSafeWebhookUrl } from "../webhooks/index.ts";
import { instantOutput } from "../../schemas/wire.ts";
import { encryptSecret, shownUrlOf } from "./secret.ts";

/** At most this many calendars per provider per clinic (§18). */
export const maxCalendarsPerProvider = 5;

export const calendarOutput = z.object({
  id: z.string(),
  clinic_id: z.string(),
  provider_id: z.string(),
  kind: z.enum(calendarKinds),
  /** Without user, password and query string. */
  url: z.string(),
  name: z.string().nullable(),
  write_back: z.boolean(),
  status: z.enum(calendarStatuses),
  last_synced_at: instantOutput.nullable(),
  last_error: z.string().nullable(),
  busy_count: z.number().int(),
  created_at: instantOutput,
});
export type CalendarView = z.infer<typeof calendarOutput>;

/** What the calendars' routes need of the process (docs/calendars.md#secrets). */
export interface CalendarAccess {
  /** The key secrets are encrypted with; null on a production start without CALENDAR_KEY. */
  key: Buffer | null;
  /** WEBHOOK_ALLOW_PRIVATE: http and internal addresses allowed (development and tests). */
  allowPrivate: boolean;
}

/** The columns of a Calendar's view (`toCalendar`). */
export const calendarColumns = {
  id: calendars.id,
  clinicId: calendars.clinicId,
  providerId: calendars.providerId,
  kind: calendars.kind,
  shownUrl: calendars.shownUrl,
  name: calendars.name,
  writeBack: calendars.writeBack,
  status: calendars.status,
  lastSyncedAt: calendars.lastSyncedAt,
  lastError: calendars.lastError,
  busyCount: calendars.busyCount,
  createdAt: calendars.createdAt,
};
interface Row {
  id: string;
  clinicId: string;
  providerId: string;
  kind: (typeof calendarKinds)[number];
  shownUrl: string;
  name: string | null;
  writeBack: boolean;
  status: (typeof calendarStatuses)[number];
  lastSyncedAt: Date | null;
  lastError: string | null;
  busyCount: number;
  createdAt: Date;
}

export function toCalendar(row: Row): CalendarView {
  return {
    id: row.id,
    clinic_id: row.clinicId,
    provider_id: row.providerId,
    kind: row.kind,
    url: row.shownUrl,
    name: row.name,
    write_back: row.writeBack,
    status: row.status,
    last_synced_at: row.lastSyncedAt,
    last_error: row.lastError,
    busy_count: row.busyCount,
    created_at: row.createdAt,
  };
}

export interface NewCalendar {
  kind: (typeof calendarKinds)[number];
  url: string;
  username?: string | undefined;
  password?: string | undefined;
  name?: string | undefined;
  writeBack?: boolean | undefined;
}

/** The data of a calendar's one sync job (its id is the calendar's: one row per calendar). */
export interface CalendarSyncJob {
  clinicId: string;
  calendarId: string;
}

/**
 * K1: adds a calendar of a provider of the clinic and starts its first sync. 422 for a sixth, a
 * `write_back` ICS calendar or CalDAV without credentials; 400 for a URL that breaks §10's rules.
 */
export async function createCalendar(
  db: Db,
  access: CalendarAccess,
  clinicId: string,
  providerId: string,
  input: NewCalendar,
): Promise<CalendarView> {
  if (input.kind === "ics" && input.writeBack)
    throw validationFailed("write_back", "only a caldav calendar can be written to");
  if (input.kind === "ics" && (input.username !== undefined || input.password !== undefined))
    throw validationFailed(
      input.username !== undefined ? "username" : "password",
      "an ics calendar takes no credentials",
    );
  if (input.kind === "caldav" && (input.username === undefined) !== (input.password === undefined))
    throw validationFailed(
      input.username === undefined ? "username" : "password",
      "give both username and password, or neither",
    );
  // A URL may carry its credentials (`https://user:pass@host/…`, as many calendar apps hand it out,
  // §18): they are taken out of it, checked like username/password, and kept encrypted with them.
  const { url: given, username, password } = credentialsOf(input);
  const url = await assertSafeWebhookUrl(given, access.allowPrivate);
  if (!access.key)
    throw new DomainError(
      "UNAVAILABLE",
      "calendars cannot be stored: the service has no CALENDAR_KEY to encrypt their URLs and passwords with",
    );
  const key = access.key;
  return db.transaction(async (tx) => {
    // The provider's row, locked: two additions at once count one after the other.
    const [member] = await tx
      .select({ isProvider: clinicMembers.isProvider })
      .from(clinicMembers)
      .where(and(eq(clinicMembers.clinicId, clinicId), eq(clinicMembers.userId, providerId)))
      .for("update");
    if (!member?.isProvider)
      // The path names no provider: 404 on every verb of K1–K4, as P2 answers such a path.
      throw notFound("provider");
    const [existing] = await tx
      .select({ n: count() })
      .from(calendars)
      .where(and(eq(calendars.clinicId, clinicId), eq(calendars.providerId, providerId)));
    if ((existing?.n ?? 0) >= maxCalendarsPerProvider)
      throw new DomainError(
        "VALIDATION_FAILED",
        `calendars: a provider has at most ${String(maxCalendarsPerProvider)} calendars in a clinic`,
        {
          errors: [
            { path: "calendars", message: `at most ${String(maxCalendarsPerProvider)} per provider and clinic` },
          ],
          status: "UNPROCESSABLE_CONTENT",
        },
      );
    const id = crypto.randomUUID();
    const [row] = await tx
      .insert(calendars)
      .values({
        id,
        clinicId,
        providerId,
        kind: input.kind,
        shownUrl: shownUrlOf(url),
        // The URL kept whole but for its user info (its query string may be the credential).
        secret: encryptSecret(key, id, { url: url.href, username, password }),
        name: input.name ?? null,
        writeBack: input.writeBack ?? false,
      })
      .returning(calendarColumns);
    if (!row) throw new Error("the calendar was not written");
    // Its first sync, now (one job per calendar; it repeats itself: sync.ts).
    await runRecurringNow(tx, clinicId, id, queueNames.calendarSync, {
      clinicId,
      calendarId: id,
    } satisfies CalendarSyncJob);
    return toCalendar(row);
  });
}

/**
 * The URL without its user info, and the credentials: those the URL carried (percent-decoded), or
 * the given `username` and `password`. Both at once is 400 at `url`: which to use would be a guess.
 */
function credentialsOf(input: NewCalendar): { url: string; username: string | null; password: string | null } {
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    throw validationFailed("url", "must be an absolute URL");
  }
  if (!url.username && !url.password)
    return { url: input.url, username: input.username ?? null, password: input.password ?? null };
  if (input.username !== undefined || input.password !== undefined)
    throw validationFailed("url", "give the credentials in the URL or as username and password, not both");
  let username: string;
  let password: string;
  try {
    username = decodeURIComponent(url.username);
    password = decodeURIComponent(url.password);
  } catch {
    throw validationFailed("url", "the user info is not valid percent-encoding");
  }
  url.username = "";
  url.password = "";
  return { url: url.href, username, password };
}

export const busyOutput = z.object({
  starts_at: instantOutput,
  ends_at: instantOutput,
  /** A stale calendar's: the provider offers nothing until it syncs (§18). */
  stale: z.boolean(),
});

/**
 * The provider's busy time from their calendars overlapping [from, to), as this clinic holds it
 * (the desk's "busy (calendar)"): times only, the service keeps nothing else of an event. At most
 * 2,000 intervals.
 */
export async function listBusy(db: Db, clinicId: string, providerId: string, from: Date, to: Date) {
  const rows = await db
    .select({ startsAt: calendarBusy.startsAt, endsAt: calendarBusy.endsAt, stale: calendarBusy.stale })
    .from(calendarBusy)
    .where(
      and(
        eq(calendarBusy.clinicId, clinicId),
        eq(calendarBusy.providerId, providerId),
        gt(calendarBusy.endsAt, from),
        lt(calendarBusy.startsAt, to),
      ),
    )
    .orderBy(asc(calendarBusy.startsAt))
    .limit(2000);
  return rows.map((r) => ({ starts_at: r.startsAt, ends_at: r.endsAt, stale: r.stale }));
}

/** K2: the provider's calendars in the clinic, oldest first. */
export async function listCalendars(db: Db, clinicId: string, providerId: string): Promise<CalendarView[]> {
  const rows = await db
    .select(calendarColumns)
    .from(calendars)
    .where(and(eq(calendars.clinicId, clinicId), eq(calendars.providerId, providerId)))
    .orderBy(asc(calendars.createdAt), asc(calendars.id));
  return rows.map(toCalendar);
}

/** K3 GET: one calendar (404 when it is not this provider's in this clinic). */
export async function getCalendar(db: Db, clinicId: string, providerId: string, id: string): Promise<CalendarView> {
  const [row] = await db
    .select(calendarColumns)
    .from(calendars)
    .where(and(eq(calendars.clinicId, clinicId), eq(calendars.providerId, providerId), eq(calendars.id, id)));
  if (!row) throw notFound("calendar");
  return toCalendar(row);
}

/**
 * The clinics a provider's busy time is copied to: every clinic they are a provider of (a shared
 * provider's list), or the one clinic.
 */
export async function clinicsOfProvider(db: Db, clinicId: string, providerId: string): Promise<string[]> {
  const [shared] = await db
    .select({ clinicIds: sharedProviders.clinicIds })
    .from(sharedProviders)
    .where(eq(sharedProviders.userId, providerId));
  return [...new Set([clinicId, ...(shared?.clinicIds ?? [])])].sort();
}

/**
 * Removes a calendar's busy time from every clinic that holds a copy and bumps the provider's
 * versions there (clinic order, as every writer of several clinics does), in `tx`.
 */
export async function dropBusyCopies(
  tx: Db,
  calendarId: string,
  providerId: string,
  clinicIds: readonly string[],
): Promise<void> {
  for (const clinicId of [...clinicIds].sort()) {
    await invalidateAvailability(tx, clinicId, [providerId]);
    await tx
      .delete(calendarBusy)
      .where(and(eq(calendarBusy.clinicId, clinicId), eq(calendarBusy.calendarId, calendarId)));
  }
}

/** K3 DELETE: the calendar goes, and its busy time with it in every clinic, at once (one transaction). */
export async function deleteCalendar(db: Db, clinicId: string, providerId: string, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = await tx
      .delete(calendars)
      .where(and(eq(calendars.clinicId, clinicId), eq(calendars.providerId, providerId), eq(calendars.id, id)))
      .returning({ busyClinicIds: calendars.busyClinicIds });
    if (!row) throw notFound("calendar");
    await dropBusyCopies(tx, id, providerId, row.busyClinicIds);
    // Its sync job; a run under way finds no calendar and ends.
    await cancelJobs(tx, clinicId, [id]);
  });
}

/** K4: the calendar's sync runs now (a sync under way counts as it). */
export async function requestSync(db: Db, clinicId: string, providerId: string, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = await tx
      .select({ id: calendars.id })
      .from(calendars)
      .where(and(eq(calendars.clinicId, clinicId), eq(calendars.providerId, providerId), eq(calendars.id, id)))
      .for("share");
    if (!row) throw notFound("calendar");
    await runRecurringNow(tx, clinicId, id, queueNames.calendarSync, {
      clinicId,
      calendarId: id,
    } satisfies CalendarSyncJob);
  });
}

/** Calendars that have a sync job queued or running (tests, /metrics): the queue's rows of calendar-sync. */
export async function calendarSyncJobs(db: Db, clinicId: string, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const [row] = await db
    .select({ n: count() })
    .from(jobs)
    .where(and(eq(jobs.clinicId, clinicId), eq(jobs.queue, queueNames.calendarSync), inArray(jobs.jobId, [...ids])));
  return row?.n ?? 0;
}
