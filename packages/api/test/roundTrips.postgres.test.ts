import { createServer as createHttpServer } from "node:http";
import { type AddressInfo, type Server, type Socket, connect, createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { type DbHandle, clinics, hasCitus, jobs, migrate, openDatabase, rowsOf, webhookDeliveries } from "@clinic/db";
import { createScratchDatabase } from "@clinic/db/testing";
import { startWorkers } from "../src/workers.ts";
import {
  addService,
  addWebhook,
  bookableClinic,
  callerFor,
  clinicDeliveries,
  createUser,
  pinnedNow,
} from "../testing/index.ts";

// A booking's database work is at most three round trips (docs/performance.md#the-booking-path):
// the clinic's authorization, one read of what the check of the start needs, and one write. Counted
// at the driver: every statement it sends to the server, transaction control included. And on the
// wire: how often the client waits for the server (a statement the driver has not prepared costs
// two — it asks for the parameters' types first; docs/performance.md#prepared-statements).
const databaseUrl = inject("databaseUrl");

/**
 * A TCP proxy in front of the database that counts the client's round trips: the Sync and Flush
 * messages of the frontend protocol, after each of which the client waits for the server's answer.
 */
async function roundTripCounter(
  url: string,
): Promise<{ url: string; count: () => number; reset: () => void; close: () => Promise<void> }> {
  const target = new URL(url);
  let waits = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    let pending = Buffer.alloc(0);
    let started = false;
    client.on("data", (chunk: Buffer) => {
      upstream.write(chunk);
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        // The startup message has no type byte: a length, then the rest.
        const header = started ? 5 : 4;
        if (pending.length < header) break;
        const length = started ? pending.readUInt32BE(1) + 1 : pending.readUInt32BE(0);
        if (pending.length < length) break;
        if (started) {
          const type = String.fromCharCode(pending[0] ?? 0);
          if (type === "S" || type === "H") waits++;
        }
        started = true;
        pending = pending.subarray(length);
      }
    });
    upstream.on("data", (chunk: Buffer) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const proxied = new URL(url);
  proxied.hostname = "127.0.0.1";
  proxied.port = String((server.address() as AddressInfo).port);
  return {
    url: proxied.toString(),
    count: () => waits,
    reset: () => {
      waits = 0;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The functions of the hot paths (docs/performance.md#planning-once). */
const hotFunctions = [
  "clinic_schedule_context",
  "clinic_book_appointment",
  "clinic_reschedule_appointment",
  "clinic_set_status",
  "clinic_release_hold",
  "clinic_expire_confirmation",
  "clinic_book_series",
];

describe.skipIf(!databaseUrl)("round trips of the booking path (PostgreSQL)", () => {
  let handle: DbHandle;
  const sent: string[] = [];
  beforeAll(async () => {
    handle = await openDatabase({
      url: databaseUrl,
      poolMax: 2,
      onServerStatement: (text) => sent.push(text.replace(/\s+/g, " ").trim()),
    });
  });
  afterAll(async () => {
    await handle.close();
  });

  it("books and moves in three: authorize, read, write — with reminders, a webhook, an idempotency key and a patient's limit", async () => {
    const c = await bookableClinic(handle.db);
    const service = await addService(handle.db, c.clinicId, { durationMin: 30 });
    await addWebhook(handle.db, c.clinicId, { eventTypes: ["*"] });
    await handle.db
      .update(clinics)
      .set({ reminderOffsetsMin: [1440, 60], onlineBooking: true, maxOpenBookingsPerPatient: 5 })
      .where(eq(clinics.id, c.clinicId));
    const staff = callerFor(handle.db, c.staff, { now: pinnedNow });

    sent.length = 0;
    const booked = await staff.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: "2027-03-15T10:00:00Z",
      patient: { name: "Pat" },
      idempotency_key: "k-1",
    });
    const staffBooking = [...sent];
    expect(booked.status).toBe("booked");
    // The clinic's first booking in this process: its authorization statement gives the zone.
    expect(staffBooking, staffBooking.join("\n")).toHaveLength(3);

    sent.length = 0;
    const replay = await staff.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: "2027-03-15T10:00:00Z",
      patient: { name: "Pat" },
      idempotency_key: "k-1",
    });
    expect(replay.id).toBe(booked.id);
    // Its read (which authorizes it now) refuses the taken time; the write replays the key.
    expect(sent.length, sent.join("\n")).toBeLessThanOrEqual(2);

    const patient = callerFor(handle.db, await createUser(handle.db), { now: pinnedNow });
    sent.length = 0;
    await patient.onlineBooking.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: "2027-03-15T11:00:00Z",
      patient: { name: "Pia" },
    });
    expect(sent.length, sent.join("\n")).toBeLessThanOrEqual(3);

    sent.length = 0;
    const moved = await staff.appointments.reschedule({
      clinic_id: c.clinicId,
      id: booked.id,
      start: "2027-03-15T12:00:00Z",
    });
    expect(moved.start.toISOString()).toBe("2027-03-15T12:00:00.000Z");
    expect(sent.length, sent.join("\n")).toBeLessThanOrEqual(3);

    // What the writes did in their one statement each: the e-mail waits in the job queue. No reminder:
    // nothing is written for one before it is due (docs/events.md#reminders); nothing for the
    // webhook, which reads the feed (docs/events.md#webhooks).
    const queued = await handle.db
      .select({ queue: jobs.queue })
      .from(jobs)
      .where(eq(jobs.clinicId, c.clinicId))
      .orderBy(jobs.queue);
    // The booking e-mail of the one patient with an address (Pia: her token's; §15), planned inside
    // the same statements: no round trip more. No delivery row and no job for the webhook.
    expect(queued.map((r) => r.queue)).toEqual(["message-send"]);
    const planned = await handle.db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.clinicId, c.clinicId));
    expect(planned).toEqual([]);
  }, 60_000);

  it("holds, books a hold, changes a status and releases a hold in at most three each (§13)", async () => {
    const c = await bookableClinic(handle.db);
    const service = await addService(handle.db, c.clinicId, { durationMin: 30 });
    await addWebhook(handle.db, c.clinicId, { eventTypes: ["*"] });
    const staff = callerFor(handle.db, c.staff, { now: pinnedNow });
    const counted = async <T>(call: () => Promise<T>): Promise<T> => {
      sent.length = 0;
      const result = await call();
      expect(sent.length, sent.join("\n")).toBeLessThanOrEqual(3);
      return result;
    };
    const start = "2027-03-15T10:00:00Z";
    const hold = await counted(() => staff.appointments.hold({ clinic_id: c.clinicId, service_id: service, start }));
    const booked = await counted(() =>
      staff.appointments.book({
        clinic_id: c.clinicId,
        service_id: service,
        start,
        hold_id: hold.id,
        patient: { name: "Pat" },
      }),
    );
    expect(booked.id).toBe(hold.id);
    const desk = callerFor(handle.db, c.staff, { now: () => new Date("2027-03-15T09:30:00Z") });
    const arrived = await counted(() =>
      desk.appointments.setStatus({
        clinic_id: c.clinicId,
        id: booked.id,
        status: "arrived",
        if_match: booked.updated_at,
      }),
    );
    expect(arrived.status).toBe("arrived");
    const spare = await staff.appointments.hold({
      clinic_id: c.clinicId,
      service_id: service,
      start: "2027-03-15T11:00:00Z",
    });
    await counted(() => staff.appointments.releaseHold({ clinic_id: c.clinicId, id: spare.id }));
  }, 60_000);

  it("answers an availability miss in two (authorize, one read) and computes identical concurrent misses once", async () => {
    const c = await bookableClinic(handle.db);
    const service = await addService(handle.db, c.clinicId, { durationMin: 30 });
    const staff = callerFor(handle.db, c.staff, { now: pinnedNow });
    sent.length = 0;
    const week = await staff.availability.get({
      clinic_id: c.clinicId,
      service_id: service,
      from: "2027-03-15",
      to: "2027-03-21",
    });
    expect(week.slots.length).toBeGreaterThan(0);
    expect(sent, sent.join("\n")).toHaveLength(2);

    sent.length = 0;
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        staff.availability.get({ clinic_id: c.clinicId, service_id: service, from: "2027-03-22", to: "2027-03-28" }),
      ),
    );
    expect(sent.filter((text) => text.includes("clinic_schedule_context"))).toHaveLength(1);
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
  }, 60_000);

  it("books in two round trips on the wire and moves in three, once the connection has prepared the statements", async () => {
    if (!databaseUrl) return;
    const counter = await roundTripCounter(databaseUrl);
    const wire = await openDatabase({ url: counter.url, poolMax: 1 });
    try {
      const c = await bookableClinic(wire.db);
      const service = await addService(wire.db, c.clinicId, { durationMin: 30 });
      await addWebhook(wire.db, c.clinicId, { eventTypes: ["*"] });
      const staff = callerFor(wire.db, c.staff, { now: pinnedNow });
      const book = (start: string, key?: string) =>
        staff.appointments.book({
          clinic_id: c.clinicId,
          service_id: service,
          start,
          patient: { name: "Pat" },
          ...(key ? { idempotency_key: key } : {}),
        });
      // The first of each prepares its statements on the connection (one round trip more each).
      const first = await book("2027-03-15T09:00:00Z");
      await staff.appointments.reschedule({ clinic_id: c.clinicId, id: first.id, start: "2027-03-15T09:30:00Z" });

      // The process knows the clinic's zone now: the booking's read authorizes it (read, write).
      counter.reset();
      const booked = await book("2027-03-15T10:00:00Z", "wire-1");
      expect(booked.status).toBe("booked");
      expect(counter.count()).toBe(2);

      counter.reset();
      const replay = await book("2027-03-15T10:00:00Z", "wire-1");
      expect(replay.id).toBe(booked.id);
      expect(counter.count()).toBeLessThanOrEqual(2);

      counter.reset();
      await staff.appointments.reschedule({ clinic_id: c.clinicId, id: booked.id, start: "2027-03-15T11:00:00Z" });
      expect(counter.count()).toBe(3);
    } finally {
      await wire.close();
      await counter.close();
    }
  }, 60_000);
  it("plans the hot paths' functions once per connection on PostgreSQL, never on Citus (docs/performance.md#planning-once)", async () => {
    const rows = rowsOf<{ name: string; generic: boolean }>(
      await handle.db.execute(sql`
        select p.proname as name, coalesce('plan_cache_mode=force_generic_plan' = any (p.proconfig), false) as generic
        from pg_catalog.pg_proc p where p.proname in ${hotFunctions} order by p.proname collate "C"`),
    );
    const generic = !(await hasCitus(handle.db));
    expect(rows).toEqual([...hotFunctions].sort().map((name) => ({ name, generic })));
  });
  it("plans the hot paths' functions by index, never by a scan of a whole table (drizzle/0016_plans_by_index.sql)", async () => {
    // A later CREATE OR REPLACE of one of them drops the setting: this fails until it is set again.
    const rows = rowsOf<{ name: string; indexed: boolean }>(
      await handle.db.execute(sql`
        select p.proname as name, coalesce('enable_seqscan=off' = any (p.proconfig), false) as indexed
        from pg_catalog.pg_proc p where p.proname in ${hotFunctions} order by p.proname collate "C"`),
    );
    expect(rows).toEqual([...hotFunctions].sort().map((name) => ({ name, indexed: true })));
  });
  it("plans the availability fast path's lookups once per connection, by index (drizzle/0018_fast_lookups.sql)", async () => {
    // As a prepared statement the batch's query was planned on every call (custom plans), most of
    // the database's CPU per cache hit; a CREATE OR REPLACE that drops the settings brings that back.
    const rows = rowsOf<{ config: string[] | null }>(
      await handle.db.execute(sql`
        select p.proconfig as config from pg_catalog.pg_proc p where p.proname = 'availability_fast_lookups'`),
    );
    expect(rows).toHaveLength(1);
    expect([...(rows[0]?.config ?? [])].sort()).toEqual([
      "enable_bitmapscan=off",
      "enable_seqscan=off",
      "plan_cache_mode=force_generic_plan",
    ]);
  });
});

describe.skipIf(!databaseUrl)("statements per booking, the background work included (PostgreSQL)", () => {
  it("books 30 with a webhook (the rate limit's minute) and delivers them in at most 4 statements a booking (issues 37, 49)", async () => {
    // A database of its own: the workers must run this clinic's jobs only, and every statement sent
    // on its pool is counted — the bookings', the workers' polls, claims, deliveries and completions.
    const scratch = await createScratchDatabase(databaseUrl, "clinic_statements", { migrated: true });
    const received = new Set<string>();
    const receiver = createHttpServer((req, res) => {
      received.add(String(req.headers["webhook-id"]));
      req.resume();
      req.on("end", () => res.writeHead(204).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const port = (receiver.address() as AddressInfo).port;
    const sent: string[] = [];
    try {
      const setup = await scratch.open({ poolMax: 2 });
      await migrate(setup.db);
      const counted = await openDatabase({
        url: scratch.url,
        poolMax: 4,
        onServerStatement: (text) => sent.push(text.replace(/\s+/g, " ").trim()),
      });
      try {
        const c = await bookableClinic(setup.db);
        const service = await addService(setup.db, c.clinicId, { durationMin: 15 });
        await addWebhook(setup.db, c.clinicId, { url: `http://127.0.0.1:${String(port)}/hook`, eventTypes: ["*"] });
        const staff = callerFor(counted.db, c.staff, { now: pinnedNow });
        const bookings = 30;
        const workers = startWorkers(counted, { allowPrivate: true, retryDelaysS: [1], timeoutMs: 5_000 });
        try {
          for (let i = 0; i < bookings; i++) {
            // Monday to Friday from 09:00 (the clinic's zone is UTC): 20 a day.
            const day = Date.parse("2027-03-15T09:00:00Z") + Math.floor(i / 20) * 86_400_000;
            const start = new Date(day + (i % 20) * 15 * 60_000).toISOString();
            await staff.appointments.book({
              clinic_id: c.clinicId,
              service_id: service,
              start,
              patient: { name: "Pat" },
            });
          }
          const delivered = async () => (await clinicDeliveries(setup.db, c.clinicId, { status: "succeeded" })).length;
          for (let waited = 0; (await delivered()) < bookings; waited += 20) {
            if (waited > 30_000) throw new Error(`delivered ${String(await delivered())} of ${String(bookings)}`);
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        } finally {
          await workers.stop();
        }
        expect(received.size).toBe(bookings);
        const perBooking = sent.length / bookings;
        const byKind = new Map<string, number>();
        for (const text of sent) byKind.set(text.slice(0, 60), (byKind.get(text.slice(0, 60)) ?? 0) + 1);
        console.log(
          `statements per booking with its delivery: ${perBooking.toFixed(2)}`,
          JSON.stringify([...byKind.entries()]),
        );
        expect(perBooking, JSON.stringify([...byKind.entries()], null, 1)).toBeLessThanOrEqual(4);
        // Nothing of theirs is left to run but the clinic's one reminder sweep (its reminders are due
        // before each start, and nothing is written for them until then).
        const left = await setup.db.select({ queue: jobs.queue }).from(jobs).where(eq(jobs.clinicId, c.clinicId));
        expect(left.map((r) => r.queue)).toEqual(["reminder-sweep"]);
      } finally {
        await counted.close();
        await setup.close();
      }
    } finally {
      receiver.close();
      await scratch.drop();
    }
  }, 120_000);
});
