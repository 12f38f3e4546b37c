// Write-back (CONTRACT §18; docs/calendars.md#write-back): a provider's appointments in their own
// CalDAV calendar, as VEVENTs with the §10 feed's UID (the appointment's id), its times, SUMMARY
// the service's name and nothing about the patient; updated when the appointment moves or changes,
// removed when it is canceled or leaves the provider. One job per change, planned in the change's
// transaction (clinic_plan_write_back); the job reads the appointment as it then is, so jobs may
// run in any order, any number of times, and the calendar ends as the appointment is.
import { and, eq, inArray, sql } from "drizzle-orm";
import ical from "ical-generator";
import { deleteObject, getBasicAuthHeaders, updateObject } from "tsdav";
import { type Db, appointments, calendarWrites, calendars, clinics, services } from "@clinic/db";
import { type RecordedEvent, onEventsRecorded } from "../events/index.ts";
import { type Job, enqueue, queueNames } from "../jobs/index.ts";
import { guardedFetch } from "./fetch.ts";
import { decryptSecret } from "./secret.ts";
import type { CalendarSyncSettings } from "./sync.ts";

export interface WriteBackJob {
  clinicId: string;
  appointmentId: string;
  /** The retries so far (the webhook backoff, WEBHOOK_RETRY_DELAYS_S). */
  retry?: number;
}

const appointmentTypes = new Set([
  "appointment.booked",
  "appointment.canceled",
  "appointment.rescheduled",
  "appointment.status_changed",
]);

/** The TypeScript writers' appointment events plan their write-back through the one SQL planner. */
export async function planWriteBacks(tx: Db, clinicId: string, recorded: readonly RecordedEvent[]): Promise<void> {
  for (const event of recorded) {
    if (!appointmentTypes.has(event.type)) continue;
    await tx.execute(
      sql`select clinic_plan_write_back(${clinicId}::uuid, ${event.type}, ${JSON.stringify(event.data)}::jsonb)`,
    );
  }
}
onEventsRecorded(planWriteBacks);

/** The VEVENT of one appointment as written back: the feed's UID, times and SEQUENCE; the service's name. */
export function writeBackIcs(a: {
  id: string;
  serviceName: string;
  start: Date;
  end: Date;
  updatedAt: Date;
  revision: number;
  clinicName: string;
}): string {
  const calendar = ical({ prodId: { company: "Clinic Scheduling Service", product: "write-back" } });
  calendar.createEvent({
    id: a.id,
    start: a.start,
    end: a.end,
    stamp: a.updatedAt,
    sequence: a.revision,
    summary: a.serviceName,
    location: a.clinicName,
  });
  return calendar.toString();
}

/**
 * Makes the provider's write-back calendars hold the appointment as it is now: PUT where it
 * occupies time (§13, a hold aside), DELETE where it was written and no longer belongs. A failed
 * request throws after the others ran; the job is then planned again after the webhook backoff.
 */
export async function runCalendarWriteBack(
  db: Db,
  settings: CalendarSyncSettings & { retryDelaysS: readonly number[] },
  job: Job<WriteBackJob>,
): Promise<void> {
  const { clinicId, appointmentId } = job.data;
  try {
    // Twice at most: an appointment that changed while it was written is written again.
    for (let round = 0; round < 2; round++) {
      const written = await writeOnce(db, settings, clinicId, appointmentId);
      if (written === "settled") return;
    }
  } catch (error) {
    const retry = job.data.retry ?? 0;
    const delayS = settings.retryDelaysS[retry];
    if (delayS === undefined) throw error;
    await enqueue(
      db,
      clinicId,
      queueNames.calendarWriteBack,
      { clinicId, appointmentId, retry: retry + 1 } satisfies WriteBackJob,
      {
        startAfter: new Date(settings.now().getTime() + delayS * 1000),
      },
    );
  }
}

async function writeOnce(
  db: Db,
  settings: CalendarSyncSettings,
  clinicId: string,
  appointmentId: string,
): Promise<"settled" | "changed"> {
  if (!settings.key) throw new Error("the service has no CALENDAR_KEY to read the calendars' secrets with");
  const key = settings.key;
  const [appointment] = await db
    .select({
      id: appointments.id,
      providerId: appointments.providerId,
      startsAt: appointments.startsAt,
      endsAt: appointments.endsAt,
      updatedAt: appointments.updatedAt,
      revision: appointments.revision,
      serviceName: services.name,
      clinicName: clinics.name,
      occupies: sql<boolean>`clinic_occupies(${appointments.status}, ${appointments.heldUntil}, now()) and ${appointments.status} <> 'held'`,
    })
    .from(appointments)
    .innerJoin(services, and(eq(services.clinicId, appointments.clinicId), eq(services.id, appointments.serviceId)))
    .innerJoin(clinics, eq(clinics.id, appointments.clinicId))
    .where(
      and(eq(appointments.clinicId, clinicId), eq(appointments.id, appointmentId), eq(services.clinicId, clinicId)),
    );
  const targets = appointment?.occupies
    ? await db
        .select({ id: calendars.id, secret: calendars.secret })
        .from(calendars)
        .where(
          and(
            eq(calendars.clinicId, clinicId),
            eq(calendars.providerId, appointment.providerId),
            eq(calendars.writeBack, true),
          ),
        )
    : [];
  const writes = await db
    .select({ calendarId: calendarWrites.calendarId, href: calendarWrites.href, revision: calendarWrites.revision })
    .from(calendarWrites)
    .where(and(eq(calendarWrites.clinicId, clinicId), eq(calendarWrites.appointmentId, appointmentId)));
  const fetch = guardedFetch({
    allowPrivate: settings.allowPrivate,
    timeoutMs: settings.timeoutMs,
    maxBytes: settings.maxBytes,
  });
  const failures: string[] = [];
  const targetIds = new Set(targets.map((t) => t.id));
  // PUT into each write-back calendar (the same href each time: a repeat overwrites).
  for (const target of targets) {
    if (!appointment) break;
    const done = writes.find((w) => w.calendarId === target.id);
    if (done && done.revision === appointment.revision) continue;
    try {
      const secret = decryptSecret(key, target.id, target.secret);
      const href = new URL(`${appointment.id}.ics`, secret.url.endsWith("/") ? secret.url : `${secret.url}/`).href;
      const answer = await updateObject({
        url: href,
        data: writeBackIcs({
          id: appointment.id,
          serviceName: appointment.serviceName,
          start: appointment.startsAt,
          end: appointment.endsAt,
          updatedAt: appointment.updatedAt,
          revision: appointment.revision,
          clinicName: appointment.clinicName,
        }),
        headers: { "content-type": "text/calendar; charset=utf-8", ...authOf(secret) },
        fetch,
      });
      if (!answer.ok) throw new Error(`the calendar server answered HTTP ${String(answer.status)} to the write`);
      await db
        .insert(calendarWrites)
        .values({
          clinicId,
          calendarId: target.id,
          appointmentId,
          href,
          etag: answer.headers.get("etag"),
          revision: appointment.revision,
        })
        .onConflictDoUpdate({
          target: [calendarWrites.clinicId, calendarWrites.appointmentId, calendarWrites.calendarId],
          set: { href, etag: answer.headers.get("etag"), revision: appointment.revision },
        });
    } catch (error) {
      failures.push(error instanceof Error ? error.message : String(error));
    }
  }
  // DELETE where it no longer belongs (canceled, moved to another provider, the calendar's write-back off).
  const gone = writes.filter((w) => !targetIds.has(w.calendarId));
  if (gone.length > 0) {
    const secrets = await db
      .select({ id: calendars.id, secret: calendars.secret })
      .from(calendars)
      .where(
        and(
          eq(calendars.clinicId, clinicId),
          inArray(
            calendars.id,
            gone.map((w) => w.calendarId),
          ),
        ),
      );
    for (const write of gone) {
      const stored = secrets.find((s) => s.id === write.calendarId);
      try {
        if (stored) {
          const secret = decryptSecret(key, stored.id, stored.secret);
          const answer = await deleteObject({ url: write.href, headers: authOf(secret), fetch });
          if (!answer.ok && answer.status !== 404 && answer.status !== 410)
            throw new Error(`the calendar server answered HTTP ${String(answer.status)} to the removal`);
        }
        await db
          .delete(calendarWrites)
          .where(
            and(
              eq(calendarWrites.clinicId, clinicId),
              eq(calendarWrites.appointmentId, appointmentId),
              eq(calendarWrites.calendarId, write.calendarId),
            ),
          );
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
      }
    }
  }
  if (failures.length > 0) throw new Error(failures[0]);
  if (!appointment) return "settled";
  const [now] = await db
    .select({ revision: appointments.revision })
    .from(appointments)
    .where(and(eq(appointments.clinicId, clinicId), eq(appointments.id, appointmentId)));
  return now?.revision === appointment.revision ? "settled" : "changed";
}

function authOf(secret: { username: string | null; password: string | null }): Record<string, string> {
  return secret.username !== null && secret.password !== null
    ? getBasicAuthHeaders({ username: secret.username, password: secret.password })
    : {};
}
