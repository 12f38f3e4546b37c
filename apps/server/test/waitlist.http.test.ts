// The waitlist and the next free time over REST (CONTRACT §15): WL1–WL4 with their status codes,
// the patient's isolation, validation errors as problem+json, and both next-free routes.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { addService, bookableClinic, createUser } from "@clinic/api/testing";
import { clinics } from "@clinic/db";
import { problemOf, request, useTestApp } from "./helpers.ts";

// Monday 2027-03-01 00:00 UTC.
const now = new Date("2027-03-01T00:00:00.000Z");
const t = useTestApp({ now: () => now });

interface Entry {
  id: string;
  status: string;
  patient: { name: string; email: string | null };
  offer: unknown;
}

async function waitClinic() {
  const c = await bookableClinic(t.handle.db);
  const service = await addService(t.handle.db, c.clinicId, { providerId: c.provider.id, durationMin: 30 });
  await t.handle.db.update(clinics).set({ onlineBooking: true }).where(eq(clinics.id, c.clinicId));
  const patient = await createUser(t.handle.db);
  const other = await createUser(t.handle.db);
  return { ...c, service, patient, other };
}

describe("the waitlist over REST", () => {
  it("WL1 201 with the token's e-mail; WL2 lists and deletes (204) only the caller's; WL3 lists for staff", async () => {
    const c = await waitClinic();
    const wish = { service_id: c.service, from_date: "2027-03-02", to_date: "2027-03-05", earliest: "09:00" };
    const joined = await request(t.app, {
      method: "POST",
      url: `/v1/booking/clinics/${c.clinicId}/waitlist`,
      token: c.patient.token,
      body: { ...wish, patient: { name: "Pat" } },
    });
    expect(joined.statusCode).toBe(201);
    const entry = joined.json<Entry>();
    expect(entry).toMatchObject({ status: "waiting", patient: { name: "Pat", email: c.patient.email }, offer: null });

    const mine = await request(t.app, { method: "GET", url: "/v1/me/waitlist", token: c.patient.token });
    expect(mine.statusCode).toBe(200);
    expect(mine.json<{ entries: Entry[] }>().entries.map((e) => e.id)).toEqual([entry.id]);
    const theirs = await request(t.app, { method: "GET", url: "/v1/me/waitlist", token: c.other.token });
    expect(theirs.json<{ entries: Entry[] }>().entries).toEqual([]);

    const stolen = await request(t.app, { method: "DELETE", url: `/v1/me/waitlist/${entry.id}`, token: c.other.token });
    expect(stolen.statusCode).toBe(404);
    expect(problemOf(stolen).code).toBe("NOT_FOUND");

    const staffList = await request(t.app, {
      method: "GET",
      url: `/v1/clinics/${c.clinicId}/waitlist?status=waiting&service_id=${c.service}`,
      token: c.staff.token,
    });
    expect(staffList.statusCode).toBe(200);
    expect(staffList.json<{ entries: Entry[]; next_cursor: string | null }>()).toMatchObject({
      entries: [{ id: entry.id }],
      next_cursor: null,
    });
    const byPatient = await request(t.app, {
      method: "GET",
      url: `/v1/clinics/${c.clinicId}/waitlist`,
      token: c.patient.token,
    });
    expect(byPatient.statusCode).toBe(403);

    const left = await request(t.app, { method: "DELETE", url: `/v1/me/waitlist/${entry.id}`, token: c.patient.token });
    expect(left.statusCode).toBe(204);
    const after = await request(t.app, {
      method: "GET",
      url: `/v1/clinics/${c.clinicId}/waitlist?status=canceled`,
      token: c.staff.token,
    });
    expect(after.json<{ entries: Entry[] }>().entries.map((e) => e.id)).toEqual([entry.id]);
    const anonymous = await request(t.app, { method: "GET", url: "/v1/me/waitlist" });
    expect(anonymous.statusCode).toBe(401);
  });

  it("WL4 201 for staff; bad wishes are 400 VALIDATION_FAILED with nothing written; unknown service 404", async () => {
    const c = await waitClinic();
    const post = (body: Record<string, unknown>) =>
      request(t.app, { method: "POST", url: `/v1/clinics/${c.clinicId}/waitlist`, token: c.staff.token, body });
    const base = { service_id: c.service, from_date: "2027-03-02", to_date: "2027-03-05" };
    const added = await post({ ...base, patient: { name: "Walk In", email: "walk.in@test.example" } });
    expect(added.statusCode).toBe(201);
    const registered = await post({ ...base, patient_user_id: c.patient.id });
    expect(registered.statusCode).toBe(201);
    expect(registered.json<Entry>().patient.email).toBe(c.patient.email);
    for (const bad of [
      { ...base, patient: { name: "X", email: "nope" } },
      { ...base, from_date: "2027-02-27", patient: { name: "X", email: "x@test.example" } },
      { ...base, to_date: "2028-06-01", patient: { name: "X", email: "x@test.example" } },
      { ...base, to_date: "2027-03-01", patient: { name: "X", email: "x@test.example" } },
      { ...base, earliest: "12:00", latest: "11:00", patient: { name: "X", email: "x@test.example" } },
      { ...base, weekdays: [9], patient: { name: "X", email: "x@test.example" } },
      { ...base, patient: { name: "No e-mail" } },
    ]) {
      const refused = await post(bad);
      expect(refused.statusCode, JSON.stringify(bad)).toBe(400);
      expect(problemOf(refused).code).toBe("VALIDATION_FAILED");
    }
    const unknown = await post({ ...base, service_id: crypto.randomUUID(), patient_user_id: c.patient.id });
    expect(unknown.statusCode).toBe(404);
    const list = await request(t.app, {
      method: "GET",
      url: `/v1/clinics/${c.clinicId}/waitlist`,
      token: c.staff.token,
    });
    expect(list.json<{ entries: Entry[] }>().entries).toHaveLength(2);
    // WL1 on a clinic without online booking: 404.
    await t.handle.db.update(clinics).set({ onlineBooking: false }).where(eq(clinics.id, c.clinicId));
    const closed = await request(t.app, {
      method: "POST",
      url: `/v1/booking/clinics/${c.clinicId}/waitlist`,
      token: c.patient.token,
      body: base,
    });
    expect(closed.statusCode).toBe(404);
  });
});

describe("next free time over REST", () => {
  it("staff and booking-page routes answer {slots} as V1 slots; count is 1–20", async () => {
    const c = await waitClinic();
    const staff = await request(t.app, {
      method: "GET",
      url: `/v1/availability/next?clinic_id=${c.clinicId}&service_id=${c.service}&count=2&after=2027-03-01T16:00:00Z`,
      token: c.staff.token,
    });
    expect(staff.statusCode).toBe(200);
    expect(staff.json()).toEqual({
      slots: [
        {
          start: "2027-03-01T16:30:00.000Z",
          end: "2027-03-01T17:00:00.000Z",
          start_local: "2027-03-01T16:30",
          provider_ids: [c.provider.id],
        },
        {
          start: "2027-03-02T09:00:00.000Z",
          end: "2027-03-02T09:30:00.000Z",
          start_local: "2027-03-02T09:00",
          provider_ids: [c.provider.id],
        },
      ],
    });
    const online = await request(t.app, {
      method: "GET",
      url: `/v1/booking/clinics/${c.clinicId}/availability/next?service_id=${c.service}`,
      token: c.patient.token,
    });
    expect(online.statusCode).toBe(200);
    expect(online.json<{ slots: { start: string }[] }>().slots.map((s) => s.start)).toEqual([
      "2027-03-01T09:00:00.000Z",
    ]);
    for (const count of ["0", "21", "many"]) {
      const bad = await request(t.app, {
        method: "GET",
        url: `/v1/availability/next?clinic_id=${c.clinicId}&service_id=${c.service}&count=${count}`,
        token: c.staff.token,
      });
      expect(bad.statusCode, count).toBe(400);
      expect(problemOf(bad).code).toBe("VALIDATION_FAILED");
    }
    const badAfter = await request(t.app, {
      method: "GET",
      url: `/v1/availability/next?clinic_id=${c.clinicId}&service_id=${c.service}&after=tomorrow`,
      token: c.staff.token,
    });
    expect(badAfter.statusCode).toBe(400);
  });

  it("both routes answer an ETag and private, no-cache; 304 for the current tag; booking the first slot changes it (§17)", async () => {
    const c = await waitClinic();
    const routes = [
      { url: `/v1/availability/next?clinic_id=${c.clinicId}&service_id=${c.service}`, token: c.staff.token },
      { url: `/v1/booking/clinics/${c.clinicId}/availability/next?service_id=${c.service}`, token: c.patient.token },
    ];
    const tags: string[] = [];
    for (const route of routes) {
      const first = await request(t.app, { method: "GET", ...route });
      expect(first.statusCode).toBe(200);
      expect(first.headers["cache-control"]).toBe("private, no-cache");
      const etag = first.headers.etag ?? "";
      expect(etag).toMatch(/^"[^"]+"$/);
      expect(first.json<{ slots: { start: string }[] }>().slots[0]?.start).toBe("2027-03-01T09:00:00.000Z");
      const again = await request(t.app, { method: "GET", ...route, headers: { "if-none-match": etag } });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe("");
      expect(again.headers.etag).toBe(etag);
      tags.push(etag);
    }
    const booked = await request(t.app, {
      method: "POST",
      url: `/v1/appointments?clinic_id=${c.clinicId}`,
      token: c.staff.token,
      body: { service_id: c.service, start: "2027-03-01T09:00:00Z", patient: { name: "Pat" } },
    });
    expect(booked.statusCode, booked.body).toBe(201);
    for (const [i, route] of routes.entries()) {
      const after = await request(t.app, { method: "GET", ...route, headers: { "if-none-match": tags[i] ?? "" } });
      expect(after.statusCode).toBe(200);
      expect(after.headers.etag).not.toBe(tags[i]);
      expect(after.json<{ slots: { start: string }[] }>().slots[0]?.start).toBe("2027-03-01T09:30:00.000Z");
    }
  });
});
