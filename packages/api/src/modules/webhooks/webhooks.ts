import { randomBytes } from "node:crypto";
import { and, asc, eq, sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { z } from "zod";
import { type Db, type DeliveryStatus, deliveryStatuses, rowsOf, webhookDeliveries, webhooks } from "@clinic/db";
import { DomainError, notFound, returnedRow } from "../../errors.ts";
import { keyset } from "../../pagination.ts";
import { instantOutput } from "../../schemas/wire.ts";
import { eventTypes } from "../events/index.ts";
import { cancelJobs, enqueue, queueNames } from "../jobs/index.ts";
import { assertSafeWebhookUrl } from "./outbound.ts";

/** A webhook as the API shows it; its secret appears only in the answer that creates it. */
export const webhookOutput = z.object({
  id: z.string(),
  url: z.string(),
  event_types: z.array(z.string()),
  description: z.string().nullable(),
  active: z.boolean(),
  /** Appointment events carry the appointment's `answers` (§19); false: never. */
  include_answers: z.boolean(),
  created_at: instantOutput,
  updated_at: instantOutput,
});
export const createdWebhookOutput = webhookOutput.extend({ secret: z.string() });
export type WebhookView = z.infer<typeof webhookOutput>;

/** A subscription: event type names, or "*" for every one. */
export const eventTypesInput = z
  .array(z.enum(["*", ...eventTypes]))
  .min(1)
  .max(eventTypes.length + 1);

type WebhookRow = typeof webhooks.$inferSelect;
const toWebhook = (row: WebhookRow): WebhookView => ({
  id: row.id,
  url: row.url,
  event_types: row.eventTypes,
  description: row.description,
  active: row.active,
  include_answers: row.includeAnswers,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

/** The outbound rules in force (docs/events.md#outbound-safety). */
export interface WebhookSettings {
  allowPrivate: boolean;
}

/** Where a webhook created (or resumed) now starts in its clinic's feed: after the last event recorded. */
export async function webhookFeedEnd(db: Db, clinicId: string): Promise<number> {
  const [row] = rowsOf<{ last_seq: number | string }>(
    await db.execute(sql`select last_seq from event_counters where clinic_id = ${clinicId}::uuid`),
  );
  return Number(row?.last_seq ?? 0);
}

const ownWebhook = (clinicId: string, id: string) => and(eq(webhooks.clinicId, clinicId), eq(webhooks.id, id));

/** Creates a webhook with a new `whsec_` signing secret, answered this once. */
export async function createWebhook(
  db: Db,
  clinicId: string,
  input: {
    url: string;
    eventTypes: string[];
    description?: string | undefined;
    includeAnswers?: boolean | undefined;
  },
  settings: WebhookSettings,
): Promise<z.infer<typeof createdWebhookOutput>> {
  const url = await assertSafeWebhookUrl(input.url, settings.allowPrivate);
  const secret = `whsec_${randomBytes(24).toString("base64")}`;
  // A new webhook starts at its clinic's feed's end: it is sent what happens from now on.
  const feedSeq = await webhookFeedEnd(db, clinicId);
  const row = returnedRow(
    await db
      .insert(webhooks)
      .values({
        clinicId,
        url: url.toString(),
        eventTypes: [...new Set(input.eventTypes)],
        description: input.description ?? null,
        includeAnswers: input.includeAnswers ?? false,
        secret,
        feedSeq,
      })
      .returning(),
    "webhook",
  );
  return { ...toWebhook(row), secret };
}

export async function listWebhooks(db: Db, clinicId: string): Promise<WebhookView[]> {
  const rows = await db
    .select()
    .from(webhooks)
    .where(eq(webhooks.clinicId, clinicId))
    .orderBy(asc(webhooks.createdAt), asc(webhooks.id));
  return rows.map(toWebhook);
}

export async function updateWebhook(
  db: Db,
  clinicId: string,
  id: string,
  patch: {
    url?: string | undefined;
    eventTypes?: string[] | undefined;
    description?: string | null | undefined;
    active?: boolean | undefined;
    includeAnswers?: boolean | undefined;
  },
  settings: WebhookSettings,
): Promise<WebhookView> {
  const url =
    patch.url === undefined ? undefined : (await assertSafeWebhookUrl(patch.url, settings.allowPrivate)).toString();
  const set = {
    url,
    eventTypes: patch.eventTypes ? [...new Set(patch.eventTypes)] : undefined,
    description: patch.description,
    active: patch.active,
    includeAnswers: patch.includeAnswers,
  };
  // An empty PATCH changes nothing and writes nothing, so updated_at stays (an empty SET is no SQL).
  const unchanged = Object.values(set).every((value) => value === undefined);
  // A paused webhook is sent nothing of what happened while it was paused (as a webhook created
  // then): resuming moves its cursor to the feed's end, a cursor read before the update (an event
  // committed in between is sent: at least once from the resume on).
  const resumeAt = patch.active === true ? await webhookFeedEnd(db, clinicId) : undefined;
  const [row] = unchanged
    ? await db.select().from(webhooks).where(ownWebhook(clinicId, id))
    : await db
        .update(webhooks)
        .set({
          ...set,
          ...(resumeAt === undefined
            ? {}
            : { feedSeq: sql`case when ${webhooks.active} then ${webhooks.feedSeq} else ${resumeAt}::bigint end` }),
        })
        .where(ownWebhook(clinicId, id))
        .returning();
  if (!row) throw notFound("webhook");
  return toWebhook(row);
}

export async function deleteWebhook(db: Db, clinicId: string, id: string): Promise<void> {
  const deleted = await db.delete(webhooks).where(ownWebhook(clinicId, id)).returning({ id: webhooks.id });
  if (deleted.length === 0) throw notFound("webhook");
}

// ---------------------------------------------------------------------------------------------
// Deliveries

export const deliveryOutput = z.object({
  id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  status: z.enum(deliveryStatuses),
  attempts: z.number().int(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  next_attempt_at: instantOutput.nullable(),
  created_at: instantOutput,
  updated_at: instantOutput,
});
export type DeliveryView = z.infer<typeof deliveryOutput>;

type DeliveryRow = typeof webhookDeliveries.$inferSelect;
const toDelivery = (row: DeliveryRow): DeliveryView => ({
  id: row.id,
  event_id: row.eventId,
  event_type: row.eventType,
  status: row.status,
  attempts: row.attempts,
  last_status_code: row.lastStatusCode,
  last_error: row.lastError,
  next_attempt_at: row.nextAttemptAt,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

/** Deliveries are listed newest first. */
const deliveryPages = keyset<DeliveryRow>(
  "desc",
  { column: webhookDeliveries.createdAt, kind: "instant", of: (r) => r.createdAt },
  { column: webhookDeliveries.id, kind: "uuid", of: (r) => r.id },
);

async function requireWebhook(db: Db, clinicId: string, id: string): Promise<WebhookRow> {
  const [row] = await db.select().from(webhooks).where(ownWebhook(clinicId, id));
  if (!row) throw notFound("webhook");
  return row;
}

/** A webhook's deliveries, newest first, keyset-paginated. */
export async function listDeliveries(
  db: Db,
  clinicId: string,
  webhookId: string,
  query: { status?: DeliveryStatus | undefined; limit: number; cursor?: string | undefined },
): Promise<{ deliveries: DeliveryView[]; next_cursor: string | null }> {
  await requireWebhook(db, clinicId, webhookId);
  const rows = await db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.clinicId, clinicId),
        eq(webhookDeliveries.webhookId, webhookId),
        query.status ? eq(webhookDeliveries.status, query.status) : undefined,
        deliveryPages.after(query.cursor),
      ),
    )
    .orderBy(...deliveryPages.orderBy)
    .limit(query.limit + 1);
  const { items, next_cursor } = deliveryPages.page(rows, query.limit);
  return { deliveries: items.map(toDelivery), next_cursor };
}

/** What a delivery job carries: which delivery, and which of its attempts. */
export interface DeliveryJob {
  clinicId: string;
  deliveryId: string;
  attempt: number;
}

/** Queues attempt number `attempt` of a delivery (after `delayS` seconds) and remembers its job, in `tx`. */
export async function scheduleAttempt(
  tx: Db,
  clinicId: string,
  deliveryId: string,
  attempt: number,
  delayS: number,
  now: Date,
): Promise<void> {
  const at = new Date(now.getTime() + delayS * 1000);
  const jobId = await enqueue(
    tx,
    clinicId,
    queueNames.webhookDelivery,
    { clinicId, deliveryId, attempt } satisfies DeliveryJob,
    delayS > 0 ? { startAfter: at } : {},
  );
  await tx
    .update(webhookDeliveries)
    .set({ status: "pending", nextAttemptAt: at, jobId })
    .where(and(eq(webhookDeliveries.clinicId, clinicId), eq(webhookDeliveries.id, deliveryId)));
}

/**
 * New deliveries of an event to the given webhooks, each with its first attempt queued now, in `tx`.
 * `data` is kept only for an event that is not in the feed (`webhook.test`); a recorded event's
 * delivery is rendered from the event's row when it is sent.
 */
export async function createDeliveries(
  tx: Db,
  clinicId: string,
  hooks: readonly Pick<WebhookRow, "id">[],
  event: { id: string; type: string; data: Record<string, unknown> | null },
  now: Date,
): Promise<string[]> {
  if (hooks.length === 0) return [];
  const rows = await tx
    .insert(webhookDeliveries)
    .values(
      hooks.map((hook) => ({
        clinicId,
        webhookId: hook.id,
        eventId: event.id,
        eventType: event.type,
        data: event.data,
      })),
    )
    .returning({ id: webhookDeliveries.id });
  for (const row of rows) await scheduleAttempt(tx, clinicId, row.id, 0, 0, now);
  return rows.map((r) => r.id);
}

/** Retry a delivery by hand (H6): a new attempt of a delivery, now (a queued later attempt is replaced). */
export async function retryDelivery(
  db: Db,
  clinicId: string,
  webhookId: string,
  deliveryId: string,
  now: Date,
): Promise<void> {
  await db.transaction(async (tx) => {
    await requireWebhook(tx, clinicId, webhookId);
    const [row] = await tx
      .select()
      .from(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.clinicId, clinicId),
          eq(webhookDeliveries.webhookId, webhookId),
          eq(webhookDeliveries.id, deliveryId),
        ),
      )
      .for("update");
    if (!row) throw notFound("delivery");
    if (row.jobId && row.status === "pending") await cancelJobs(tx, clinicId, [row.jobId]);
    await scheduleAttempt(tx, clinicId, deliveryId, row.attempts, 0, now);
  });
}

/** Test a webhook (H7): delivers a `webhook.test` event to the webhook (not recorded in the event feed). */
export async function testWebhook(db: Db, clinicId: string, webhookId: string, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const hook = await requireWebhook(tx, clinicId, webhookId);
    const id = crypto.randomUUID();
    await createDeliveries(tx, clinicId, [hook], { id, type: "webhook.test", data: { webhook_id: hook.id } }, now);
  });
}

/** The Standard Webhooks headers of one attempt: `webhook-id` is the event's id, the same on every attempt. */
export function signedHeaders(secret: string, eventId: string, body: string, at: Date): Record<string, string> {
  let signer: Webhook;
  try {
    signer = new Webhook(secret);
  } catch (error) {
    throw new DomainError("INTERNAL", "the webhook's secret is unusable", { cause: error });
  }
  return {
    "webhook-id": eventId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": signer.sign(eventId, at, body),
  };
}
