import { describe, expect, it } from "vitest";
import { addHours, addService, bookableClinic } from "@clinic/api/testing";
import { problemOf, request, useTestApp } from "./helpers.ts";

const t = useTestApp({ now: () => new Date("2027-03-01T00:00:00Z") });

describe("booking rules over /v1", () => {
  it("PUT a date override: 201 when created, 200 when replaced, 428 without the stamp; DELETE 204", async () => {
    const c = await bookableClinic(t.handle.db);
    const url = `/v1/clinics/${c.clinicId}/date_overrides/2027-03-20`;
    const created = await request(t.app, {
      method: "PUT",
      url,
      token: c.admin.token,
      body: { periods: [{ opens_at: "09:00", closes_at: "12:00" }], reason: "Saturday surgery" },
    });
    expect(created.statusCode, created.body).toBe(201);
    const body = created.json<{ updated_at: string; periods: unknown[] }>();
    const missing = await request(t.app, { method: "PUT", url, token: c.admin.token, body: { periods: [] } });
    expect(missing.statusCode).toBe(428);
    expect(problemOf(missing).code).toBe("PRECONDITION_REQUIRED");
    const replaced = await request(t.app, {
      method: "PUT",
      url: `${url}?if_updated_at=${encodeURIComponent(body.updated_at)}`,
      token: c.admin.token,
      body: { periods: [] },
    });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(replaced.json<{ periods: unknown[] }>().periods).toEqual([]);
    const list = await request(t.app, {
      method: "GET",
      url: `/v1/clinics/${c.clinicId}/date_overrides?from=2027-03-01&to=2027-03-31`,
      token: c.staff.token,
    });
    expect(list.json<{ date_overrides: { date: string }[] }>().date_overrides.map((o) => o.date)).toEqual([
      "2027-03-20",
    ]);
    expect((await request(t.app, { method: "DELETE", url, token: c.admin.token })).statusCode).toBe(204);
    const badDate = await request(t.app, {
      method: "PUT",
      url: `/v1/clinics/${c.clinicId}/date_overrides/2027-02-30`,
      token: c.admin.token,
      body: { periods: [] },
    });
    expect(problemOf(badDate)).toMatchObject({ status: 400, code: "VALIDATION_FAILED" });
  });

  it("reschedules with POST …/reschedule and explains with GET /v1/availability/explain", async () => {
    const c = await bookableClinic(t.handle.db);
    const service = await addService(t.handle.db, c.clinicId, { providerId: c.provider.id });
    await addHours(t.handle.db, c.clinicId, c.provider.id, [6], "09:00", "12:00");
    const booked = await request(t.app, {
      method: "POST",
      url: `/v1/appointments?clinic_id=${c.clinicId}`,
      token: c.staff.token,
      body: { service_id: service, start: "2027-03-15T09:00:00Z", patient: { name: "Pat" } },
    });
    expect(booked.statusCode, booked.body).toBe(201);
    const id = booked.json<{ id: string }>().id;
    const moved = await request(t.app, {
      method: "POST",
      url: `/v1/appointments/${id}/reschedule?clinic_id=${c.clinicId}`,
      token: c.staff.token,
      headers: { "idempotency-key": "move-it" },
      body: { start: "2027-03-15T10:00:00+00:00" },
    });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json()).toMatchObject({
      id,
      start: "2027-03-15T10:00:00.000Z",
      end: "2027-03-15T10:30:00.000Z",
      buffer_before_min: 0,
      buffer_after_min: 0,
    });
    expect(moved.json<{ rescheduled_at: string }>().rescheduled_at).toMatch(/Z$/);
    const explain = await request(t.app, {
      method: "GET",
      url: `/v1/availability/explain?clinic_id=${c.clinicId}&service_id=${service}&start=2027-03-15T10:00:00Z`,
      token: c.staff.token,
    });
    expect(explain.statusCode, explain.body).toBe(200);
    expect(explain.json()).toMatchObject({
      start: "2027-03-15T10:00:00.000Z",
      end: "2027-03-15T10:30:00.000Z",
      bookable: false,
      providers: [{ provider_id: c.provider.id, bookable: false, reasons: [{ code: "BOOKED", appointment_id: id }] }],
    });
    const saturday = await request(t.app, {
      method: "GET",
      url: `/v1/availability/explain?clinic_id=${c.clinicId}&service_id=${service}&start=2027-03-20T09:00:00Z`,
      token: c.custom.token,
    });
    expect(
      saturday.json<{ providers: { reasons: { code: string; detail: string }[] }[] }>().providers[0]?.reasons,
    ).toEqual([{ code: "CLINIC_HOURS", detail: "outside the clinic's hours on 2027-03-20 (closed all day)" }]);
  });

  it("documents the new routes in OpenAPI, PUT with 201 and 200", async () => {
    const doc = (await t.app.inject({ method: "GET", url: "/v1/openapi.json" })).json<{
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    }>();
    expect(Object.keys(doc.paths["/v1/clinics/{clinic_id}/date_overrides/{date}"]?.put?.responses ?? {})).toEqual(
      expect.arrayContaining(["200", "201", "409", "428"]),
    );
    expect(doc.paths["/v1/appointments/{id}/reschedule"]?.post).toBeDefined();
    expect(doc.paths["/v1/availability/explain"]?.get).toBeDefined();
  });
});
