import { and, eq, sql } from "drizzle-orm";
import { type Db, type DeliveryStatus, events, webhookDeliveries, webhooks } from "@clinic/db";
import { type RecordedEvent, eventJson, toEvent } from "../events/index.ts";
import { type PostResult, postJson } from "./outbound.ts";
import { type DeliveryJob, scheduleAttempt, signedHeaders } from "./webhooks.ts";

/**
 * Plans the deliveries of newly recorded events, in their transaction, through the one planner the
 * SQL writers use too (`clinic_plan_deliveries`, drizzle/functions): one delivery per event and
 * active webhook of the clinic subscribed to its type, with its first attempt queued. So a delivery
 * exists exactly when its event does, and nothing is lost when the server stops. A delivery keeps
 * no copy of the event: its body is rendered from the event's row when it is sent (`eventJson`).
 */
export async function planDeliveries(tx: Db, clinicId: string, recorded: readonly RecordedEvent[]): Promise<void> {
  if (recorded.length === 0) return;
  await tx.execute(
    sql`select clinic_plan_deliveries(${clinicId}::uuid, ${`{${recorded.map((e) => e.id).join(",")}}`}::uuid[], ${`{${recorded.map((e) => e.type).join(",")}}`}::text[])`,
  );
}

/** How deliveries are attempted (docs/events.md#webhooks). */
export interface DeliverySettings {
  /** Seconds to wait before each retry after a failed attempt; when they run out, the delivery fails. */
  retryDelaysS: readonly number[];
  allowPrivate: boolean;
  timeoutMs: number;
}

/**
 * Runs one queued attempt of a delivery: POST the event, signed, to the webhook's url; record the
 * outcome; on failure queue the next attempt after the next delay of the schedule, or mark the
 * delivery failed when the schedule is spent. A job for an attempt that is no longer current (the
 * delivery was retried by hand, or the webhook deleted or paused) does nothing.
 */
export async function runDeliveryAttempt(db: Db, job: DeliveryJob, settings: DeliverySettings): Promise<void> {
  const [row] = await db
    .select({
      delivery: webhookDeliveries,
      event: events,
      url: webhooks.url,
      secret: webhooks.secret,
      active: webhooks.active,
    })
    .from(webhookDeliveries)
    .innerJoin(
      webhooks,
      and(eq(webhooks.clinicId, webhookDeliveries.clinicId), eq(webhooks.id, webhookDeliveries.webhookId)),
    )
    .leftJoin(events, and(eq(events.clinicId, webhookDeliveries.clinicId), eq(events.id, webhookDeliveries.eventId)))
    .where(and(eq(webhookDeliveries.clinicId, job.clinicId), eq(webhookDeliveries.id, job.deliveryId)));
  if (!row || row.delivery.status !== "pending" || row.delivery.attempts !== job.attempt) return;
  if (!row.active) {
    await finish(db, job, { error: "the webhook is paused" }, "failed");
    return;
  }
  const body = deliveryBody(row.delivery, row.event);
  if (body === undefined) {
    await finish(db, job, { error: "the event no longer exists" }, "failed");
    return;
  }
  // Wall-clock time, always: receivers check the signed timestamp against their own clock.
  const sentAt = new Date();
  const result = await postJson(new URL(row.url), body, signedHeaders(row.secret, row.delivery.eventId, body, sentAt), {
    allowPrivate: settings.allowPrivate,
    timeoutMs: settings.timeoutMs,
  });
  if (result.status !== undefined && result.status >= 200 && result.status < 300) {
    await finish(db, job, result, "succeeded");
    return;
  }
  const delay = settings.retryDelaysS[job.attempt];
  if (delay === undefined) {
    await finish(db, job, result, "failed");
    return;
  }
  await db.transaction(async (tx) => {
    if (await record(tx, job, result, "pending"))
      await scheduleAttempt(tx, job.clinicId, job.deliveryId, job.attempt + 1, delay, new Date());
  });
}

/**
 * What a delivery sends: its event, rendered from the event's row; an event that is not in the feed
 * (`webhook.test`) keeps its data on the delivery and is rendered by the same function.
 */
function deliveryBody(
  delivery: typeof webhookDeliveries.$inferSelect,
  event: typeof events.$inferSelect | null,
): string | undefined {
  if (event) return eventJson(toEvent(event));
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

async function finish(db: Db, job: DeliveryJob, result: PostResult, status: "succeeded" | "failed"): Promise<void> {
  await record(db, job, result, status);
}

/** The age in seconds of the oldest pending delivery (for /metrics), 0 when none. */
export async function oldestPendingDeliveryAgeS(db: Db, now: Date): Promise<number> {
  const [row] = await db
    .select({ oldest: sql<Date | null>`min(${webhookDeliveries.createdAt})` })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.status, "pending"));
  const oldest = row?.oldest ? new Date(row.oldest) : undefined;
  return oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0;
}

/** How many deliveries the database holds in each status, over all clinics (for /metrics). */
export async function deliveryCountsByStatus(db: Db): Promise<Record<DeliveryStatus, number>> {
  const rows = await db
    .select({ status: webhookDeliveries.status, count: sql<number>`count(*)::int` })
    .from(webhookDeliveries)
    .groupBy(webhookDeliveries.status);
  const counts: Record<DeliveryStatus, number> = { pending: 0, succeeded: 0, failed: 0 };
  for (const row of rows) counts[row.status] = row.count;
  return counts;
}
