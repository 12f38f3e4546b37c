// Series and group sessions over REST (CONTRACT §14): R1's 201, its dry run's 200, the 409 body
// that lists the conflicts, a bad RRULE's 400 naming the part, R2, R3, and `remaining` on V1.
import { describe, expect, it } from "vitest";
import { addService, bookableClinic } from "@clinic/api/testing";
import { problemOf, request, useTestApp } from "./helpers.ts";

// Monday 2027-03-01 00:00 UTC.
const now = new Date("2027-03-01T00:00:00.000Z");
const t = useTestApp({ now: () => now });

interface Series {
  id: string;
  provider_id: string | null;
  occurrences: { id: string; start: string; status: string; series_id: string }[];
  skipped: { start: string; reasons: { code: string }[] }[];
}

async function courseClinic() {
  const c = await bookableClinic(t.handle.db, { timezone: "Europe/Berlin" });
  const service = await addService(t.handle.db, c.clinicId, { providerId: c.provider.id, durationMin: 30 });
  const post = (body: Record<string, unknown>, query = "", headers: Record<string, string> = {}) =>
    request(t.app, {
      method: "POST",
      url: `/v1/appointment_series?clinic_id=${c.clinicId}${query}`,
      token: c.staff.token,
      body: { service_id: service, patient: { name: "Pat Course" }, ...body },
      headers,
    });
  return { ...c, service, post };
}

describe("series over REST", () => {
  it("R1 201 books every Tuesday at 09:00 Berlin time across the DST change; R2 reads it; dry_run is 200 and writes nothing", async () => {
    const c = await courseClinic();
    const body = { start: "2027-03-16T08:00:00Z", rrule: "FREQ=WEEKLY;BYDAY=TU;COUNT=3" };
    const dry = await c.post(body, "&dry_run=true");
    expect(dry.statusCode).toBe(200);
    expect(dry.json<{ dry_run: boolean; bookable: boolean }>()).toMatchObject({
      dry_run: true,
      bookable: true,
      skipped: [],
      provider_id: c.provider.id,
    });
    const created = await c.post(body, "", { "idempotency-key": "course-http-1" });
    expect(created.statusCode).toBe(201);
    const series = created.json<Series>();
    // The service names its provider, and the request did not: the series is theirs (§14 R1).
    expect(series.provider_id).toBe(c.provider.id);
    expect(series.occurrences.map((o) => o.start)).toEqual([
      "2027-03-16T08:00:00.000Z",
      "2027-03-23T08:00:00.000Z",
      "2027-03-30T07:00:00.000Z",
    ]);
    const replay = await c.post(body, "", { "idempotency-key": "course-http-1" });
    expect(replay.json<Series>().id).toBe(series.id);
    const read = await request(t.app, {
      method: "GET",
      url: `/v1/appointment_series/${series.id}?clinic_id=${c.clinicId}`,
      token: c.staff.token,
    });
    expect(read.statusCode).toBe(200);
    expect(read.json<Series>().occurrences).toHaveLength(3);
    const one = await request(t.app, {
      method: "GET",
      url: `/v1/appointments/${series.occurrences[0]?.id ?? ""}?clinic_id=${c.clinicId}`,
      token: c.staff.token,
    });
    expect(one.json<{ series_id: string }>().series_id).toBe(series.id);
  });

  it("409 SLOT_UNAVAILABLE lists the conflicts with §8 reasons; skip_unavailable books around them; 400 names the RRULE part", async () => {
    const c = await courseClinic();
    const taken = await request(t.app, {
      method: "POST",
      url: `/v1/appointments?clinic_id=${c.clinicId}`,
      token: c.staff.token,
      body: { service_id: c.service, start: "2027-03-23T08:00:00Z", patient: { name: "In the way" } },
    });
    expect(taken.statusCode).toBe(201);
    const body = { start: "2027-03-16T08:00:00Z", rrule: "FREQ=WEEKLY;COUNT=3" };
    const refused = await c.post(body);
    expect(refused.statusCode).toBe(409);
    const problem = problemOf(refused);
    expect(problem.code).toBe("SLOT_UNAVAILABLE");
    expect(problem.conflicts).toEqual([
      { start: "2027-03-23T08:00:00.000Z", reasons: [expect.objectContaining({ code: "BOOKED" })] },
    ]);
    const skipping = await c.post({ ...body, mode: "skip_unavailable" });
    expect(skipping.statusCode).toBe(201);
    expect(skipping.json<Series>().skipped.map((s) => s.start)).toEqual(["2027-03-23T08:00:00.000Z"]);
    const bad = await c.post({ ...body, rrule: "FREQ=WEEKLY;BYDAY=TU,XX;COUNT=3" });
    expect(bad.statusCode).toBe(400);
    expect(problemOf(bad).errors?.[0]?.path).toBe("rrule.BYDAY");
  });

  it("R3 cancels from an occurrence on; another clinic's series is 404", async () => {
    const c = await courseClinic();
    const created = await c.post({ start: "2027-03-16T08:00:00Z", rrule: "FREQ=DAILY;COUNT=3" });
    const series = created.json<Series>();
    const from = series.occurrences[1]?.start ?? "";
    const canceled = await request(t.app, {
      method: "POST",
      url: `/v1/appointment_series/${series.id}/cancel?clinic_id=${c.clinicId}`,
      token: c.staff.token,
      body: { from },
    });
    expect(canceled.statusCode).toBe(200);
    expect(canceled.json<Series>().occurrences.map((o) => o.status)).toEqual(["booked", "canceled", "canceled"]);
    const other = await courseClinic();
    const foreign = await request(t.app, {
      method: "GET",
      url: `/v1/appointment_series/${series.id}?clinic_id=${other.clinicId}`,
      token: other.staff.token,
    });
    expect(foreign.statusCode).toBe(404);
  });

  it("V1 carries remaining for a group service's slots", async () => {
    const c = await courseClinic();
    const group = await request(t.app, {
      method: "POST",
      url: `/v1/services?clinic_id=${c.clinicId}`,
      token: c.admin.token,
      body: { name: "Back school", duration_min: 60, provider_id: c.provider.id, capacity: 8 },
    });
    expect(group.statusCode).toBe(201);
    const serviceId = group.json<{ id: string; capacity: number }>().id;
    await request(t.app, {
      method: "POST",
      url: `/v1/appointments?clinic_id=${c.clinicId}`,
      token: c.staff.token,
      body: { service_id: serviceId, start: "2027-03-15T08:00:00Z", patient: { name: "Seat one" } },
    });
    const slots = await request(t.app, {
      method: "GET",
      url: `/v1/availability?clinic_id=${c.clinicId}&service_id=${serviceId}&from=2027-03-15&to=2027-03-15`,
      token: c.staff.token,
    });
    const list = slots.json<{ slots: { start: string; remaining?: number }[] }>().slots;
    expect(list.find((s) => s.start === "2027-03-15T08:00:00.000Z")?.remaining).toBe(7);
    expect(list.find((s) => s.start === "2027-03-15T09:00:00.000Z")?.remaining).toBe(8);
  });
});
