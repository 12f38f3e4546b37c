// The front desk over REST (CONTRACT §13): T1 with an If-Match header, holds T2–T4, B1/O4 with
// hold_id, B2's status sets, and the contract's errors with nothing changed.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { addService, bookableClinic, createUser } from "@clinic/api/testing";
import { clinics } from "@clinic/db";
import { problemOf, request, useTestApp } from "./helpers.ts";

// The clinic's clock: two weeks before the Monday booked here, minus an hour for the check-in.
const now = new Date("2027-03-15T08:00:00.000Z");
const t = useTestApp({ now: () => now });
const start = "2027-03-15T09:00:00.000Z";

interface Appointment {
  id: string;
  status: string;
  updated_at: string;
  held_until: string | null;
  status_history: { status: string; reason: string | null }[];
}

async function deskClinic() {
  const c = await bookableClinic(t.handle.db);
  const service = await addService(t.handle.db, c.clinicId, { providerId: c.provider.id, durationMin: 30 });
  await t.handle.db.update(clinics).set({ onlineBooking: true }).where(eq(clinics.id, c.clinicId));
  return { ...c, service };
}

describe("the front desk over REST", () => {
  it("T1: check in with If-Match (bare or as an entity tag); a stale one is 409 with current_updated_at", async () => {
    const c = await deskClinic();
    const booked = await request(t.app, {
      method: "POST",
      url: `/v1/appointments?clinic_id=${c.clinicId}`,
      token: c.staff.token,
      body: { service_id: c.service, start, patient: { name: "Pat" } },
    });
    expect(booked.statusCode).toBe(201);
    const a = booked.json<Appointment>();
    const status = (body: unknown, ifMatch?: string) =>
      request(t.app, {
        method: "POST",
        url: `/v1/appointments/${a.id}/status?clinic_id=${c.clinicId}`,
        token: c.staff.token,
        body,
        ...(ifMatch ? { headers: { "if-match": ifMatch } } : {}),
      });
    const arrived = await status({ status: "arrived" }, `"${a.updated_at}"`);
    expect(arrived.statusCode).toBe(200);
    expect(arrived.json<Appointment>().status).toBe("arrived");
    const stale = await status({ status: "booked" }, a.updated_at);
    expect(stale.statusCode).toBe(409);
    expect(problemOf(stale)).toMatchObject({
      code: "STALE_UPDATED_AT",
      current_updated_at: arrived.json<Appointment>().updated_at,
    });
    expect((await status({ status: "booked" }, "yesterday")).statusCode).toBe(400);
    const unknown = await status({ status: "lost" });
    expect(unknown.statusCode).toBe(400);
    expect(problemOf(unknown).code).toBe("VALIDATION_FAILED");
    const final = await status({ status: "completed" });
    expect(final.statusCode).toBe(200);
    const fromFinal = await status({ status: "arrived" });
    expect(fromFinal.statusCode).toBe(409);
    expect(problemOf(fromFinal)).toMatchObject({ code: "INVALID_TRANSITION", current_status: "completed" });
    const list = await request(t.app, {
      method: "GET",
      url: `/v1/appointments?clinic_id=${c.clinicId}&status=completed,no_show`,
      token: c.staff.token,
    });
    expect(list.json<{ appointments: Appointment[] }>().appointments.map((x) => x.status)).toEqual(["completed"]);
  });

  it("T2–T4: a hold is 201 held, booked by hold_id with the same id, released with 204; another's is 403 below STAFF, 404 for a non-member", async () => {
    const c = await deskClinic();
    const held = await request(t.app, {
      method: "POST",
      url: `/v1/appointments/hold?clinic_id=${c.clinicId}`,
      token: c.staff.token,
      body: { service_id: c.service, start },
    });
    expect(held.statusCode).toBe(201);
    const hold = held.json<Appointment>();
    expect(hold.status).toBe("held");
    expect(Date.parse(hold.held_until ?? "")).toBe(now.getTime() + 10 * 60_000);
    const release = (token: string, id: string) =>
      request(t.app, { method: "DELETE", url: `/v1/appointments/holds/${id}?clinic_id=${c.clinicId}`, token });
    const notMine = await release(c.custom.token, hold.id);
    expect(notMine.statusCode).toBe(403);
    expect(problemOf(notMine).code).toBe("FORBIDDEN");
    const stranger = await createUser(t.handle.db);
    const notAMember = await release(stranger.token, hold.id);
    expect(notAMember.statusCode).toBe(404);
    expect(problemOf(notAMember).code).toBe("NOT_FOUND");
    const booked = await request(t.app, {
      method: "POST",
      url: `/v1/appointments?clinic_id=${c.clinicId}`,
      token: c.staff.token,
      body: { service_id: c.service, start, hold_id: hold.id, patient: { name: "Hal" } },
    });
    expect(booked.statusCode).toBe(201);
    expect(booked.json<Appointment>()).toMatchObject({ id: hold.id, status: "booked", held_until: null });
    // A patient's own hold (T3), released by them.
    const patient = await createUser(t.handle.db);
    const mine = await request(t.app, {
      method: "POST",
      url: `/v1/booking/clinics/${c.clinicId}/holds`,
      token: patient.token,
      body: { service_id: c.service, start: "2027-03-15T09:30:00.000Z" },
    });
    expect(mine.statusCode).toBe(201);
    const released = await release(patient.token, mine.json<Appointment>().id);
    expect(released.statusCode).toBe(204);
    expect(released.body).toBe("");
  });
});
