import { describe, expect, it } from "vitest";
import { addProvider, clinicFixture } from "@clinic/api/testing";
import { problemOf, request, useTestApp } from "./helpers.ts";

const t = useTestApp({ now: () => new Date("2027-03-01T00:00:00Z") });

interface WorkHour {
  id: string;
  opens_at: string;
  closes_at: string;
  updated_at: string;
}

describe("work hours and closures over REST", () => {
  it("runs the optimistic-concurrency flow: read updated_at, send it back, 409 on a stale stamp, 428 without", async () => {
    const c = await clinicFixture(t.handle.db);
    const created = await request(t.app, {
      method: "POST",
      url: `/v1/clinics/${c.clinicId}/work_hours`,
      token: c.admin.token,
      body: { weekday: 1, opens_at: "09:00", closes_at: "12:00" },
    });
    expect(created.statusCode).toBe(201);
    const hour = created.json<WorkHour>();
    expect(hour.updated_at).toMatch(/\.\d{3}Z$/);
    const base = `/v1/clinics/${c.clinicId}/work_hours/${hour.id}`;
    const missing = await request(t.app, {
      method: "PATCH",
      url: base,
      token: c.admin.token,
      body: { closes_at: "13:00" },
    });
    expect(missing.statusCode).toBe(428);
    expect(problemOf(missing).code).toBe("PRECONDITION_REQUIRED");
    const bad = await request(t.app, {
      method: "PATCH",
      url: `${base}?if_updated_at=yesterday`,
      token: c.admin.token,
      body: { closes_at: "13:00" },
    });
    expect(bad.statusCode).toBe(400);
    // An offset written unencoded in the query ("+" reads as a space) is understood too.
    const shifted = new Date(Date.parse(hour.updated_at) + 3_600_000).toISOString().replace("Z", "+01:00");
    const ok = await request(t.app, {
      method: "PATCH",
      url: `${base}?if_updated_at=${shifted}`,
      token: c.admin.token,
      body: { closes_at: "13:00" },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json<WorkHour>().closes_at).toBe("13:00");
    const stale = await request(t.app, {
      method: "PATCH",
      url: `${base}?if_updated_at=${encodeURIComponent(hour.updated_at)}`,
      token: c.admin.token,
      body: { closes_at: "14:00" },
    });
    expect(stale.statusCode).toBe(409);
    expect(problemOf(stale)).toMatchObject({
      code: "STALE_UPDATED_AT",
      current_updated_at: ok.json<WorkHour>().updated_at,
    });
    const backwards = await request(t.app, {
      method: "PATCH",
      url: `${base}?if_updated_at=${encodeURIComponent(ok.json<WorkHour>().updated_at)}`,
      token: c.admin.token,
      body: { closes_at: "08:00" },
    });
    expect(backwards.statusCode).toBe(422);
    expect(problemOf(backwards).code).toBe("INVALID_TIME_RANGE");
    const overlap = await request(t.app, {
      method: "POST",
      url: `/v1/clinics/${c.clinicId}/work_hours`,
      token: c.admin.token,
      body: { weekday: 1, opens_at: "12:30", closes_at: "15:00" },
    });
    expect(overlap.statusCode).toBe(409);
    expect(problemOf(overlap)).toMatchObject({
      code: "WORK_HOUR_OVERLAP",
      detail: "overlap detected, period 12:30-15:00 overlaps with existing period 09:00-13:00",
    });
    const deleted = await request(t.app, { method: "DELETE", url: base, token: c.admin.token });
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe("");
  });

  it("serves provider hours and closures, with clinic_id optional on W7/W8 only", async () => {
    const c = await clinicFixture(t.handle.db);
    const provider = await addProvider(t.handle.db, c.clinicId, "Anna");
    const created = await request(t.app, {
      method: "POST",
      url: `/v1/providers/${provider.id}/work_hours?clinic_id=${c.clinicId}`,
      token: provider.token,
      body: { weekday: 2, opens_at: "08:00", closes_at: "24:00" },
    });
    expect(created.statusCode).toBe(201);
    const hour = created.json<WorkHour>();
    const list = await request(t.app, {
      method: "GET",
      url: `/v1/providers/${provider.id}/work_hours?clinic_id=${c.clinicId}&weekday=2`,
      token: c.staff.token,
    });
    expect(list.json<{ work_hours: WorkHour[] }>().work_hours.map((w) => w.closes_at)).toEqual(["24:00"]);
    const edited = await request(t.app, {
      method: "PATCH",
      url: `/v1/providers/${provider.id}/work_hours/${hour.id}?if_updated_at=${encodeURIComponent(hour.updated_at)}`,
      token: provider.token,
      body: { opens_at: "09:00" },
    });
    expect(edited.statusCode).toBe(200);
    const noClinic = await request(t.app, {
      method: "POST",
      url: `/v1/providers/${provider.id}/work_hours`,
      token: provider.token,
      body: { weekday: 3, opens_at: "08:00", closes_at: "09:00" },
    });
    expect(noClinic.statusCode).toBe(400);
    const closure = await request(t.app, {
      method: "POST",
      url: `/v1/providers/${provider.id}/closures?clinic_id=${c.clinicId}`,
      token: provider.token,
      body: { starts_at: "2027-03-02T00:00:00+01:00", ends_at: "2027-03-03T00:00:00+01:00", reason: "Dentist" },
    });
    expect(closure.statusCode).toBe(201);
    const closures = await request(t.app, {
      method: "GET",
      url: `/v1/providers/${provider.id}/closures?clinic_id=${c.clinicId}&from=2027-03-01T00:00:00Z`,
      token: c.staff.token,
    });
    expect(closures.json<{ closures: { reason: string }[] }>().closures.map((k) => k.reason)).toEqual(["Dentist"]);
    const holiday = await request(t.app, {
      method: "POST",
      url: `/v1/clinics/${c.clinicId}/closures`,
      token: c.admin.token,
      body: { starts_at: "2027-12-25T00:00:00", ends_at: "2027-12-26T00:00:00Z" },
    });
    expect(holiday.statusCode).toBe(400);
    const deleted = await request(t.app, {
      method: "DELETE",
      url: `/v1/providers/${provider.id}/work_hours/${hour.id}`,
      token: c.admin.token,
    });
    expect(deleted.statusCode).toBe(204);
  });
});

describe("availability and booking over REST", () => {
  it("books with an Idempotency-Key header, replays it, and answers 409 problem+json for a taken slot", async () => {
    const c = await clinicFixture(t.handle.db, { timezone: "Europe/Berlin" });
    const provider = await addProvider(t.handle.db, c.clinicId, "Anna");
    await request(t.app, {
      method: "POST",
      url: `/v1/clinics/${c.clinicId}/providers/${provider.id}/approve`,
      token: c.admin.token,
    });
    await request(t.app, {
      method: "POST",
      url: `/v1/clinics/${c.clinicId}/work_hours`,
      token: c.admin.token,
      body: { weekday: 1, opens_at: "09:00", closes_at: "12:00" },
    });
    await request(t.app, {
      method: "POST",
      url: `/v1/providers/${provider.id}/work_hours?clinic_id=${c.clinicId}`,
      token: c.admin.token,
      body: { weekday: 1, opens_at: "09:00", closes_at: "12:00" },
    });
    const service = await request(t.app, {
      method: "POST",
      url: `/v1/services?clinic_id=${c.clinicId}`,
      token: c.admin.token,
      body: { name: "Check-up", duration_min: 60, provider_id: provider.id },
    });
    expect(service.statusCode).toBe(201);
    const serviceId = service.json<{ id: string }>().id;
    const availability = await request(t.app, {
      method: "GET",
      url: `/v1/availability?clinic_id=${c.clinicId}&service_id=${serviceId}&from=2027-03-29&to=2027-03-29`,
      token: c.custom.token,
    });
    expect(availability.statusCode).toBe(200);
    const body = availability.json<{
      timezone: string;
      slots: { start: string; start_local: string; provider_ids: string[] }[];
    }>();
    expect(body.timezone).toBe("Europe/Berlin");
    expect(body.slots.map((s) => [s.start, s.start_local])).toEqual([
      ["2027-03-29T07:00:00.000Z", "2027-03-29T09:00"],
      ["2027-03-29T08:00:00.000Z", "2027-03-29T10:00"],
      ["2027-03-29T09:00:00.000Z", "2027-03-29T11:00"],
    ]);
    const book = () =>
      request(t.app, {
        method: "POST",
        url: `/v1/appointments?clinic_id=${c.clinicId}`,
        bearer: c.custom.token,
        headers: { "idempotency-key": "abc-123" },
        body: { service_id: serviceId, start: "2027-03-29T10:00:00+02:00", patient: { name: "Pat" } },
      });
    const first = await book();
    expect(first.statusCode).toBe(201);
    const replay = await book();
    expect(replay.statusCode).toBe(201);
    expect(replay.json<{ id: string }>().id).toBe(first.json<{ id: string }>().id);
    const taken = await request(t.app, {
      method: "POST",
      url: `/v1/appointments?clinic_id=${c.clinicId}`,
      bearer: c.custom.token,
      body: { service_id: serviceId, start: "2027-03-29T08:00:00Z", patient: { name: "Other" } },
    });
    expect(taken.statusCode).toBe(409);
    expect(problemOf(taken).code).toBe("SLOT_UNAVAILABLE");
    const noOffset = await request(t.app, {
      method: "POST",
      url: `/v1/appointments?clinic_id=${c.clinicId}`,
      bearer: c.custom.token,
      body: { service_id: serviceId, start: "2027-03-29T10:00:00", patient: { name: "Other" } },
    });
    expect(noOffset.statusCode).toBe(400);
    const tooLong = await request(t.app, {
      method: "GET",
      url: `/v1/availability?clinic_id=${c.clinicId}&service_id=${serviceId}&from=2027-03-01&to=2027-05-02`,
      token: c.custom.token,
    });
    expect(tooLong.statusCode).toBe(400);
    const cancel = await request(t.app, {
      method: "POST",
      url: `/v1/appointments/${first.json<{ id: string }>().id}/cancel?clinic_id=${c.clinicId}`,
      bearer: c.custom.token,
    });
    expect(cancel.statusCode).toBe(200);
    expect(cancel.json<{ status: string }>().status).toBe("canceled");
    const list = await request(t.app, {
      method: "GET",
      url: `/v1/appointments?clinic_id=${c.clinicId}&status=canceled`,
      token: c.staff.token,
    });
    expect(list.json<{ appointments: unknown[]; next_cursor: string | null }>()).toMatchObject({ next_cursor: null });
    expect(list.json<{ appointments: unknown[] }>().appointments).toHaveLength(1);
  });
});
