import { createHash, randomBytes } from "node:crypto";
import { and, asc, eq, gte, lt, notInArray } from "drizzle-orm";
import ical, { ICalCalendarMethod, ICalEventStatus } from "ical-generator";
import { z } from "zod";
import { appointments, calendarFeeds, clinics, type Db } from "@clinic/db";
import { notFound, returnedRow } from "../../errors.ts";
import { instantOutput } from "../../schemas/wire.ts";
import { selectAppointments } from "../booking/index.ts";

/** A calendar feed as listed: its url is shown once, at creation (only a hash of its token is kept). */
export const calendarFeedOutput = z.object({
  id: z.string(),
  provider_id: z.string().nullable(),
  include_patient_names: z.boolean(),
  created_at: instantOutput,
});
/** The answer of creating a feed (F1): with the feed's url, which is never shown again. */
export const createdCalendarFeedOutput = calendarFeedOutput.extend({ url: z.string() });
export type CalendarFeedView = z.infer<typeof calendarFeedOutput>;

const toFeed = (row: typeof calendarFeeds.$inferSelect): CalendarFeedView => ({
  id: row.id,
  provider_id: row.providerId,
  include_patient_names: row.includePatientNames,
  created_at: row.createdAt,
});

const hashOf = (secret: string) => createHash("sha256").update(secret).digest("hex");

/**
 * A feed's token: the clinic's id (so the feed is found on the clinic's shard, and its data read
 * in one clinic) and 32 random bytes, of which only a hash is stored.
 */
function newToken(clinicId: string): { token: string; hash: string } {
  const secret = randomBytes(32).toString("base64url");
  return { token: `${clinicId.replaceAll("-", "")}${secret}`, hash: hashOf(secret) };
}

function parseToken(token: string): { clinicId: string; hash: string } | undefined {
  const match = /^([0-9a-f]{32})([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match?.[1] || !match[2]) return undefined;
  const hex = match[1];
  const clinicId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return { clinicId, hash: hashOf(match[2]) };
}

/** Creates a feed of the clinic (providerId null) or of one provider; answers it with its url (under `baseUrl`). */
export async function createCalendarFeed(
  db: Db,
  clinicId: string,
  input: { providerId: string | null; includePatientNames: boolean },
  baseUrl: string,
): Promise<z.infer<typeof createdCalendarFeedOutput>> {
  const { token, hash } = newToken(clinicId);
  const row = returnedRow(
    await db
      .insert(calendarFeeds)
      .values({
        clinicId,
        providerId: input.providerId,
        includePatientNames: input.includePatientNames,
        tokenHash: hash,
      })
      .returning(),
    "calendar feed",
  );
  return { ...toFeed(row), url: `${baseUrl}/v1/calendar/${token}.ics` };
}

/** The clinic's feeds, or only one provider's, by creation. */
export async function listCalendarFeeds(db: Db, clinicId: string, providerId?: string): Promise<CalendarFeedView[]> {
  const rows = await db
    .select()
    .from(calendarFeeds)
    .where(and(eq(calendarFeeds.clinicId, clinicId), providerId ? eq(calendarFeeds.providerId, providerId) : undefined))
    .orderBy(asc(calendarFeeds.createdAt), asc(calendarFeeds.id));
  return rows.map(toFeed);
}

/** A feed of the clinic, for an authorization decision about it; 404 when absent. */
export async function getCalendarFeed(db: Db, clinicId: string, id: string): Promise<CalendarFeedView> {
  const [row] = await db
    .select()
    .from(calendarFeeds)
    .where(and(eq(calendarFeeds.clinicId, clinicId), eq(calendarFeeds.id, id)));
  if (!row) throw notFound("calendar feed");
  return toFeed(row);
}

/** Deletes a feed: its url answers 404 from then on. */
export async function deleteCalendarFeed(db: Db, clinicId: string, id: string): Promise<void> {
  const deleted = await db
    .delete(calendarFeeds)
    .where(and(eq(calendarFeeds.clinicId, clinicId), eq(calendarFeeds.id, id)))
    .returning({ id: calendarFeeds.id });
  if (deleted.length === 0) throw notFound("calendar feed");
}

const DAY = 86_400_000;

/**
 * The iCalendar (RFC 5545) text of the feed with `token`: one VEVENT per booked appointment from
 * 30 days ago to 365 days ahead, UID the appointment id, times in UTC, SUMMARY the service name
 * (and the patient's name when the feed includes them), SEQUENCE the appointment's revision (it
 * grows with each reschedule). Canceled appointments drop out. 404 for an unknown or deleted feed.
 */
export async function renderCalendarFeed(db: Db, token: string, now: Date): Promise<string> {
  const parsed = parseToken(token);
  if (!parsed) throw notFound("calendar feed");
  const [feed] = await db
    .select({
      providerId: calendarFeeds.providerId,
      includePatientNames: calendarFeeds.includePatientNames,
      clinicName: clinics.name,
    })
    .from(calendarFeeds)
    .innerJoin(clinics, eq(clinics.id, calendarFeeds.clinicId))
    .where(and(eq(calendarFeeds.clinicId, parsed.clinicId), eq(calendarFeeds.tokenHash, parsed.hash)));
  if (!feed) throw notFound("calendar feed");
  const rows = await selectAppointments(db)
    .where(
      and(
        eq(appointments.clinicId, parsed.clinicId),
        // Every appointment that takes its time, but holds (a few minutes, not yet anyone's visit).
        notInArray(appointments.status, ["canceled", "held"]),
        gte(appointments.startsAt, new Date(now.getTime() - 30 * DAY)),
        lt(appointments.startsAt, new Date(now.getTime() + 365 * DAY)),
        feed.providerId ? eq(appointments.providerId, feed.providerId) : undefined,
      ),
    )
    .orderBy(asc(appointments.startsAt), asc(appointments.id));
  const calendar = ical({
    name: feed.clinicName,
    prodId: { company: "Clinic Scheduling Service", product: "calendar-feed" },
    ttl: 15 * 60,
  });
  for (const row of rows) {
    calendar.createEvent({
      id: row.id,
      start: row.startsAt,
      end: row.endsAt,
      stamp: row.updatedAt,
      sequence: row.revision,
      summary: feed.includePatientNames ? `${row.serviceName} – ${row.patientName}` : row.serviceName,
      description: `with ${row.providerName}`,
    });
  }
  return calendar.toString();
}

/** One appointment as a message's attachment (§15): the same UID, times and SEQUENCE as in a feed. */
export interface AppointmentEvent {
  id: string;
  clinicName: string;
  serviceName: string;
  providerName: string;
  start: Date;
  end: Date;
  updatedAt: Date;
  revision: number;
  /** A cancellation withdraws the event (METHOD:CANCEL, STATUS:CANCELLED). */
  canceled: boolean;
}

/**
 * The iCalendar (RFC 5545) text of one appointment, for an e-mail's `.ics` attachment. Its UID is
 * the appointment's id, as in every calendar feed, so a calendar that has both shows one event,
 * and a later message (moved: a higher SEQUENCE; canceled: METHOD:CANCEL) updates that event.
 */
export function appointmentIcs(event: AppointmentEvent): string {
  const calendar = ical({
    name: event.clinicName,
    prodId: { company: "Clinic Scheduling Service", product: "appointment" },
    method: event.canceled ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.PUBLISH,
  });
  calendar.createEvent({
    id: event.id,
    start: event.start,
    end: event.end,
    stamp: event.updatedAt,
    sequence: event.revision,
    summary: `${event.serviceName} – ${event.clinicName}`,
    description: `with ${event.providerName}`,
    status: event.canceled ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
  });
  return calendar.toString();
}
