// Webhook deliveries from the event feed (issue 49, docs/events.md#webhooks): a booking writes no
// delivery row and no job for its clinic's webhooks; each webhook reads the feed from its own
// cursor, in feed order, only the types it takes, from where it was created or resumed; an attempt
// leaves its delivery row (H5), a refused one its retry; a lease that ran out cannot record. On
// PGlite, PostgreSQL and Citus.
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, asc, eq, sql } from "drizzle-orm";
import { events, jobs, rowsOf, webhookDeliveries } from "@clinic/db";
import {
  createWebhook,
  followWebhookFeed,
  updateWebhook,
  type WebhookFeedSettings,
  webhooksBehind,
} from "../src/modules/webhooks/index.ts";
import { addService, addWebhook, bookableClinic, callerFor, pinnedNow, useTestDatabase } from "../testing/index.ts";

const t = useTestDatabase();

/** A receiver that notes each delivery's webhook-id by the path it came to, in arrival order. */
function receiver() {
  const arrived = new Map<string, string[]>();
  let status = 204;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const list = arrived.get(req.url ?? "") ?? [];
    list.push(String(req.headers["webhook-id"]));
    arrived.set(req.url ?? "", list);
    req.resume();
    req.on("end", () => res.writeHead(status).end());
  });
  return {
    server,
    arrived: (path: string) => arrived.get(path) ?? [],
    answer: (code: number) => {
      status = code;
    },
    url: (path: string) => `http://127.0.0.1:${String((server.address() as AddressInfo).port)}${path}`,
  };
}

const settings: WebhookFeedSettings = { allowPrivate: true, timeoutMs: 5_000, retryDelaysS: [30], leaseS: 60 };

describe("webhook deliveries from the event feed", () => {
  const hooks = receiver();
  beforeAll(() => new Promise<void>((resolve) => hooks.server.listen(0, "127.0.0.1", resolve)));
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        hooks.server.close(() => {
          resolve();
        });
      }),
  );

  async function clinic() {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { providerId: c.provider.id, durationMin: 30 });
    const staff = callerFor(t.db, c.staff, { now: pinnedNow });
    const book = (start: string) =>
      staff.appointments.book({ clinic_id: c.clinicId, service_id: service, start, patient: { name: "Pat" } });
    /** The clinic's event ids from `after` on, in feed order. */
    const feed = async (types?: string[]) =>
      (
        await t.db
          .select({ id: events.id, type: events.type })
          .from(events)
          .where(eq(events.clinicId, c.clinicId))
          .orderBy(asc(events.seq))
      )
        .filter((e) => !types || types.includes(e.type))
        .map((e) => e.id);
    const deliveries = (webhookId: string) =>
      t.db
        .select({ eventId: webhookDeliveries.eventId, status: webhookDeliveries.status })
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.clinicId, c.clinicId), eq(webhookDeliveries.webhookId, webhookId)));
    return { ...c, staff, book, feed, deliveries };
  }

  it("writes no delivery row and no job when a booking commits; the webhook then reads the feed in its order", async () => {
    const c = await clinic();
    const path = `/all-${c.clinicId}`;
    const hook = await addWebhook(t.db, c.clinicId, { url: hooks.url(path) });
    const before = await c.feed();
    const first = await c.book("2027-03-15T09:00:00Z");
    await c.book("2027-03-15T10:00:00Z");
    await c.staff.appointments.reschedule({ clinic_id: c.clinicId, id: first.id, start: "2027-03-15T11:00:00Z" });
    await c.staff.appointments.cancel({ clinic_id: c.clinicId, id: first.id });

    // Nothing written for the webhook by the four changes.
    expect(await c.deliveries(hook)).toEqual([]);
    const queued = await t.db
      .select({ queue: jobs.queue })
      .from(jobs)
      .where(and(eq(jobs.clinicId, c.clinicId), eq(jobs.queue, "webhook-delivery")));
    expect(queued).toEqual([]);

    // The webhook's worker sends them in feed order, each once, and records each attempt (H5).
    const sent = (await c.feed()).filter((id) => !before.includes(id));
    expect(sent).toHaveLength(4);
    expect(await followWebhookFeed(t.db, c.clinicId, hook, settings)).toBe(4);
    expect(hooks.arrived(path)).toEqual(sent);
    expect((await c.deliveries(hook)).map((d) => d.status)).toEqual(Array<string>(4).fill("succeeded"));
    // Nothing more to send: the cursor is at the feed's end.
    expect(await followWebhookFeed(t.db, c.clinicId, hook, settings)).toBe(0);
    expect(hooks.arrived(path)).toHaveLength(4);
  });

  it("paces a webhook whose batch was short: events that come meanwhile wait for the pace and go out in one batch", async () => {
    const c = await clinic();
    const path = `/paced-${c.clinicId}`;
    const hook = await addWebhook(t.db, c.clinicId, { url: hooks.url(path) });
    const paced = { ...settings, paceMs: 1_500 };
    const behind = async () => (await webhooksBehind(t.db, 1_000)).some((w) => w.webhookId === hook);
    await c.book("2027-03-16T09:00:00Z");
    expect(await followWebhookFeed(t.db, c.clinicId, hook, paced)).toBe(1);
    const recorded = Date.now();
    // Two more events at once: within the pace neither the look finds the webhook nor a claim takes them.
    await c.book("2027-03-16T10:00:00Z");
    await c.book("2027-03-16T11:00:00Z");
    if (Date.now() - recorded < 1_000) {
      expect(await behind()).toBe(false);
      expect(await followWebhookFeed(t.db, c.clinicId, hook, paced)).toBe(0);
    }
    expect(hooks.arrived(path)).toHaveLength(1);
    // After it: both in one batch, in feed order.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1_600 - (Date.now() - recorded))));
    expect(await behind()).toBe(true);
    expect(await followWebhookFeed(t.db, c.clinicId, hook, paced)).toBe(2);
    const recordedAgain = Date.now();
    expect(hooks.arrived(path)).toEqual(await c.feed());
    // Without a pace (the default), the next event goes at once — once the last batch's pace is over.
    await c.book("2027-03-16T12:00:00Z");
    if (Date.now() - recordedAgain < 1_000) expect(await followWebhookFeed(t.db, c.clinicId, hook, settings)).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1_600 - (Date.now() - recordedAgain))));
    expect(await followWebhookFeed(t.db, c.clinicId, hook, settings)).toBe(1);
    await c.book("2027-03-16T13:00:00Z");
    expect(await followWebhookFeed(t.db, c.clinicId, hook, settings)).toBe(1);
  });

  it("sends only the types a webhook takes, from where it was created, nothing of a pause, and again after it", async () => {
    const c = await clinic();
    const all = `/types-all-${c.clinicId}`;
    const canceled = `/types-canceled-${c.clinicId}`;
    const later = `/types-later-${c.clinicId}`;
    const everything = await addWebhook(t.db, c.clinicId, { url: hooks.url(all) });
    const cancels = await addWebhook(t.db, c.clinicId, {
      url: hooks.url(canceled),
      eventTypes: ["appointment.canceled"],
    });
    const start = (await c.feed()).length;
    const a = await c.book("2027-03-15T09:00:00Z");
    await c.book("2027-03-15T10:00:00Z");
    await c.staff.appointments.cancel({ clinic_id: c.clinicId, id: a.id });
    // Created after those events (H1): it starts at the feed's end.
    const created = await createWebhook(
      t.db,
      c.clinicId,
      { url: hooks.url(later), eventTypes: ["*"] },
      { allowPrivate: true },
    );
    const upToCreation = (await c.feed()).slice(start);

    for (const hook of [everything, cancels, created.id]) await followWebhookFeed(t.db, c.clinicId, hook, settings);
    expect(hooks.arrived(all)).toEqual(upToCreation);
    expect(hooks.arrived(canceled)).toEqual((await c.feed(["appointment.canceled"])).slice(-1));
    expect(hooks.arrived(later)).toEqual([]);

    // Paused: nothing is read; resumed: what happened meanwhile is not sent, what follows is.
    await updateWebhook(t.db, c.clinicId, everything, { active: false }, { allowPrivate: true });
    await c.book("2027-03-15T11:00:00Z");
    expect(await followWebhookFeed(t.db, c.clinicId, everything, settings)).toBe(0);
    await updateWebhook(t.db, c.clinicId, everything, { active: true }, { allowPrivate: true });
    expect(await followWebhookFeed(t.db, c.clinicId, everything, settings)).toBe(0);
    await c.book("2027-03-15T12:00:00Z");
    await followWebhookFeed(t.db, c.clinicId, everything, settings);
    await followWebhookFeed(t.db, c.clinicId, created.id, settings);
    const feed = await c.feed();
    expect(hooks.arrived(all)).toEqual([...upToCreation, ...feed.slice(-1)]);
    // The later webhook: the two bookings after its creation (the first was during the other's pause).
    expect(hooks.arrived(later)).toEqual(feed.slice(-2));
    expect(hooks.arrived(canceled)).toHaveLength(1);
  });

  it("records a refused first attempt as pending with its retry queued, or failed with no retry left", async () => {
    const c = await clinic();
    const path = `/refusing-${c.clinicId}`;
    const hook = await addWebhook(t.db, c.clinicId, { url: hooks.url(path) });
    hooks.answer(503);
    try {
      await c.book("2027-03-15T09:00:00Z");
      await followWebhookFeed(t.db, c.clinicId, hook, settings);
      const [pending] = await t.db
        .select()
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.clinicId, c.clinicId), eq(webhookDeliveries.webhookId, hook)));
      expect(pending).toMatchObject({ status: "pending", attempts: 1, lastStatusCode: 503 });
      const [retry] = await t.db
        .select({ data: jobs.data, runAt: jobs.runAt })
        .from(jobs)
        .where(and(eq(jobs.clinicId, c.clinicId), eq(jobs.queue, "webhook-delivery")));
      expect(retry?.data).toEqual({ clinicId: c.clinicId, deliveryId: pending?.id, attempt: 1 });
      expect(pending?.nextAttemptAt).toEqual(retry?.runAt);

      await c.book("2027-03-15T10:00:00Z");
      await followWebhookFeed(t.db, c.clinicId, hook, { ...settings, retryDelaysS: [] });
      expect((await c.deliveries(hook)).map((d) => d.status).sort()).toEqual(["failed", "pending"]);
    } finally {
      hooks.answer(204);
    }
  });

  it("does not hold a webhook's feed for a receiver that does not answer: the batch's later events wait for their retry", async () => {
    const c = await clinic();
    // Refused at once (port 9, discard): no answer, as a timeout, only sooner.
    const hook = await addWebhook(t.db, c.clinicId, { url: "http://127.0.0.1:9/hook" });
    for (const start of ["2027-03-15T09:00:00Z", "2027-03-15T10:00:00Z", "2027-03-15T11:00:00Z"]) await c.book(start);
    expect(await followWebhookFeed(t.db, c.clinicId, hook, settings)).toBe(3);
    const rows = await t.db
      .select({ id: webhookDeliveries.id, status: webhookDeliveries.status, attempts: webhookDeliveries.attempts })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.clinicId, c.clinicId), eq(webhookDeliveries.webhookId, hook)));
    // The first was attempted; the two after it were not, and wait for the first delay as it does.
    expect(rows.map((r) => `${r.status}/${String(r.attempts)}`).sort()).toEqual([
      "pending/0",
      "pending/0",
      "pending/1",
    ]);
    const retries = await t.db
      .select({ data: jobs.data })
      .from(jobs)
      .where(and(eq(jobs.clinicId, c.clinicId), eq(jobs.queue, "webhook-delivery")));
    expect(retries).toHaveLength(3);
    const byDelivery = new Map(rows.map((r) => [r.id, r.attempts]));
    for (const { data } of retries) {
      const job = data as { deliveryId: string; attempt: number };
      expect(job.attempt).toBe(byDelivery.get(job.deliveryId));
    }
  });

  it("drops the outcomes of a lease that ran out: the claim after it sends the events again and records them once", async () => {
    const c = await clinic();
    const path = `/lease-${c.clinicId}`;
    const hook = await addWebhook(t.db, c.clinicId, { url: hooks.url(path) });
    await c.book("2027-03-15T09:00:00Z");
    await c.book("2027-03-15T10:00:00Z");
    // A worker claims the batch for one second, and dies.
    const [claimed] = rowsOf<{ batch: { lease: string; to: number; events: { id: string; type: string }[] } }>(
      await t.db.execute(
        sql`select clinic_webhook_feed(${c.clinicId}::uuid, ${hook}::uuid, null, null, 10, 1) as batch`,
      ),
    );
    expect(claimed?.batch.events).toHaveLength(2);
    // Leased: another worker finds nothing to take.
    expect(await followWebhookFeed(t.db, c.clinicId, hook, settings)).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await followWebhookFeed(t.db, c.clinicId, hook, settings)).toBe(2);
    // The dead worker's late outcomes are not recorded.
    const late = {
      lease: claimed?.batch.lease,
      to: claimed?.batch.to,
      deliveries: (claimed?.batch.events ?? []).map((e) => ({
        id: crypto.randomUUID(),
        event_id: e.id,
        event_type: e.type,
        status: "failed",
        attempts: 1,
        code: 500,
        error: "late",
        job_id: null,
        at: null,
      })),
    };
    const [answer] = rowsOf<{ batch: { recorded: boolean } }>(
      await t.db.execute(
        sql`select clinic_webhook_feed(${c.clinicId}::uuid, ${hook}::uuid, ${late.lease ?? null}::uuid, ${JSON.stringify(late)}::jsonb, 0, 60) as batch`,
      ),
    );
    expect(answer?.batch.recorded).toBe(false);
    expect((await c.deliveries(hook)).map((d) => d.status)).toEqual(["succeeded", "succeeded"]);
  });
});
