import { and, eq, sql } from "drizzle-orm";
import {
  type BookingAnswer,
  type Db,
  type DeliveryStatus,
  appointments,
  eventData,
  events,
  rowsOf,
  webhookDeliveries,
  webhookSent,
  webhooks,
} from "@clinic/db";
import { type EventRow, eventJson, toEvent } from "../events/index.ts";
import { type PostResult, postJson } from "./outbound.ts";
import { type DeliveryJob, scheduleAttempt, signedHeaders } from "./webhooks.ts";

/** How deliveries are attempted (docs/events.md#webhooks). */
export interface DeliverySettings {
  /** Seconds to wait before each retry after a failed attempt; when they run out, the delivery fails. */
  retryDelaysS: readonly number[];
  allowPrivate: boolean;
  timeoutMs: number;
}

/** A delivery with what its attempt needs: the event's row, the webhook's url, secret and state. */
interface DeliveryToSend {
  delivery: typeof webhookDeliveries.$inferSelect;
  event: EventRow | null;
  url: string;
  secret: string;
  active: boolean;
  includeAnswers: boolean;
  /** The appointment's answers, for a webhook that opted in and an appointment event (§19). */
  answers?: BookingAnswer[] | undefined;
}

/** An attempt's outcome to record: the delivery's new status and what the receiver answered. */
interface Outcome {
  job: DeliveryJob;
  result: PostResult;
  status: "succeeded" | "failed";
}

/**
 * Runs queued attempts of deliveries — those of one claim, a clinic's, together (the job queue's
 * batch handler; docs/jobs.md): one read of the deliveries with their events and webhooks, the
 * POSTs at once, and one write of the outcomes. Each attempt POSTs the event, signed, to the
 * webhook's url; on failure the next attempt is queued after the next delay of the schedule (in a
 * transaction of its own), or the delivery is marked failed when the schedule is spent. A job for
 * an attempt that is no longer current (the delivery was retried by hand, or the webhook deleted
 * or paused) does nothing. Answers each job's outcome for the queue (null: done).
 */
export async function runDeliveryAttempts(
  db: Db,
  list: readonly DeliveryJob[],
  settings: DeliverySettings,
): Promise<(Error | null)[]> {
  const results: (Error | null)[] = list.map(() => null);
  const clinics = [...new Set(list.map((job) => job.clinicId))];
  for (const clinicId of clinics) {
    const mine = list.flatMap((job, i) => (job.clinicId === clinicId ? [{ job, i }] : []));
    try {
      const rows = await readDeliveries(
        db,
        clinicId,
        mine.map(({ job }) => job.deliveryId),
      );
      const outcomes = await Promise.allSettled(
        mine.map(({ job }) => attempt(db, job, rows.get(job.deliveryId), settings)),
      );
      const done: Outcome[] = [];
      outcomes.forEach((outcome, k) => {
        const entry = mine[k];
        if (!entry) return;
        if (outcome.status === "rejected")
          results[entry.i] = outcome.reason instanceof Error ? outcome.reason : new Error(String(outcome.reason));
        else if (outcome.value) done.push(outcome.value);
      });
      await recordOutcomes(db, clinicId, done);
    } catch (error) {
      for (const { i } of mine) results[i] = error instanceof Error ? error : new Error(String(error));
    }
  }
  return results;
}

async function readDeliveries(db: Db, clinicId: string, ids: readonly string[]): Promise<Map<string, DeliveryToSend>> {
  const rows = await db
    .select({
      delivery: webhookDeliveries,
      eventId: events.id,
      // The event's data as E1 shows it (a snapshot rendered); null without an event.
      eventData,
      eventType: events.type,
      eventOccurredAt: events.occurredAt,
      url: webhooks.url,
      secret: webhooks.secret,
      active: webhooks.active,
      includeAnswers: webhooks.includeAnswers,
    })
    .from(webhookDeliveries)
    .innerJoin(
      webhooks,
      and(eq(webhooks.clinicId, webhookDeliveries.clinicId), eq(webhooks.id, webhookDeliveries.webhookId)),
    )
    .leftJoin(events, and(eq(events.clinicId, webhookDeliveries.clinicId), eq(events.id, webhookDeliveries.eventId)))
    .where(
      and(eq(webhookDeliveries.clinicId, clinicId), sql`${webhookDeliveries.id} = any (${sql.param(ids)}::uuid[])`),
    );
  const read = rows.map(({ eventId, eventData: data, eventType, eventOccurredAt, ...row }) => ({
    ...row,
    event:
      eventId === null || eventType === null || eventOccurredAt === null
        ? null
        : { id: eventId, clinicId: row.delivery.clinicId, type: eventType, occurredAt: eventOccurredAt, data },
  }));
  const answers = await answersFor(db, clinicId, read);
  return new Map(
    read.map((row) => {
      const id = row.includeAnswers ? appointmentIdOf(row.event) : undefined;
      return [row.delivery.id, { ...row, answers: id === undefined ? undefined : answers.get(id) }];
    }),
  );
}

/** The appointment an event is about, when it is an appointment event (its data is the appointment). */
export function appointmentIdOf(event: { type: string; data: unknown } | null): string | undefined {
  if (!event?.type.startsWith("appointment.")) return undefined;
  const data = event.data;
  const id = typeof data === "object" && data !== null && "id" in data ? data.id : undefined;
  return typeof id === "string" ? id : undefined;
}

/**
 * The answers of the appointments that the deliveries of opted-in webhooks are about (§19), as the
 * appointment holds them when the delivery is sent: one read, by primary key, only when one opted in.
 */
async function answersFor(
  db: Db,
  clinicId: string,
  rows: readonly { includeAnswers: boolean; event: EventRow | null }[],
): Promise<Map<string, BookingAnswer[]>> {
  return appointmentAnswers(
    db,
    clinicId,
    rows.flatMap((row) => (row.includeAnswers ? (appointmentIdOf(row.event) ?? []) : [])),
  );
}

/** The answers of these appointments of the clinic (§19), in one read by primary key; none read for none. */
export async function appointmentAnswers(
  db: Db,
  clinicId: string,
  appointmentIds: readonly string[],
): Promise<Map<string, BookingAnswer[]>> {
  const ids = [...new Set(appointmentIds)];
  if (ids.length === 0) return new Map();
  const found = await db
    .select({ id: appointments.id, answers: appointments.answers })
    .from(appointments)
    .where(and(eq(appointments.clinicId, clinicId), sql`${appointments.id} = any (${sql.param(ids)}::uuid[])`));
  return new Map(found.map((row) => [row.id, row.answers]));
}

/**
 * One attempt: answers the outcome to record with the others, or undefined when there is nothing
 * to record (not current) or it was recorded already (a failure with a retry, queued in its own
 * transaction with the next attempt).
 */
async function attempt(
  db: Db,
  job: DeliveryJob,
  row: DeliveryToSend | undefined,
  settings: DeliverySettings,
): Promise<Outcome | undefined> {
  if (!row || row.delivery.status !== "pending" || row.delivery.attempts !== job.attempt) return undefined;
  if (!row.active) return { job, result: { error: "the webhook is paused" }, status: "failed" };
  const body = deliveryBody(row.delivery, row.event, row.answers);
  if (body === undefined) return { job, result: { error: "the event no longer exists" }, status: "failed" };
  // Wall-clock time, always: receivers check the signed timestamp against their own clock.
  const sentAt = new Date();
  const result = await postJson(new URL(row.url), body, signedHeaders(row.secret, row.delivery.eventId, body, sentAt), {
    allowPrivate: settings.allowPrivate,
    timeoutMs: settings.timeoutMs,
  });
  if (result.status !== undefined && result.status >= 200 && result.status < 300)
    return { job, result, status: "succeeded" };
  const delay = settings.retryDelaysS[job.attempt];
  if (delay === undefined) return { job, result, status: "failed" };
  await db.transaction(async (tx) => {
    if (await record(tx, job, result, "pending"))
      await scheduleAttempt(tx, job.clinicId, job.deliveryId, job.attempt + 1, delay, new Date());
  });
  return undefined;
}

/** Records the final outcomes of attempts that are still current, in one statement. */
async function recordOutcomes(db: Db, clinicId: string, outcomes: readonly Outcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  const values = outcomes.map(({ job, result, status }) => ({
    id: job.deliveryId,
    attempt: job.attempt,
    status,
    code: result.status ?? null,
    error: result.error ?? null,
  }));
  await db.execute(sql`
    update ${webhookDeliveries} d
    set status = v.status, attempts = v.attempt + 1, last_status_code = v.code, last_error = v.error,
        next_attempt_at = null, job_id = null,
        updated_at = greatest(now(), ((d.updated_at at time zone 'UTC') + interval '1 millisecond') at time zone 'UTC')
    from jsonb_to_recordset(${JSON.stringify(values)}::jsonb) as v(id uuid, attempt int, status text, code int, error text)
    where d.clinic_id = ${clinicId}::uuid and d.id = v.id and d.attempts = v.attempt and d.status = 'pending'`);
}

/**
 * What a delivery sends: its event, rendered from the event's row; an event that is not in the feed
 * (`webhook.test`) keeps its data on the delivery and is rendered by the same function.
 */
function deliveryBody(
  delivery: typeof webhookDeliveries.$inferSelect,
  event: EventRow | null,
  answers: BookingAnswer[] | undefined,
): string | undefined {
  if (event) {
    const recorded = toEvent(event);
    return eventJson(answers === undefined ? recorded : { ...recorded, data: { ...recorded.data, answers } });
  }
  if (delivery.data === null) return undefined;
  return eventJson({
    id: delivery.eventId,
    type: delivery.eventType,
    clinic_id: delivery.clinicId,
    occurred_at: delivery.createdAt,
    data: delivery.data,
  });
}

/** Records an attempt's outcome if it is still the current one; answers whether it was. */
async function record(
  db: Db,
  job: DeliveryJob,
  result: PostResult,
  status: "pending" | "succeeded" | "failed",
): Promise<boolean> {
  const updated = await db
    .update(webhookDeliveries)
    .set({
      status,
      attempts: job.attempt + 1,
      lastStatusCode: result.status ?? null,
      lastError: result.error ?? null,
      nextAttemptAt: null,
      jobId: null,
    })
    .where(
      and(
        eq(webhookDeliveries.clinicId, job.clinicId),
        eq(webhookDeliveries.id, job.deliveryId),
        eq(webhookDeliveries.attempts, job.attempt),
        eq(webhookDeliveries.status, "pending"),
      ),
    )
    .returning({ id: webhookDeliveries.id });
  return updated.length > 0;
}

/**
 * The age in seconds of the oldest pending delivery (for /metrics), 0 when none: a retry waiting
 * in its row, or the first event after an active webhook's cursor in the feed (an event of a type
 * it does not take counts until its next read moves the cursor past it).
 */
export async function oldestPendingDeliveryAgeS(db: Db, now: Date): Promise<number> {
  const [retry] = await db
    .select({ oldest: sql<Date | null>`min(${webhookDeliveries.createdAt})` })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.status, "pending"));
  const [first] = rowsOf<{ oldest: Date | string | null }>(
    await db.execute(sql`
      select min(e.occurred_at) as oldest from ${webhooks} w
      join ${events} e on e.clinic_id = w.clinic_id and e.seq = w.feed_seq + 1
      where w.active`),
  );
  const times = [retry?.oldest, first?.oldest].flatMap((at) => (at ? [new Date(at).getTime()] : []));
  return times.length > 0 ? Math.max(0, (now.getTime() - Math.min(...times)) / 1000) : 0;
}

/** How many deliveries the database holds in each status, over all clinics (for /metrics). */
export async function deliveryCountsByStatus(db: Db): Promise<Record<DeliveryStatus, number>> {
  const rows = await db
    .select({ status: webhookDeliveries.status, count: sql<number>`count(*)::int` })
    .from(webhookDeliveries)
    .groupBy(webhookDeliveries.status);
  const counts: Record<DeliveryStatus, number> = { pending: 0, succeeded: 0, failed: 0 };
  for (const row of rows) counts[row.status] = row.count;
  // First attempts that succeeded are recorded a batch to a row (docs/events.md#delivery-history).
  const [sent] = rowsOf<{ n: number | string | null }>(
    await db.execute(sql`select sum(cardinality(${webhookSent.seqs})) as n from ${webhookSent}`),
  );
  counts.succeeded += Number(sent?.n ?? 0);
  return counts;
}
