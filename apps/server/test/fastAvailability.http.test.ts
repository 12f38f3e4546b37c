import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { AvailabilityCache } from "@clinic/api";
import { addService, bookableClinic, createUser } from "@clinic/api/testing";
import { clinics } from "@clinic/db";
import { request, useTestApp } from "./helpers.ts";

// V1 and O3 (contract §17): ETag on every answer, `Cache-Control: private, no-cache`, 304 for a
// current If-None-Match; the cached answer is served by the adapter's fast path, byte for byte
// what the procedure answers, and only to whom the procedure would answer it.
let clock = new Date("2027-03-01T00:00:00Z");
const availabilityCache = new AvailabilityCache();
const t = useTestApp({ now: () => clock, availabilityCache });

describe("availability answers: ETag, 304 and the fast path", () => {
  it("answers a hit as the miss did, 304 for its tag, and a new tag after a booking", async () => {
    clock = new Date("2027-03-01T00:00:00Z");
    const c = await bookableClinic(t.handle.db);
    const service = await addService(t.handle.db, c.clinicId, { durationMin: 30 });
    const url = `/v1/availability?clinic_id=${c.clinicId}&service_id=${service}&from=2027-03-15&to=2027-03-16`;
    const miss = await request(t.app, { method: "GET", url, token: c.staff.token });
    expect(miss.statusCode).toBe(200);
    expect(miss.headers["cache-control"]).toBe("private, no-cache");
    expect(miss.headers.etag).toMatch(/^".+"$/);
    const hitsBefore = availabilityCache.stats().hits;
    const hit = await request(t.app, { method: "GET", url, token: c.staff.token });
    expect(hit.statusCode).toBe(200);
    // Served from the cache, with the same bytes and so the same tag as the procedure's answer.
    expect(availabilityCache.stats().hits).toBe(hitsBefore + 1);
    expect(hit.body).toBe(miss.body);
    const etag = String(hit.headers.etag);
    expect(etag).toBe(String(miss.headers.etag));
    expect(hit.headers["cache-control"]).toBe("private, no-cache");

    const same = await request(t.app, { method: "GET", url, token: c.staff.token, headers: { "if-none-match": etag } });
    expect(same.statusCode).toBe(304);
    expect(same.body).toBe("");
    expect(same.headers.etag).toBe(etag);
    // Another member of the clinic revalidates the same answer.
    const other = await request(t.app, {
      method: "GET",
      url,
      token: c.admin.token,
      headers: { "if-none-match": `W/${etag}, "x"` },
    });
    expect(other.statusCode).toBe(304);

    const booked = await request(t.app, {
      method: "POST",
      url: `/v1/appointments?clinic_id=${c.clinicId}`,
      token: c.staff.token,
      body: { service_id: service, start: "2027-03-15T10:00:00Z", patient: { name: "Pat" } },
    });
    expect(booked.statusCode).toBe(201);
    const after = await request(t.app, {
      method: "GET",
      url,
      token: c.staff.token,
      headers: { "if-none-match": etag },
    });
    expect(after.statusCode).toBe(200);
    expect(after.headers.etag).not.toBe(etag);
    const starts = (JSON.parse(after.body) as { slots: { start: string }[] }).slots.map((s) => s.start);
    expect(starts).not.toContain("2027-03-15T10:00:00.000Z");
    expect(starts).toContain("2027-03-15T10:30:00.000Z");
  });

  it("answers a miss with the procedure's bytes, and leaves the procedure's refusals to it", async () => {
    clock = new Date("2027-03-01T00:00:00Z");
    const c = await bookableClinic(t.handle.db);
    const service = await addService(t.handle.db, c.clinicId, { durationMin: 45 });
    const query = { clinic_id: c.clinicId, service_id: service, from: "2027-03-15", to: "2027-03-19" };
    const missesBefore = availabilityCache.stats().misses;
    const miss = await request(t.app, {
      method: "GET",
      url: `/v1/availability?${new URLSearchParams(query).toString()}`,
      token: c.staff.token,
    });
    expect(miss.statusCode).toBe(200);
    expect(availabilityCache.stats().misses).toBe(missesBefore + 1);
    const viaTrpc = await request(t.app, {
      method: "GET",
      url: `/trpc/availability.get?input=${encodeURIComponent(JSON.stringify({ json: query }))}`,
      token: c.staff.token,
    });
    const data = (JSON.parse(viaTrpc.body) as { result: { data: { json: unknown } } }).result.data.json;
    expect(miss.body).toBe(JSON.stringify(data));
    expect((JSON.parse(miss.body) as { slots: unknown[] }).slots.length).toBeGreaterThan(0);

    // What the procedure refuses, the REST route still refuses, with the procedure's codes.
    const refusal = async (params: Record<string, string>) => {
      const answer = await request(t.app, {
        method: "GET",
        url: `/v1/availability?${new URLSearchParams({ ...query, ...params }).toString()}`,
        token: c.staff.token,
      });
      return [answer.statusCode, answer.json<{ code?: string }>().code];
    };
    expect(await refusal({ service_id: "00000000-0000-4000-8000-000000000000" })).toEqual([404, "NOT_FOUND"]);
    expect(await refusal({ provider_id: c.staff.id })).toEqual([422, "NOT_A_PROVIDER"]);
    expect(await refusal({ to: "2027-03-14" })).toEqual([400, "VALIDATION_FAILED"]);
  });

  it("changes the tag when the clock cuts the answer, and cuts it as the procedure does", async () => {
    clock = new Date("2027-03-01T00:00:00Z");
    const c = await bookableClinic(t.handle.db);
    const service = await addService(t.handle.db, c.clinicId, { durationMin: 60 });
    const url = `/v1/availability?clinic_id=${c.clinicId}&service_id=${service}&from=2027-03-15&to=2027-03-15`;
    await request(t.app, { method: "GET", url, token: c.staff.token });
    const before = await request(t.app, { method: "GET", url, token: c.staff.token });
    clock = new Date("2027-03-15T11:30:00Z");
    const later = await request(t.app, {
      method: "GET",
      url,
      token: c.staff.token,
      headers: { "if-none-match": String(before.headers.etag) },
    });
    expect(later.statusCode).toBe(200);
    const slots = (JSON.parse(later.body) as { slots: { start: string }[] }).slots;
    expect(slots[0]?.start).toBe("2027-03-15T12:00:00.000Z");
    // The same cut through the procedure (tRPC, no fast path).
    const viaTrpc = await request(t.app, {
      method: "GET",
      url: `/trpc/availability.get?input=${encodeURIComponent(JSON.stringify({ json: { clinic_id: c.clinicId, service_id: service, from: "2027-03-15", to: "2027-03-15" } }))}`,
      token: c.staff.token,
    });
    const trpcSlots = (JSON.parse(viaTrpc.body) as { result: { data: { json: { slots: unknown[] } } } }).result.data
      .json.slots;
    expect(trpcSlots).toHaveLength(slots.length);
    clock = new Date("2027-03-01T00:00:00Z");
  });

  it("serves a cached answer only to whom the procedure would: non-members 403, clinics without online booking 404", async () => {
    clock = new Date("2027-03-01T00:00:00Z");
    const c = await bookableClinic(t.handle.db);
    const service = await addService(t.handle.db, c.clinicId, { durationMin: 30 });
    const url = `/v1/availability?clinic_id=${c.clinicId}&service_id=${service}&from=2027-03-15&to=2027-03-15`;
    await request(t.app, { method: "GET", url, token: c.staff.token });
    const stranger = await createUser(t.handle.db);
    const refused = await request(t.app, { method: "GET", url, token: stranger.token });
    expect(refused.statusCode).toBe(403);
    const anonymous = await request(t.app, { method: "GET", url });
    expect(anonymous.statusCode).toBe(401);

    const online = `/v1/booking/clinics/${c.clinicId}/availability?service_id=${service}&from=2027-03-15&to=2027-03-15`;
    expect((await request(t.app, { method: "GET", url: online, token: stranger.token })).statusCode).toBe(404);
    await t.handle.db.update(clinics).set({ onlineBooking: true }).where(eq(clinics.id, c.clinicId));
    const open = await request(t.app, { method: "GET", url: online, token: stranger.token });
    expect(open.statusCode).toBe(200);
    const again = await request(t.app, {
      method: "GET",
      url: online,
      token: stranger.token,
      headers: { "if-none-match": String(open.headers.etag) },
    });
    expect([200, 304]).toContain(again.statusCode);
    const third = await request(t.app, {
      method: "GET",
      url: online,
      token: stranger.token,
      headers: { "if-none-match": String(again.headers.etag) },
    });
    expect(third.statusCode).toBe(304);
  });
  it("reads the requests of one turn together and answers each as if alone: members, strangers, two clinics", async () => {
    clock = new Date("2027-03-01T00:00:00Z");
    const one = await bookableClinic(t.handle.db);
    const two = await bookableClinic(t.handle.db);
    const serviceOne = await addService(t.handle.db, one.clinicId, { durationMin: 30 });
    const serviceTwo = await addService(t.handle.db, two.clinicId, { durationMin: 60 });
    const urlOne = `/v1/availability?clinic_id=${one.clinicId}&service_id=${serviceOne}&from=2027-03-15&to=2027-03-15`;
    const urlTwo = `/v1/availability?clinic_id=${two.clinicId}&service_id=${serviceTwo}&from=2027-03-15&to=2027-03-15`;
    const first = [
      await request(t.app, { method: "GET", url: urlOne, token: one.staff.token }),
      await request(t.app, { method: "GET", url: urlTwo, token: two.staff.token }),
    ];
    const stranger = await createUser(t.handle.db);
    const hitsBefore = availabilityCache.stats().hits;
    // Sent at once: the fast path reads them in one statement.
    const answers = await Promise.all([
      request(t.app, { method: "GET", url: urlOne, token: one.staff.token }),
      request(t.app, { method: "GET", url: urlTwo, token: stranger.token }),
      request(t.app, { method: "GET", url: urlTwo, token: two.admin.token }),
      request(t.app, { method: "GET", url: urlOne, token: two.staff.token }),
      request(t.app, {
        method: "GET",
        url: urlTwo,
        token: two.staff.token,
        headers: { "if-none-match": String(first[1]?.headers.etag) },
      }),
    ]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 403, 200, 403, 304]);
    expect(answers[0].body).toBe(first[0]?.body);
    expect(answers[2].body).toBe(first[1]?.body);
    // The members' three came from the cache; the strangers' went to the procedure, which refused them.
    expect(availabilityCache.stats().hits - hitsBefore).toBe(3);

    // A booking in clinic two, then a batch again: the new versions, read after the booking answered.
    const booked = await request(t.app, {
      method: "POST",
      url: `/v1/appointments?clinic_id=${two.clinicId}`,
      token: two.staff.token,
      body: { service_id: serviceTwo, start: "2027-03-15T10:00:00Z", patient: { name: "Pat" } },
    });
    expect(booked.statusCode).toBe(201);
    const after = await Promise.all([
      request(t.app, { method: "GET", url: urlTwo, token: two.staff.token }),
      request(t.app, { method: "GET", url: urlOne, token: one.staff.token }),
    ]);
    expect(after.map((a) => a.statusCode)).toEqual([200, 200]);
    expect(after[0].body).not.toBe(first[1]?.body);
    expect(after[0].json<{ slots: { start: string }[] }>().slots.map((s) => s.start)).not.toContain(
      "2027-03-15T10:00:00.000Z",
    );
    expect(after[1].body).toBe(first[0]?.body);
  });
});
