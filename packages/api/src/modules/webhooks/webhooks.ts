import { randomBytes } from "node:crypto";
import { and, asc, eq, sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { z } from "zod";
import {
  type Db,
  type DeliveryStatus,
  deliveryStatuses,
  events,
  rowsOf,
  webhookDeliveries,
  webhookSent,
  webhooks,
} from "@clinic/db";
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

/**
 * Deliveries are listed newest first: by `created_at`, then id (the cursor names both). They are
 * the rows of `webhook_deliveries` and the events of `webhook_sent`'s batches (first attempts that
 * succeeded, docs/events.md#delivery-history), read a page from each and merged.
 */
const deliveryPages = keyset<DeliveryView>(
  "desc",
  { column: webhookDeliveries.createdAt, kind: "instant", of: (r) => r.created_at },
  { column: webhookDeliveries.id, kind: "uuid", of: (r) => r.id },
);

/** Newest first, as `deliveryPages` orders (uuid text compares as PostgreSQL compares uuids). */
const newestFirst = (a: DeliveryView, b: DeliveryView): number =>
  b.created_at.getTime() - a.created_at.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

interface SentRow {
  id: string;
  event_id: string;
  event_type: string;
  code: number;
  sent_at: Date | string;
}

const sentDelivery = (row: SentRow): DeliveryView => ({
  id: row.id,
  event_id: row.event_id,
  event_type: row.event_type,
  status: "succeeded",
  attempts: 1,
  last_status_code: row.code,
  last_error: null,
  next_attempt_at: null,
  created_at: new Date(row.sent_at),
  updated_at: new Date(row.sent_at),
});

/**
 * Up to `count` deliveries of a webhook's batches in `webhook_sent`, newest first, after the cursor's.
 * Every batch holds at least one event (an emptied one is deleted with its emptying) and all of a
 * batch's share its `sent_at`: the batches at the cursor's instant, the `count` before it and any
 * sharing the instant of the last of those hold every delivery the page can show.
 */
async function sentDeliveries(
  db: Db,
  clinicId: string,
  webhookId: string,
  cursor: string | undefined,
  count: number,
): Promise<DeliveryView[]> {
  const [at, id] = cursor === undefined ? [] : deliveryPages.values(cursor);
  const own = (alias: string) =>
    sql`${sql.raw(alias)}.clinic_id = ${clinicId}::uuid and ${sql.raw(alias)}.webhook_id = ${webhookId}::uuid`;
  const before = (alias: string) => (at === undefined ? sql`` : sql`and ${sql.raw(alias)}.sent_at < ${at}`);
  // The `count` newest batches before the cursor's instant, and every batch that shares the last
  // one's instant (its events may sort before theirs), and those at the cursor's instant.
  const oldest = sql`(select s.sent_at from ${webhookSent} s where ${own("s")} ${before("s")}
                      order by s.sent_at desc offset ${count - 1} limit 1)`;
  const batches = sql`(select * from ${webhookSent} b where ${own("b")} ${before("b")}
                         and b.sent_at >= coalesce(${oldest}, '-infinity'::timestamptz)
                       ${at === undefined ? sql`` : sql`union all select * from ${webhookSent} b where ${own("b")} and b.sent_at = ${at}`})`;
  const rows = rowsOf<SentRow>(
    await db.execute(sql`
      select d.id, e.id as event_id, e.type as event_type, x.code, b.sent_at
      from ${batches} b
      cross join lateral unnest(b.seqs, b.codes) as x(seq, code)
      join ${events} e on e.clinic_id = b.clinic_id and e.seq = x.seq
      cross join lateral (select clinic_delivery_id(b.webhook_id, e.id) as id) d
      where e.clinic_id = ${clinicId}::uuid ${at === undefined ? sql`` : sql`and (b.sent_at, d.id) < (${at}, ${id})`}
      order by b.sent_at desc, d.id desc
      limit ${count}`),
  );
  return rows.map(sentDelivery);
}

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
  const sent =
    query.status === undefined || query.status === "succeeded"
      ? await sentDeliveries(db, clinicId, webhookId, query.cursor, query.limit + 1)
      : [];
  const merged = [...rows.map(toDelivery), ...sent].sort(newestFirst).slice(0, query.limit + 1);
  const { items, next_cursor } = deliveryPages.page(merged, query.limit);
  return { deliveries: items, next_cursor };
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
    let row = await lockedDelivery(tx, clinicId, webhookId, deliveryId);
    if (!row) {
      const moved = await moveSentDelivery(tx, clinicId, webhookId, deliveryId);
      if (moved === "moved") {
        await scheduleAttempt(tx, clinicId, deliveryId, 1, 0, now);
        return;
      }
      // Not in a batch: unknown, or another retry moved it (and committed its row) after this one
      // looked for the row: this retry is of that row.
      row = await lockedDelivery(tx, clinicId, webhookId, deliveryId);
      if (!row) throw notFound("delivery");
    }
    if (row.jobId && row.status === "pending") await cancelJobs(tx, clinicId, [row.jobId]);
    await scheduleAttempt(tx, clinicId, deliveryId, row.attempts, 0, now);
  });
}

/** A delivery's row of `webhook_deliveries`, locked for the transaction, if it has one. */
async function lockedDelivery(
  tx: Db,
  clinicId: string,
  webhookId: string,
  deliveryId: string,
): Promise<DeliveryRow | undefined> {
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
  return row;
}

/**
 * A delivery recorded with its batch (`webhook_sent`) becomes a row of `webhook_deliveries`, as it
 * would have been recorded before (succeeded, one attempt, its code, the batch's time), so that its
 * next attempt is queued like any other's: its event leaves the batch (an emptied batch is
 * deleted), under the batch row's lock. "none": the id is not one of the webhook's batches';
 * "raced": another retry moved it first.
 */
async function moveSentDelivery(
  tx: Db,
  clinicId: string,
  webhookId: string,
  deliveryId: string,
): Promise<"moved" | "none" | "raced"> {
  // The id starts with its event's first 64 bits (clinic_delivery_id): the event is found by a
  // range of the events' id index; its batch was recorded after the event occurred (a minute's
  // leeway: on Citus the two clocks may be two nodes').
  const prefix = deliveryId.replace(/-/g, "").slice(0, 16);
  const bound = (fill: string) => {
    const hex = prefix + fill.repeat(16);
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };
  const [found] = rowsOf<{
    event_id: string;
    event_type: string;
    seq: number | string;
    code: number;
    sent_at: string;
    first_seq: number | string;
  }>(
    await tx.execute(sql`
      select e.id as event_id, e.type as event_type, e.seq, b.code, b.sent_at::text as sent_at, b.first_seq
      from ${events} e
      cross join lateral (
        select b.sent_at, b.first_seq, b.codes[array_position(b.seqs, e.seq)] as code from ${webhookSent} b
        where b.clinic_id = e.clinic_id and b.webhook_id = ${webhookId}::uuid
          and b.sent_at >= e.occurred_at - interval '1 minute'
          and e.seq = any (b.seqs)
        order by b.sent_at limit 1) b
      where e.clinic_id = ${clinicId}::uuid and e.id between ${bound("0")}::uuid and ${bound("f")}::uuid
        and clinic_delivery_id(${webhookId}::uuid, e.id) = ${deliveryId}::uuid`),
  );
  if (!found) return "none";
  const seq = Number(found.seq);
  const batch = sql`b.clinic_id = ${clinicId}::uuid and b.webhook_id = ${webhookId}::uuid
    and b.sent_at = ${found.sent_at}::timestamptz and b.first_seq = ${Number(found.first_seq)}::bigint`;
  const [moved] = rowsOf<{ left: number; sent_at: Date | string }>(
    await tx.execute(sql`
      update ${webhookSent} b
      set seqs = array_remove(b.seqs, ${seq}::bigint),
          codes = b.codes[:array_position(b.seqs, ${seq}::bigint) - 1] || b.codes[array_position(b.seqs, ${seq}::bigint) + 1:]
      where ${batch} and ${seq}::bigint = any (b.seqs)
      returning cardinality(b.seqs) as left, b.sent_at`),
  );
  if (!moved) return "raced";
  // Emptied: deleted in the same transaction (a committed batch is never empty).
  if (moved.left === 0) await tx.execute(sql`delete from ${webhookSent} b where ${batch}`);
  const at = new Date(moved.sent_at);
  await tx.insert(webhookDeliveries).values({
    id: deliveryId,
    clinicId,
    webhookId,
    eventId: found.event_id,
    eventType: found.event_type,
    status: "succeeded",
    attempts: 1,
    lastStatusCode: found.code,
    createdAt: at,
    updatedAt: at,
  });
  return "moved";
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
