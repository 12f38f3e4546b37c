// Webhook deliveries from the event feed (issue 49, docs/events.md#webhooks): a booking writes no
// delivery row and no job for its clinic's webhooks; each webhook reads the feed from its own
// cursor, in feed order, only the types it takes, from where it was created or resumed; an attempt
// is recorded for H5 (the batch's successes as one row of webhook_sent, any other outcome a delivery
// row), a refused one leaves its retry; a lease that ran out cannot record. On PGlite, PostgreSQL and
// Citus.
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, asc, eq, sql } from "drizzle-orm";
import { events, jobs, rowsOf, webhookDeliveries, webhookSent } from "@clinic/db";
import {
  createWebhook,
  followWebhookFeed,
  listDeliveries,
  retryDelivery,
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
    /** A webhook's deliveries as H5 lists them (both tables). */
    const deliveries = async (webhookId: string) =>
      (await listDeliveries(t.db, c.clinicId, webhookId, { limit: 500 })).deliveries.map((d) => ({
        eventId: d.event_id,
        status: d.status,
      }));
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
    const [claimed] = rowsOf<{
      batch: { lease: string; to: number; events: { id: string; seq: number; type: string }[] };
    }>(
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
        seq: e.seq,
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

  it("records a batch's first attempts that succeeded as one row: H5 lists each, pages across both tables, H6 retries one", async () => {
    const c = await clinic();
    const path = `/sent-${c.clinicId}`;
    const hook = await addWebhook(t.db, c.clinicId, { url: hooks.url(path) });
    const other = await addWebhook(t.db, c.clinicId, { url: hooks.url(`${path}/other`) });
    const before = await c.feed();
    for (const start of ["09:00", "10:00", "11:00", "12:00", "13:00"]) await c.book(`2027-03-15T${start}:00Z`);
    const sent = (await c.feed()).filter((id) => !before.includes(id));
    expect(await followWebhookFeed(t.db, c.clinicId, hook, settings)).toBe(5);
    expect(await followWebhookFeed(t.db, c.clinicId, other, settings)).toBe(5);

    // One row for the batch (its events' numbers and codes), no delivery row.
    const batches = await t.db
      .select({ seqs: webhookSent.seqs, codes: webhookSent.codes })
      .from(webhookSent)
      .where(and(eq(webhookSent.clinicId, c.clinicId), eq(webhookSent.webhookId, hook)));
    expect(batches).toHaveLength(1);
    expect(batches[0]?.codes).toEqual([204, 204, 204, 204, 204]);
    const ownRows = () =>
      t.db
        .select({ id: webhookDeliveries.id, status: webhookDeliveries.status, attempts: webhookDeliveries.attempts })
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.clinicId, c.clinicId), eq(webhookDeliveries.webhookId, hook)));
    expect(await ownRows()).toEqual([]);

    // H5: each event once, succeeded in one attempt with the receiver's code; the ids are the same on
    // every listing and differ between the two webhooks.
    const all = (await listDeliveries(t.db, c.clinicId, hook, { limit: 100 })).deliveries;
    expect(all.map((d) => d.event_id).sort()).toEqual([...sent].sort());
    for (const d of all) {
      expect(d).toMatchObject({ status: "succeeded", attempts: 1, last_status_code: 204, last_error: null });
      expect(d.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    expect((await listDeliveries(t.db, c.clinicId, hook, { limit: 100 })).deliveries).toEqual(all);
    const others = (await listDeliveries(t.db, c.clinicId, other, { limit: 100 })).deliveries;
    expect(new Set([...all, ...others].map((d) => d.id)).size).toBe(10);
    expect((await listDeliveries(t.db, c.clinicId, hook, { status: "pending", limit: 100 })).deliveries).toEqual([]);

    // H6 on one: it becomes a row of its own, its next attempt queued; the batch keeps the others.
    const target = all[2];
    if (!target) throw new Error("no delivery to retry");
    await retryDelivery(t.db, c.clinicId, hook, target.id, new Date());
    expect(await ownRows()).toEqual([{ id: target.id, status: "pending", attempts: 1 }]);
    const [left] = await t.db
      .select({ seqs: webhookSent.seqs })
      .from(webhookSent)
      .where(and(eq(webhookSent.clinicId, c.clinicId), eq(webhookSent.webhookId, hook)));
    expect(left?.seqs).toHaveLength(4);
    // Retried again: the row's, not the batch's (the job is replaced, not added).
    await retryDelivery(t.db, c.clinicId, hook, target.id, new Date());
    const queued = await t.db
      .select({ data: jobs.data })
      .from(jobs)
      .where(and(eq(jobs.clinicId, c.clinicId), eq(jobs.queue, "webhook-delivery"), sql`${jobs.failedAt} is null`));
    expect(queued.filter((j) => (j.data as { deliveryId: string }).deliveryId === target.id)).toHaveLength(1);

    // Pages of two go through both tables, each delivery once, newest first.
    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listDeliveries(t.db, c.clinicId, hook, { limit: 2, cursor });
      expect(page.deliveries.length).toBeLessThanOrEqual(2);
      paged.push(...page.deliveries.map((d) => d.id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    const listed = (await listDeliveries(t.db, c.clinicId, hook, { limit: 100 })).deliveries;
    expect(paged).toEqual(listed.map((d) => d.id));
    expect(new Set(paged)).toEqual(new Set(all.map((d) => d.id)));
    expect(listed.find((d) => d.id === target.id)?.status).toBe("pending");
    expect(
      (await listDeliveries(t.db, c.clinicId, hook, { status: "pending", limit: 100 })).deliveries.map((d) => d.id),
    ).toEqual([target.id]);

    // H6 on each of the others at once, one of them twice: the batch empties and is deleted, every
    // retry is queued, and each delivery is a row once.
    const rest = all.filter((d) => d.id !== target.id).map((d) => d.id);
    const twice = [...rest, ...rest.slice(0, 1), ...rest.slice(-1)];
    await Promise.all(twice.map((id) => retryDelivery(t.db, c.clinicId, hook, id, new Date())));
    expect(
      await t.db
        .select({ seqs: webhookSent.seqs })
        .from(webhookSent)
        .where(and(eq(webhookSent.clinicId, c.clinicId), eq(webhookSent.webhookId, hook))),
    ).toEqual([]);
    expect((await ownRows()).map((r) => r.id).sort()).toEqual(all.map((d) => d.id).sort());
    expect((await listDeliveries(t.db, c.clinicId, hook, { limit: 100 })).deliveries.map((d) => d.id).sort()).toEqual(
      all.map((d) => d.id).sort(),
    );

    // Not one of this webhook's: 404; another webhook's delivery of the same event: 404 here.
    await expect(retryDelivery(t.db, c.clinicId, hook, crypto.randomUUID(), new Date())).rejects.toMatchObject({
      domainCode: "NOT_FOUND",
    });
    const ofOther = others[0];
    if (!ofOther) throw new Error("no delivery of the other webhook");
    await expect(retryDelivery(t.db, c.clinicId, hook, ofOther.id, new Date())).rejects.toMatchObject({
      domainCode: "NOT_FOUND",
    });
  });

  it("lists every delivery of batches recorded at the same instant once, a page of one at a time", async () => {
    const c = await clinic();
    const hook = await addWebhook(t.db, c.clinicId, { url: hooks.url(`/ties-${c.clinicId}`) });
    for (const start of ["09:00", "10:00", "11:00", "12:00"]) await c.book(`2027-03-15T${start}:00Z`);
    const recorded = await t.db
      .select({ seq: events.seq })
      .from(events)
      .where(eq(events.clinicId, c.clinicId))
      .orderBy(asc(events.seq));
    const seqs = recorded.slice(-4).map((e) => e.seq);
    // Four batches of one event each, recorded in the same millisecond; their first_seq in the reverse
    // order of their events (a batch's first_seq names it, it does not order its deliveries: H6 may
    // have moved its first event out).
    const at = new Date("2027-03-15T08:00:00.000Z");
    await t.db.insert(webhookSent).values(
      seqs.map((seq) => ({
        clinicId: c.clinicId,
        webhookId: hook,
        sentAt: at,
        firstSeq: 1_000_000 - seq,
        seqs: [seq],
        codes: [200],
      })),
    );
    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listDeliveries(t.db, c.clinicId, hook, { limit: 1, cursor });
      paged.push(...page.deliveries.map((d) => d.event_id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    const ids = (
      await t.db.select({ id: events.id, seq: events.seq }).from(events).where(eq(events.clinicId, c.clinicId))
    )
      .filter((e) => seqs.includes(e.seq))
      .map((e) => e.id);
    expect([...paged].sort()).toEqual([...ids].sort());
  });
});
