// Patient routes over HTTP: an isolation matrix (patients, clinics without online booking, a
// member of another clinic) and what a body may carry.
import { describe, expect, it } from "vitest";
import { addService, bookableClinic, newIdentity } from "@clinic/api/testing";
import { problemOf, request, useTestApp } from "./helpers.ts";

const t = useTestApp({
  now: () => new Date("2027-03-01T00:00:00Z"),
  config: {
    allowedOrigins: [],
    rateLimit: { max: 100_000, windowMs: 60_000 },
    logLevel: "silent",
    bookingRateLimit: 1_000,
  },
});

async function onlineClinic(online = true) {
  const c = await bookableClinic(t.handle.db);
  const service = await addService(t.handle.db, c.clinicId, { providerId: c.provider.id });
  if (online)
    await request(t.app, {
      method: "PATCH",
      url: `/v1/clinics/${c.clinicId}`,
      token: c.admin.token,
      body: { online_booking: true },
    });
  return { ...c, service };
}

const secrets = { name: "Bea Secret-Patient", phone: "+4917712345678" };

describe("patient routes over /v1", () => {
  it("keep every patient to their own appointments, and reveal no clinic without online booking", async () => {
    const c = await onlineClinic();
    const closed = await onlineClinic(false);
    const a = await newIdentity();
    const b = await newIdentity();
    const booked = await request(t.app, {
      method: "POST",
      url: `/v1/booking/clinics/${c.clinicId}/appointments`,
      token: b.token,
      body: {
        service_id: c.service,
        start: "2027-03-15T09:00:00Z",
        patient: { name: secrets.name, phone_e164: secrets.phone },
      },
    });
    expect(booked.statusCode, booked.body).toBe(201);
    expect(booked.json()).toMatchObject({
      patient: { name: secrets.name, email: b.email, phone_e164: secrets.phone },
      patient_user_id: b.id,
    });
    const id = booked.json<{ id: string }>().id;

    // Patient A, and a member (CLINIC_ADMIN) of another clinic, against B's appointment.
    const otherClinicAdmin = closed.admin;
    for (const who of [a, otherClinicAdmin]) {
      const answers = [
        await request(t.app, { method: "GET", url: `/v1/me/appointments/${id}`, token: who.token }),
        await request(t.app, { method: "POST", url: `/v1/me/appointments/${id}/cancel`, token: who.token }),
        await request(t.app, {
          method: "POST",
          url: `/v1/me/appointments/${id}/reschedule`,
          token: who.token,
          body: { start: "2027-03-15T11:00:00Z" },
        }),
      ];
      for (const answer of answers) {
        expect(problemOf(answer)).toMatchObject({ status: 404, code: "NOT_FOUND" });
        expect(answer.body).not.toContain(secrets.name);
        expect(answer.body).not.toContain(secrets.phone);
        expect(answer.body).not.toContain(b.email);
      }
      const list = await request(t.app, { method: "GET", url: "/v1/me/appointments", token: who.token });
      expect(list.json<{ appointments: unknown[] }>().appointments).toEqual([]);
    }

    // Every booking-page route of a clinic without online booking is 404, for anyone, members included.
    for (const who of [a, closed.admin, closed.staff]) {
      for (const url of [
        `/v1/booking/clinics/${closed.clinicId}`,
        `/v1/booking/clinics/${closed.clinicId}/services`,
        `/v1/booking/clinics/${closed.clinicId}/availability?service_id=${closed.service}`,
      ]) {
        expect(problemOf(await request(t.app, { method: "GET", url, token: who.token }))).toMatchObject({
          status: 404,
          code: "NOT_FOUND",
        });
      }
      const post = await request(t.app, {
        method: "POST",
        url: `/v1/booking/clinics/${closed.clinicId}/appointments`,
        token: who.token,
        body: { service_id: closed.service, start: "2027-03-15T09:00:00Z", patient: { name: "X" } },
      });
      expect(post.statusCode).toBe(404);
    }

    // What A sees of the clinic carries nothing of B.
    for (const url of [
      `/v1/booking/clinics/${c.clinicId}`,
      `/v1/booking/clinics/${c.clinicId}/services`,
      `/v1/booking/clinics/${c.clinicId}/availability?service_id=${c.service}&from=2027-03-15&to=2027-03-15`,
    ]) {
      const answer = await request(t.app, { method: "GET", url, token: a.token });
      expect(answer.statusCode).toBe(200);
      expect(answer.body).not.toContain(secrets.name);
      expect(answer.body).not.toContain(b.email);
    }
    // B sees their own.
    expect((await request(t.app, { method: "GET", url: `/v1/me/appointments/${id}`, token: b.token })).statusCode).toBe(
      200,
    );
    // Without a token, 401.
    expect(problemOf(await request(t.app, { method: "GET", url: "/v1/me/appointments" }))).toMatchObject({
      status: 401,
      code: "UNAUTHENTICATED",
    });
  });

  it("ignores an e-mail a patient tries to send (the token's is used) and answers 409 BOOKING_LIMIT", async () => {
    const c = await onlineClinic();
    await request(t.app, {
      method: "PATCH",
      url: `/v1/clinics/${c.clinicId}`,
      token: c.admin.token,
      body: { max_open_bookings_per_patient: 1 },
    });
    const p = await newIdentity();
    const withEmail = await request(t.app, {
      method: "POST",
      url: `/v1/booking/clinics/${c.clinicId}/appointments`,
      token: p.token,
      body: {
        service_id: c.service,
        start: "2027-03-15T09:00:00Z",
        patient: { name: "P", email: "someone.else@example.test" },
      },
    });
    expect(problemOf(withEmail)).toMatchObject({ status: 400, code: "VALIDATION_FAILED" });
    const ok = await request(t.app, {
      method: "POST",
      url: `/v1/booking/clinics/${c.clinicId}/appointments`,
      token: p.token,
      body: { service_id: c.service, start: "2027-03-15T09:00:00Z", patient: { name: "P" } },
    });
    expect(ok.json()).toMatchObject({ patient: { email: p.email } });
    const limit = await request(t.app, {
      method: "POST",
      url: `/v1/booking/clinics/${c.clinicId}/appointments`,
      token: p.token,
      body: { service_id: c.service, start: "2027-03-15T10:00:00Z", patient: { name: "P" } },
    });
    expect(problemOf(limit)).toMatchObject({ status: 409, code: "BOOKING_LIMIT" });
  });
});

describe("the per-user booking write limit over HTTP", () => {
  const limited = useTestApp({
    now: () => new Date("2027-03-01T00:00:00Z"),
    config: {
      allowedOrigins: [],
      rateLimit: { max: 100_000, windowMs: 60_000 },
      logLevel: "silent",
      bookingRateLimit: 2,
    },
  });

  it("answers 429 RATE_LIMITED with Retry-After, over /v1 and /trpc", async () => {
    const c = await bookableClinic(limited.handle.db);
    const service = await addService(limited.handle.db, c.clinicId, { providerId: c.provider.id });
    const book = (time: string) =>
      request(limited.app, {
        method: "POST",
        url: `/v1/appointments?clinic_id=${c.clinicId}`,
        token: c.staff.token,
        body: { service_id: service, start: `2027-03-15T${time}:00Z`, patient: { name: "P" } },
      });
    expect((await book("09:00")).statusCode).toBe(201);
    expect((await book("09:30")).statusCode).toBe(201);
    const refused = await book("10:00");
    expect(problemOf(refused)).toMatchObject({ status: 429, code: "RATE_LIMITED" });
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    const trpc = await limited.app.inject({
      method: "POST",
      url: "/trpc/appointments.book",
      headers: { authorization: `Bearer ${c.staff.token}`, "content-type": "application/json" },
      payload: JSON.stringify({
        json: { clinic_id: c.clinicId, service_id: service, start: "2027-03-15T10:30:00Z", patient: { name: "P" } },
      }),
    });
    expect(trpc.statusCode).toBe(429);
    expect(Number(trpc.headers["retry-after"])).toBeGreaterThan(0);
  });
});
