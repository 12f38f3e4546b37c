import { randomUUID } from "node:crypto";
import { type SQL, sql } from "drizzle-orm";
import { type Db, rowsOf } from "@clinic/db";
import { eventJson } from "../events/index.ts";
import type { LookCompanion } from "../jobs/index.ts";
import { type DeliverySettings, appointmentAnswers, appointmentIdOf } from "./deliver.ts";
import { type PostResult, postJson } from "./outbound.ts";
import { signedHeaders } from "./webhooks.ts";

/**
 * Webhook deliveries from the event feed (docs/events.md#webhooks). A booking writes nothing for
 * webhooks: each webhook follows its clinic's gap-free feed from its own cursor (`feed_seq`). The
 * workers' look asks, in one statement over every clinic, which active webhooks' cursors are behind
 * their clinic's event counter; a worker then leases one webhook's feed and reads its next batch
 * (`clinic_webhook_feed`, one statement on the clinic's node), POSTs the events one after the other
 * in feed order, and records the outcomes — the batch's first attempts that succeeded as one row of
 * `webhook_sent`, a delivery row for any other, a retry job for a failed one — with the cursor's move
 * and the next batch's claim, again in one statement.
 */

/** An event of a claimed batch, as `clinic_webhook_feed` answers it. */
interface FeedEvent {
  id: string;
  seq: number;
  type: string;
  occurred_at: string;
  data: Record<string, unknown>;
}

/** What `clinic_webhook_feed` answers: whether the outcomes were recorded, and the next batch if one was claimed. */
interface FeedBatch {
  recorded: boolean;
  lease?: string;
  to?: number;
  url?: string;
  secret?: string;
  include_answers?: boolean;
  events?: FeedEvent[];
}

/** One attempt's outcome, as the function records it: the delivery row, and its retry's job and time. */
interface Attempted {
  id: string;
  event_id: string;
  /** The event's number in the feed: a first attempt that succeeded is recorded by it, with its batch. */
  seq: number;
  event_type: string;
  status: "succeeded" | "pending" | "failed";
  /** 1, or 0 for an event not attempted (the receiver did not answer the one before it). */
  attempts: number;
  code: number | null;
  error: string | null;
  job_id: string | null;
  at: string | null;
}

/** A batch's outcomes: the attempts made, and how far the cursor moves. */
interface Done {
  lease: string;
  to: number;
  deliveries: Attempted[];
  /** When no next batch is claimed with this recording: how long the feed stays leased (the pace). */
  pace_ms?: number;
}

/**
 * Active webhooks whose cursor is behind their clinic's counter and whose feed no live lease holds,
 * the largest backlogs first: over every clinic, on Citus a co-located join run on each shard, like
 * the job queue's look for due clinics — and run as part of that look (`LookCompanion`).
 */
export const webhooksBehindSql = (limit: number): SQL => sql`
  select w.clinic_id, w.id from webhooks w join event_counters c on c.clinic_id = w.clinic_id
  where w.active and c.last_seq > w.feed_seq and (w.feed_leased_until is null or w.feed_leased_until <= now())
  order by c.last_seq - w.feed_seq desc limit ${limit}`;

/** The webhooks behind their feed (`webhooksBehindSql` on its own). */
export async function webhooksBehind(db: Db, limit: number): Promise<{ clinicId: string; webhookId: string }[]> {
  const rows = rowsOf<{ clinic_id: string; id: string }>(await db.execute(webhooksBehindSql(limit)));
  return rows.map((r) => ({ clinicId: r.clinic_id, webhookId: r.id }));
}

/** Records `done` (if any) and claims the next batch of up to `limit` events (none for 0): one statement. */
async function feedStep(
  db: Db,
  clinicId: string,
  webhookId: string,
  done: Done | null,
  limit: number,
  leaseS: number,
): Promise<FeedBatch> {
  const [row] = rowsOf<{ batch: FeedBatch }>(
    await db.execute(
      sql`select clinic_webhook_feed(${clinicId}::uuid, ${webhookId}::uuid, ${done?.lease ?? null}::uuid, ${done ? JSON.stringify(done) : null}::jsonb, ${limit}::int, ${leaseS}::int) as batch`,
    ),
  );
  return row?.batch ?? { recorded: false };
}

/** How the feed workers run (docs/events.md#webhooks). */
export interface WebhookFeedSettings extends DeliverySettings {
  /** Seconds a batch is leased for (the job queue's lease, JOB_LEASE_S). */
  leaseS: number;
  /**
   * Milliseconds a webhook waits after a short batch before its next (its feed read to the end):
   * the recording leaves the feed leased that long, so neither the look nor another process takes
   * it sooner. A full batch's next is claimed at once. 0: at the next look.
   */
  paceMs?: number | undefined;
  /** Events claimed in one batch (default 50). */
  batchSize?: number | undefined;
  /** Webhooks this process follows at once (default 100). */
  maxRunning?: number | undefined;
  onError?: ((error: Error) => void) | undefined;
}

/**
 * POSTs a batch's events in feed order, one at a time (so they arrive in that order), and answers
 * the outcomes. It stops early — and the cursor moves only past what was attempted — when the next
 * attempt could end past three quarters of the lease (the rest is for recording the outcomes), or
 * when the process stops. Once the receiver gave no answer (a timeout, a refused connection), the
 * batch's later events are not attempted now: each gets its row, pending, with its first attempt
 * queued after the first retry delay — so a receiver that times out does not hold its webhook's feed
 * for 10 s an event.
 */
async function sendBatch(
  db: Db,
  clinicId: string,
  batch: FeedBatch,
  settings: WebhookFeedSettings,
  stopping: () => boolean,
): Promise<Done | null> {
  const { lease, url, secret, events, to } = batch;
  if (lease === undefined || url === undefined || secret === undefined || events === undefined || to === undefined)
    return null;
  const answers = batch.include_answers
    ? await appointmentAnswers(
        db,
        clinicId,
        events.flatMap((event) => appointmentIdOf(event) ?? []),
      )
    : new Map<string, never>();
  const started = Date.now();
  const deliveries: Attempted[] = [];
  let reached = to;
  let unanswered = false;
  const deferS = settings.retryDelaysS[0];
  for (const event of events) {
    if (unanswered && deferS !== undefined) {
      deliveries.push(deferred(event, deferS));
      continue;
    }
    const late = Date.now() - started + settings.timeoutMs > settings.leaseS * 750;
    if (deliveries.length > 0 && (late || stopping())) {
      // The cursor stops before this event: every event up to the previous one matched or was attempted.
      reached = event.seq - 1;
      break;
    }
    const id = appointmentIdOf(event);
    const withAnswers = id === undefined ? undefined : answers.get(id);
    const body = eventJson({
      id: event.id,
      type: event.type,
      clinic_id: clinicId,
      occurred_at: new Date(event.occurred_at),
      data: withAnswers === undefined ? event.data : { ...event.data, answers: withAnswers },
    });
    let result: PostResult;
    try {
      // Wall-clock time, always: receivers check the signed timestamp against their own clock.
      result = await postJson(new URL(url), body, signedHeaders(secret, event.id, body, new Date()), {
        allowPrivate: settings.allowPrivate,
        timeoutMs: settings.timeoutMs,
      });
    } catch (error) {
      result = { error: error instanceof Error ? error.message : String(error) };
    }
    deliveries.push(outcomeOf(event, result, settings.retryDelaysS));
    if (result.status === undefined) unanswered = true;
  }
  return { lease, to: reached, deliveries };
}

/** A first attempt's outcome: succeeded on a 2xx; else pending with its retry queued after the first delay, or failed. */
function outcomeOf(event: FeedEvent, result: PostResult, retryDelaysS: readonly number[]): Attempted {
  const ok = result.status !== undefined && result.status >= 200 && result.status < 300;
  const delay = ok ? undefined : retryDelaysS[0];
  return {
    id: randomUUID(),
    event_id: event.id,
    seq: event.seq,
    event_type: event.type,
    status: ok ? "succeeded" : delay === undefined ? "failed" : "pending",
    attempts: 1,
    code: result.status ?? null,
    error: result.error ?? null,
    job_id: delay === undefined ? null : randomUUID(),
    at: delay === undefined ? null : new Date(Date.now() + delay * 1000).toISOString(),
  };
}

/** An event not attempted in its batch: pending, its first attempt queued after `delayS`. */
function deferred(event: FeedEvent, delayS: number): Attempted {
  return {
    id: randomUUID(),
    event_id: event.id,
    seq: event.seq,
    event_type: event.type,
    status: "pending",
    attempts: 0,
    code: null,
    error: "not attempted yet: the receiver did not answer the attempt before it",
    job_id: randomUUID(),
    at: new Date(Date.now() + delayS * 1000).toISOString(),
  };
}

/**
 * Follows one webhook's feed while it has a backlog: claim a batch, send it, record it — and, when
 * the batch was full, claim the next in the same statement (a batch that was not full read the feed
 * to its end: what comes next waits for the next look, so events that trickle in are not sent in
 * batches of one). Stops when the process stops. Answers the events attempted.
 */
export async function followWebhookFeed(
  db: Db,
  clinicId: string,
  webhookId: string,
  settings: WebhookFeedSettings,
  stopping: () => boolean = () => false,
): Promise<number> {
  const limit = settings.batchSize ?? 50;
  let attempted = 0;
  let batch = await feedStep(db, clinicId, webhookId, null, stopping() ? 0 : limit, settings.leaseS);
  for (;;) {
    const done = await sendBatch(db, clinicId, batch, settings, stopping);
    if (!done) return attempted;
    attempted += done.deliveries.length;
    const full = (batch.events?.length ?? 0) >= limit && done.to === batch.to;
    const next = full && !stopping();
    batch = await feedStep(
      db,
      clinicId,
      webhookId,
      next || !settings.paceMs ? done : { ...done, pace_ms: settings.paceMs },
      next ? limit : 0,
      settings.leaseS,
    );
  }
}

/**
 * The feed workers of one process: the job queue's look finds the webhooks behind their feed (in its
 * one statement a poll, `LookCompanion`) and this follows each — one at a time per webhook, any
 * number of webhooks at once up to `maxRunning`. Several processes share the webhooks through the
 * feed's lease.
 */
export class WebhookFeedWorkers implements LookCompanion {
  private readonly following = new Map<string, Promise<void>>();
  private stopping = false;
  private readonly maxRunning: number;

  constructor(
    private readonly db: Db,
    private readonly settings: WebhookFeedSettings,
  ) {
    this.maxRunning = settings.maxRunning ?? 100;
  }

  query(limit: number): SQL {
    // The webhooks this process follows now are leased: the look does not find them.
    return webhooksBehindSql(limit);
  }

  room(): number {
    return this.stopping ? 0 : this.maxRunning - this.following.size;
  }

  found(rows: readonly { clinicId: string; id: string }[]): void {
    for (const { clinicId, id } of rows) {
      const key = `${clinicId}/${id}`;
      if (this.stopping || this.following.size >= this.maxRunning) return;
      if (this.following.has(key)) continue;
      const run = followWebhookFeed(this.db, clinicId, id, this.settings, () => this.stopping)
        .then(() => undefined)
        .catch((error: unknown) => {
          this.settings.onError?.(error instanceof Error ? error : new Error(String(error)));
        })
        .finally(() => {
          this.following.delete(key);
        });
      this.following.set(key, run);
    }
  }

  /** Stops taking webhooks; those being followed record what they sent and claim no more. */
  async stop(): Promise<void> {
    this.stopping = true;
    while (this.following.size > 0) await Promise.all([...this.following.values()]);
  }
}
