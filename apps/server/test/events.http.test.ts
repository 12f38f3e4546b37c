// Events out over HTTP: signed webhook deliveries with retries (through the job queue), outbound
// safety, delivery after a restart, reminders exactly once with two processes, calendar feeds.
// The only test file that runs job workers: on a shared test database, another file's workers
// would take these jobs.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { Webhook } from "standardwebhooks";
import { createTokenVerifier, webhookFeedEnd } from "@clinic/api";
import { eq, sql } from "drizzle-orm";
import { addService, bookableClinic, testSecret } from "@clinic/api/testing";
import { type DbHandle, rowsOf, webhooks } from "@clinic/db";
import { buildApp } from "../src/app.ts";
import { problemOf, request, useTestApp } from "./helpers.ts";
import { freePort } from "./processes.ts";

const baseConfig = { allowedOrigins: [], rateLimit: { max: 100_000, windowMs: 60_000 }, logLevel: "silent" as const };

/** A receiver on 127.0.0.1 that answers with the statuses given, one per request (the last one repeats). */
class Receiver {
  readonly requests: { headers: IncomingHttpHeaders; body: string; at: number }[] = [];
  private server: Server | undefined;
  port = 0;
  constructor(private readonly statuses: number[]) {}
  async start(port = 0): Promise<void> {
    this.server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        this.requests.push({ headers: req.headers, body, at: Date.now() });
        res.statusCode = this.statuses[Math.min(this.requests.length - 1, this.statuses.length - 1)] ?? 200;
        res.end(res.statusCode === 200 ? "ok" : "x".repeat(2000));
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(port, "127.0.0.1", resolve));
    const address = this.server.address();
    this.port = typeof address === "object" && address ? address.port : 0;
  }
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
    });
  }
}

async function until<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const settings = {
  config: { ...baseConfig, webhooks: { allowPrivate: true, retryDelaysS: [1, 1, 1] }, jobPollIntervalMs: 500 },
  now: () => new Date("2027-03-01T00:00:00Z"),
};
// A database of this file's own: the workers of its processes must deliver its jobs and take no
// other file's (on PostgreSQL and Citus the files of a run otherwise share one database).
const t = useTestApp({ ...settings, workers: false }, { ownDatabase: "clinic_events" });

describe("webhooks over /v1", () => {
  // The workers of this describe run in a process of their own, stopped before the next describe,
  // whose tests need to know which workers are running on the (shared) database.
  let workers: FastifyInstance | undefined;
  beforeAll(async () => {
    workers = await buildApp({
      ...settings,
      database: t.handle,
      verifier: createTokenVerifier({ secret: testSecret }),
      logger: false,
      workers: true,
    });
  });
  afterAll(async () => {
    await workers?.close();
  });

  it("deliver a booking to a receiver that is down, then fails, then answers: same webhook-id, verifiable signature", async () => {
    const c = await bookableClinic(t.handle.db);
    const service = await addService(t.handle.db, c.clinicId, { providerId: c.provider.id });
    const port = await freePort();
    const created = await request(t.app, {
      method: "POST",
      url: `/v1/clinics/${c.clinicId}/webhooks`,
      token: c.admin.token,
      body: { url: `http://127.0.0.1:${String(port)}/hook`, event_types: ["appointment.booked"], description: "EHR" },
    });
    expect(created.statusCode, created.body).toBe(201);
    const hook = created.json<{ id: string; secret: string; url: string; active: boolean }>();
    expect(hook.secret).toMatch(/^whsec_/);
    expect(hook).toMatchObject({ active: true });
    const listed = await request(t.app, {
      method: "GET",
      url: `/v1/clinics/${c.clinicId}/webhooks`,
      token: c.admin.token,
    });
    expect(listed.body).not.toContain(hook.secret);

    const booked = await request(t.app, {
      method: "POST",
      url: `/v1/appointments?clinic_id=${c.clinicId}`,
      token: c.staff.token,
      body: { service_id: service, start: "2027-03-15T09:00:00Z", patient: { name: "Pat" } },
    });
    expect(booked.statusCode).toBe(201);
    const deliveries = () =>
      request(t.app, {
        method: "GET",
        url: `/v1/clinics/${c.clinicId}/webhooks/${hook.id}/deliveries`,
        token: c.admin.token,
      }).then(
        (r) =>
          r.json<{
            deliveries: {
              status: string;
              attempts: number;
              last_error: string | null;
              last_status_code: number | null;
            }[];
          }>().deliveries,
      );
    // The receiver is down for the first attempt.
    const first = await until("a failed first attempt", deliveries, (d) => (d[0]?.attempts ?? 0) >= 1);
    expect(first[0]).toMatchObject({ status: "pending", last_status_code: null });
    // Then it answers 500 once, then 200.
    const receiver = new Receiver([500, 200]);
    await receiver.start(port);
    try {
      const done = await until("the delivery to succeed", deliveries, (d) => d[0]?.status === "succeeded");
      expect(done[0]).toMatchObject({ status: "succeeded", last_status_code: 200 });
      expect(done[0]?.attempts).toBeGreaterThanOrEqual(3);
      expect(receiver.requests).toHaveLength(2);
      const [failed, ok] = receiver.requests;
      expect(failed?.headers["webhook-id"]).toBe(ok?.headers["webhook-id"]);
      const verifier = new Webhook(hook.secret);
      for (const r of receiver.requests) {
        const event = verifier.verify(r.body, {
          "webhook-id": String(r.headers["webhook-id"]),
          "webhook-timestamp": String(r.headers["webhook-timestamp"]),
          "webhook-signature": String(r.headers["webhook-signature"]),
        }) as { id: string; type: string; data: { id: string } };
        expect(event).toMatchObject({
          id: r.headers["webhook-id"],
          type: "appointment.booked",
          data: { id: booked.json<{ id: string }>().id },
        });
      }
      // A tampered body does not verify.
      expect(() =>
        verifier.verify(`${ok?.body ?? ""} `, {
          "webhook-id": String(ok?.headers["webhook-id"]),
          "webhook-timestamp": String(ok?.headers["webhook-timestamp"]),
          "webhook-signature": String(ok?.headers["webhook-signature"]),
        }),
      ).toThrow();
      // Only a short excerpt of a failed answer is kept.
      const history = await deliveries();
      expect((history[0]?.last_error ?? "").length).toBeLessThanOrEqual(300);

      // H7 delivers a webhook.test event; H6 retries a delivery now.
      expect(
        (
          await request(t.app, {
            method: "POST",
            url: `/v1/clinics/${c.clinicId}/webhooks/${hook.id}/test`,
            token: c.admin.token,
          })
        ).statusCode,
      ).toBe(202);
      await until(
        "the test event",
        () => Promise.resolve(receiver.requests.map((r) => (JSON.parse(r.body) as { type: string }).type)),
        (types) => types.includes("webhook.test"),
      );
      const all = await deliveries();
      const original = all.find((d) => d.status === "succeeded" && d.attempts >= 3);
      expect(original).toBeDefined();
    } finally {
      await receiver.stop();
    }
  });

  it("give up after the retry schedule (failed), and retry by hand (H6)", async () => {
    const c = await bookableClinic(t.handle.db);
    const receiver = new Receiver([503]);
    await receiver.start();
    try {
      const hook = (
        await request(t.app, {
          method: "POST",
          url: `/v1/clinics/${c.clinicId}/webhooks`,
          token: c.admin.token,
          body: { url: `http://127.0.0.1:${String(receiver.port)}/`, event_types: ["*"] },
        })
      ).json<{ id: string }>();
      await request(t.app, {
        method: "POST",
        url: `/v1/services?clinic_id=${c.clinicId}`,
        token: c.admin.token,
        body: { name: "Check", duration_min: 30 },
      });
      const list = (status?: string) =>
        request(t.app, {
          method: "GET",
          url: `/v1/clinics/${c.clinicId}/webhooks/${hook.id}/deliveries${status ? `?status=${status}` : ""}`,
          token: c.admin.token,
        }).then((r) => r.json<{ deliveries: { id: string; attempts: number; status: string }[] }>().deliveries);
      const failed = await until(
        "the delivery to fail",
        () => list("failed"),
        (d) => d.length === 1,
      );
      expect(failed[0]?.attempts).toBe(4);
      expect(receiver.requests).toHaveLength(4);
      const id = failed[0]?.id ?? "";
      expect(
        (
          await request(t.app, {
            method: "POST",
            url: `/v1/clinics/${c.clinicId}/webhooks/${hook.id}/deliveries/${id}/retry`,
            token: c.admin.token,
          })
        ).statusCode,
      ).toBe(202);
      await until(
        "a fifth attempt",
        () => Promise.resolve(receiver.requests.length),
        (n) => n === 5,
      );
      const other = await bookableClinic(t.handle.db);
      expect(
        problemOf(
          await request(t.app, {
            method: "POST",
            url: `/v1/clinics/${other.clinicId}/webhooks/${hook.id}/deliveries/${id}/retry`,
            token: other.admin.token,
          }),
        ),
      ).toMatchObject({ status: 404 });
      expect(
        problemOf(
          await request(t.app, { method: "GET", url: `/v1/clinics/${c.clinicId}/webhooks`, token: c.staff.token }),
        ),
      ).toMatchObject({ status: 403 });
    } finally {
      await receiver.stop();
    }
  });
  it("render an event once: each delivery's body is E1's bytes for it, also when now() has microseconds >= 500", async () => {
    const c = await bookableClinic(t.handle.db);
    const service = await addService(t.handle.db, c.clinicId, { providerId: c.provider.id });
    const receiver = new Receiver([200]);
    await receiver.start();
    try {
      const created = await request(t.app, {
        method: "POST",
        url: `/v1/clinics/${c.clinicId}/webhooks`,
        token: c.admin.token,
        body: { url: `http://127.0.0.1:${String(receiver.port)}/`, event_types: ["*"] },
      });
      expect(created.statusCode, created.body).toBe(201);
      // The SQL writer, in transactions whose now() has microseconds >= 500: the stored instant
      // rounds up, a rendering that truncated now() would be a millisecond early. (PGlite's clock
      // has milliseconds only: there every transaction qualifies.)
      const micros = async () =>
        Number(
          rowsOf<{ us: number | string }>(
            await t.handle.db.execute(sql`select (extract(microseconds from clock_timestamp())::bigint % 1000) as us`),
          )[0]?.us ?? 0,
        );
      const readings = await Promise.all(Array.from({ length: 10 }, micros));
      const least = readings.some((us) => us !== 0) ? 500 : 0;
      let forced = 0;
      for (let tries = 0; forced < 3 && tries < 200; tries += 1) {
        forced += await t.handle.db
          .transaction(async (tx) => {
            const [clock] = rowsOf<{ us: number | string }>(
              await tx.execute(sql`select (extract(microseconds from now())::bigint % 1000) as us`),
            );
            if (Number(clock?.us ?? 0) < least) return 0;
            await tx.execute(
              sql`select clinic_record_event(${c.clinicId}::uuid, 'service.updated', ${JSON.stringify({ id: service, name: "Zeta", price: "49.90" })}::jsonb)`,
            );
            return 1;
          })
          .catch(() => 0);
      }
      expect(forced).toBe(3);
      // The TypeScript writer (a service's change) and the SQL booking path.
      const renamed = await request(t.app, {
        method: "PATCH",
        url: `/v1/services/${service}?clinic_id=${c.clinicId}`,
        token: c.admin.token,
        body: { name: "Renamed", price: "12.50" },
      });
      expect(renamed.statusCode, renamed.body).toBe(200);
      const booked = await request(t.app, {
        method: "POST",
        url: `/v1/appointments?clinic_id=${c.clinicId}`,
        token: c.staff.token,
        body: { service_id: service, start: "2027-03-15T09:00:00Z", patient: { name: "Pat" } },
      });
      expect(booked.statusCode, booked.body).toBe(201);
      const feed = await request(t.app, {
        method: "GET",
        url: `/v1/events?clinic_id=${c.clinicId}`,
        token: c.admin.token,
      });
      const listed = feed.json<{ events: { id: string; occurred_at: string }[] }>().events;
      expect(listed.length).toBeGreaterThanOrEqual(5);
      await until(
        "a delivery of every event",
        () => Promise.resolve(receiver.requests.length),
        (n) => n >= listed.length,
      );
      for (const event of listed) {
        const sent = receiver.requests.find((r) => r.headers["webhook-id"] === event.id);
        expect(sent, event.id).toBeDefined();
        // The same bytes: the delivered body appears verbatim in the feed's answer.
        expect(feed.body).toContain(sent?.body ?? "-");
        expect(JSON.parse(sent?.body ?? "{}")).toMatchObject({ occurred_at: event.occurred_at });
      }
    } finally {
      await receiver.stop();
    }
  });
});

describe("outbound safety", () => {
  const strict = useTestApp({ config: { ...baseConfig, webhooks: { allowPrivate: false, retryDelaysS: [] } } });

  it("refuses http and internal addresses at H1 and H3", async () => {
    const c = await bookableClinic(strict.handle.db);
    const create = (url: string) =>
      request(strict.app, {
        method: "POST",
        url: `/v1/clinics/${c.clinicId}/webhooks`,
        token: c.admin.token,
        body: { url, event_types: ["*"] },
      });
    for (const url of [
      "https://127.0.0.1/h",
      "https://[::1]/h",
      "https://10.0.0.1/h",
      "https://169.254.169.254/latest/meta-data",
      "https://[::ffff:127.0.0.1]/h",
      "https://[fd00::1]/h",
      "https://localhost/h",
      "http://93.184.215.14/h",
      "ftp://example.org/",
    ]) {
      expect(problemOf(await create(url)), url).toMatchObject({
        status: 400,
        code: "VALIDATION_FAILED",
        errors: [{ path: "url" }],
      });
    }
    // A public address is fine.
    const ok = await create("https://93.184.215.14/hook");
    expect(ok.statusCode, ok.body).toBe(201);
    const id = ok.json<{ id: string }>().id;
    expect(
      problemOf(
        await request(strict.app, {
          method: "PATCH",
          url: `/v1/clinics/${c.clinicId}/webhooks/${id}`,
          token: c.admin.token,
          body: { url: "https://192.168.1.10/h" },
        }),
      ),
    ).toMatchObject({ status: 400 });
  });
});

// Delivery-time checks and restarts need apps of their own on the test database.
describe("deliveries across processes", () => {
  let handle: DbHandle;
  const apps: FastifyInstance[] = [];
  const app = async (options: { workers: boolean; allowPrivate: boolean; now?: () => Date }) => {
    const built = await buildApp({
      config: {
        ...baseConfig,
        webhooks: { allowPrivate: options.allowPrivate, retryDelaysS: [] },
        jobPollIntervalMs: 500,
      },
      database: handle,
      verifier: createTokenVerifier({ secret: testSecret }),
      logger: false,
      workers: options.workers,
      ...(options.now ? { now: options.now } : {}),
    });
    apps.push(built);
    return built;
  };
  beforeAll(() => {
    handle = t.handle;
  });
  afterAll(async () => {
    for (const a of apps) await a.close().catch(() => undefined);
  });

  it("refuses, at delivery, an address that became internal (DNS can change), without connecting", async () => {
    const receiver = new Receiver([200]);
    await receiver.start();
    try {
      const strictWorkers = await app({
        workers: true,
        allowPrivate: false,
        now: () => new Date("2027-03-01T00:00:00Z"),
      });
      const c = await bookableClinic(handle.db);
      // Saved when the name was public; now it points to this machine.
      await handle.db.insert(webhooks).values({
        clinicId: c.clinicId,
        url: `https://localhost:${String(receiver.port)}/h`,
        eventTypes: ["*"],
        secret: "whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ=",
        feedSeq: await webhookFeedEnd(handle.db, c.clinicId),
      });
      await request(strictWorkers, {
        method: "POST",
        url: `/v1/services?clinic_id=${c.clinicId}`,
        token: c.admin.token,
        body: { name: "S", duration_min: 30 },
      });
      const [hook] = await handle.db.select().from(webhooks).where(eq(webhooks.clinicId, c.clinicId));
      const list = () =>
        request(strictWorkers, {
          method: "GET",
          url: `/v1/clinics/${c.clinicId}/webhooks/${hook?.id ?? ""}/deliveries`,
          token: c.admin.token,
        }).then((r) => r.json<{ deliveries: { status: string; last_error: string | null }[] }>().deliveries);
      const done = await until("the refused delivery", list, (d) => d[0]?.status === "failed");
      expect(done[0]?.last_error).toMatch(/refused|internal/);
      expect(receiver.requests).toHaveLength(0);
      // Its workers would refuse the next test's deliveries to 127.0.0.1.
      await strictWorkers.close();
    } finally {
      await receiver.stop();
    }
  });

  it("delivers after a restart what was committed before it, once with two processes", async () => {
    const receiver = new Receiver([200]);
    await receiver.start();
    try {
      const first = await app({ workers: false, allowPrivate: true, now: () => new Date("2027-03-01T00:00:00Z") });
      const c = await bookableClinic(handle.db);
      const service = await addService(handle.db, c.clinicId, { providerId: c.provider.id });
      await request(first, {
        method: "POST",
        url: `/v1/clinics/${c.clinicId}/webhooks`,
        token: c.admin.token,
        body: { url: `http://127.0.0.1:${String(receiver.port)}/`, event_types: ["appointment.booked"] },
      });
      const booked = await request(first, {
        method: "POST",
        url: `/v1/appointments?clinic_id=${c.clinicId}`,
        token: c.staff.token,
        body: { service_id: service, start: "2027-03-15T09:00:00Z", patient: { name: "P" } },
      });
      expect(booked.statusCode).toBe(201);
      await first.close();
      await new Promise((r) => setTimeout(r, 500));
      expect(receiver.requests).toHaveLength(0);
      // Two processes come up; the attempt is made by one of them, once.
      await app({ workers: true, allowPrivate: true });
      await app({ workers: true, allowPrivate: true });
      await until(
        "the delivery after the restart",
        () => Promise.resolve(receiver.requests.length),
        (n) => n === 1,
      );
      await new Promise((r) => setTimeout(r, 1500));
      expect(receiver.requests).toHaveLength(1);
      expect(JSON.parse(receiver.requests[0]?.body ?? "{}")).toMatchObject({
        type: "appointment.booked",
        data: { id: booked.json<{ id: string }>().id },
      });
    } finally {
      await receiver.stop();
    }
  });

  it("records each reminder once with two processes working, none after a cancel, anew after a reschedule", async () => {
    // Booked an hour ahead of now, both reminders' moments are still to come; the two working
    // processes' clock runs two hours ahead, so that to their sweeps every one is already due
    // (the sweep decides what is due by the workers' clock: docs/events.md#reminders).
    const clinicNow = () => new Date();
    const later = () => new Date(Date.now() + 120 * 60_000);
    // Only those two sweep: the earlier tests' working processes (one with a pinned clock) stop.
    for (const earlier of apps.splice(0)) await earlier.close();
    const booking = await app({ workers: false, allowPrivate: true, now: clinicNow });
    const c = await bookableClinic(handle.db, {
      hours: { weekdays: [1, 2, 3, 4, 5, 6, 7], opens: "00:00", closes: "24:00" },
    });
    const service = await addService(handle.db, c.clinicId, { providerId: c.provider.id, durationMin: 5 });
    const offsets = await request(booking, {
      method: "PATCH",
      url: `/v1/clinics/${c.clinicId}`,
      token: c.admin.token,
      body: { reminder_offsets_min: [60, 30] },
    });
    expect(offsets.json()).toMatchObject({ reminder_offsets_min: [60, 30] });
    // Start: the 5-minute grid point after the clinic's now + 61 minutes.
    const base = Math.ceil((clinicNow().getTime() + 61 * 60_000) / 300_000) * 300_000;
    const book = async (k: number) =>
      (
        await request(booking, {
          method: "POST",
          url: `/v1/appointments?clinic_id=${c.clinicId}`,
          token: c.staff.token,
          body: {
            service_id: service,
            start: new Date(base + k * 300_000).toISOString(),
            patient: { name: `P${String(k)}` },
          },
        })
      ).json<{ id: string }>();
    const booked = await Promise.all([0, 1, 2, 3, 4, 5].map(book));
    const canceled = booked[4];
    const moved = booked[5];
    await request(booking, {
      method: "POST",
      url: `/v1/appointments/${canceled?.id ?? ""}/cancel?clinic_id=${c.clinicId}`,
      token: c.staff.token,
    });
    const movedTo = new Date(base + 10 * 300_000).toISOString();
    expect(
      (
        await request(booking, {
          method: "POST",
          url: `/v1/appointments/${moved?.id ?? ""}/reschedule?clinic_id=${c.clinicId}`,
          token: c.staff.token,
          body: { start: movedTo },
        })
      ).statusCode,
    ).toBe(200);
    // Two processes work the queue.
    await app({ workers: true, allowPrivate: true, now: later });
    await app({ workers: true, allowPrivate: true, now: later });
    type Event = { type: string; data: { id: string; offset_min?: number; start: string } };
    const events = () =>
      request(booking, {
        method: "GET",
        url: `/v1/events?clinic_id=${c.clinicId}&limit=100`,
        token: c.admin.token,
      }).then((r) => r.json<{ events: Event[] }>().events);
    const remindersOf = (list: Event[]) => list.filter((e) => e.type === "appointment.reminder");
    const keyOf = (e: Event) => `${e.data.id}:${String(e.data.offset_min)}:${e.data.start}`;
    const live = booked.slice(0, 4).map((b) => b.id);
    const movedStart = new Date(movedTo).toISOString();
    // 4 live appointments × 2 offsets, and the moved one's 2 at its new start. Other processes of
    // the test run share the queue and may run a reminder before its cancel or move came: that one
    // is recorded before the cancel or move, never after.
    const due = (list: Event[]) => {
      const got = new Set(remindersOf(list).map(keyOf));
      return (
        live.every((id) => [...got].filter((k) => k.startsWith(`${id}:`)).length === 2) &&
        [...got].filter((k) => k.startsWith(`${moved?.id ?? ""}:`) && k.endsWith(`:${movedStart}`)).length === 2
      );
    };
    await until("the reminders", events, due);
    await new Promise((r) => setTimeout(r, 1500));
    const all = await events();
    const reminders = remindersOf(all);
    // Each once.
    expect(new Set(reminders.map(keyOf)).size).toBe(reminders.length);
    // None after the cancel; before the move only at the old start, after it only at the new one.
    const canceledAt = all.findIndex((e) => e.type === "appointment.canceled" && e.data.id === canceled?.id);
    const movedAt = all.findIndex((e) => e.type === "appointment.rescheduled" && e.data.id === moved?.id);
    expect(canceledAt).toBeGreaterThan(-1);
    expect(movedAt).toBeGreaterThan(-1);
    all.forEach((e, i) => {
      if (e.type !== "appointment.reminder") return;
      if (e.data.id === canceled?.id) expect(i, "a reminder after its appointment's cancel").toBeLessThan(canceledAt);
      if (e.data.id === moved?.id)
        expect(e.data.start === movedStart, "a reminder of the moved appointment at the wrong start").toBe(i > movedAt);
    });
    expect(reminders.filter((e) => live.includes(e.data.id))).toHaveLength(8);
    expect(reminders.filter((e) => e.data.id === moved?.id && e.data.start === movedStart)).toHaveLength(2);
  }, 60_000);
});

describe("calendar feeds over /v1", () => {
  it("serve text/calendar without authentication, and 404 for an unknown token", async () => {
    const c = await bookableClinic(t.handle.db);
    const created = await request(t.app, {
      method: "POST",
      url: `/v1/clinics/${c.clinicId}/calendar_feeds`,
      token: c.admin.token,
      body: {},
    });
    expect(created.statusCode, created.body).toBe(201);
    const { url } = created.json<{ url: string }>();
    const path = new URL(url).pathname;
    const feed = await t.app.inject({ method: "GET", url: path });
    expect(feed.statusCode).toBe(200);
    expect(feed.headers["content-type"]).toBe("text/calendar; charset=utf-8");
    expect(feed.body).toContain("BEGIN:VCALENDAR");
    expect(
      problemOf(await t.app.inject({ method: "GET", url: `/v1/calendar/${"0".repeat(32)}${"A".repeat(43)}.ics` })),
    ).toMatchObject({ status: 404 });
  });
});
