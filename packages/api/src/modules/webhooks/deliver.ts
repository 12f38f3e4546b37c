import { and, eq, sql } from "drizzle-orm";
import { type Db, type DeliveryStatus, webhookDeliveries, webhooks } from "@clinic/db";
import type { RecordedEvent } from "../events/index.ts";
import { type PostResult, postJson } from "./outbound.ts";
import { type DeliveryJob, createDeliveries, scheduleAttempt, signedHeaders } from "./webhooks.ts";

/**
 * Plans the deliveries of newly recorded events, in their transaction: one per event and active
 * webhook of the clinic subscribed to its type, with its first attempt queued. So a delivery exists
 * exactly when its event does, and nothing is lost when the server stops.
 */
export async function planDeliveries(
  tx: Db,
  clinicId: string,
  recorded: readonly RecordedEvent[],
  occurredAt: Date,
): Promise<void> {
  if (recorded.length === 0) return;
  const active = await tx
    .select({ id: webhooks.id, eventTypes: webhooks.eventTypes })
    .from(webhooks)
    .where(and(eq(webhooks.clinicId, clinicId), eq(webhooks.active, true)));
  if (active.length === 0) return;
  for (const event of recorded) {
    const hooks = active.filter((hook) => hook.eventTypes.includes("*") || hook.eventTypes.includes(event.type));
    const payload = {
      id: event.id,
      type: event.type,
      clinic_id: clinicId,
      occurred_at: occurredAt.toISOString(),
      data: event.data,
    };
    await createDeliveries(tx, clinicId, hooks, { id: event.id, type: event.type, payload }, occurredAt);
  }
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
    .select({ delivery: webhookDeliveries, url: webhooks.url, secret: webhooks.secret, active: webhooks.active })
    .from(webhookDeliveries)
    .innerJoin(
      webhooks,
      and(eq(webhooks.clinicId, webhookDeliveries.clinicId), eq(webhooks.id, webhookDeliveries.webhookId)),
    )
    .where(and(eq(webhookDeliveries.clinicId, job.clinicId), eq(webhookDeliveries.id, job.deliveryId)));
  if (!row || row.delivery.status !== "pending" || row.delivery.attempts !== job.attempt) return;
  if (!row.active) {
    await finish(db, job, { error: "the webhook is paused" }, "failed");
    return;
  }
  const body = JSON.stringify(row.delivery.payload);
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
