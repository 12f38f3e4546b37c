// Guest holds over HTTP (CONTRACT §15 v1.3, docs/manage-links.md#guest-holds): the clinic's
// guest_holds_max on the Clinic resource, C4 and OpenAPI; 409 BOOKING_LIMIT whose detail names the
// instant the oldest hold lapses; 429 RATE_LIMITED with Retry-After past the clinic's total.
import { afterEach, describe, expect, it } from "vitest";
import { addService, bookableClinic } from "@clinic/api/testing";
import { problemOf, request, useTestApp } from "./helpers.ts";

// The clock of the service: every hold made now lapses at 08:10 (hold_minutes 10).
let now = new Date("2027-03-01T08:00:00.000Z");
afterEach(() => {
  now = new Date("2027-03-01T08:00:00.000Z");
});
const t = useTestApp({ now: () => now });

async function guestClinic() {
  const c = await bookableClinic(t.handle.db);
  const service = await addService(t.handle.db, c.clinicId, { providerId: c.provider.id, durationMin: 30 });
  const opened = await request(t.app, {
    method: "PATCH",
    url: `/v1/clinics/${c.clinicId}`,
    token: c.admin.token,
    body: { online_booking: true },
  });
  expect(opened.statusCode).toBe(200);
  return { ...c, service };
}

let slot = 0;
const guestBook = (c: { clinicId: string; service: string }, email: string, address: string) =>
  t.app.inject({
    method: "POST",
    url: `/v1/booking/clinics/${c.clinicId}/appointments`,
    remoteAddress: address,
    payload: {
      service_id: c.service,
      start: new Date(Date.parse("2027-03-15T09:00:00Z") + (slot++ % 16) * 30 * 60_000).toISOString(),
      patient: { name: "Guest", email },
    },
  });

describe("guest holds over HTTP", () => {
  it("guest_holds_max is on the Clinic resource (default 20), set by C4 within 0–1000, and in OpenAPI", async () => {
    const c = await guestClinic();
    const clinic = await request(t.app, { method: "GET", url: `/v1/clinics/${c.clinicId}`, token: c.staff.token });
    expect(clinic.json<{ guest_holds_max: number }>().guest_holds_max).toBe(20);
    const patch = (value: unknown) =>
      request(t.app, {
        method: "PATCH",
        url: `/v1/clinics/${c.clinicId}`,
        token: c.admin.token,
        body: { guest_holds_max: value },
      });
    expect((await patch(0)).json<{ guest_holds_max: number }>().guest_holds_max).toBe(0);
    for (const bad of [-1, 1001, 1.5, "5"]) {
      const refused = await patch(bad);
      expect(refused.statusCode, String(bad)).toBe(400);
      expect(problemOf(refused).code).toBe("VALIDATION_FAILED");
    }
    const doc = (await t.app.inject({ method: "GET", url: "/v1/openapi.json" })).json<{
      paths: Record<
        string,
        Record<
          string,
          {
            requestBody?: { content: { "application/json": { schema: { properties: Record<string, unknown> } } } };
            responses: Record<
              string,
              { content?: { "application/json": { schema: { properties: Record<string, unknown> } } } }
            >;
          }
        >
      >;
    }>();
    const path = doc.paths["/v1/clinics/{clinic_id}"];
    expect(path?.get?.responses["200"]?.content?.["application/json"].schema.properties.guest_holds_max).toMatchObject({
      type: "integer",
    });
    expect(path?.patch?.requestBody?.content["application/json"].schema.properties.guest_holds_max).toEqual({
      type: "integer",
      minimum: 0,
      maximum: 1000,
    });
  });

  it("answers 409 BOOKING_LIMIT with the instant the oldest lapses, and 429 RATE_LIMITED with Retry-After past the clinic's total", async () => {
    const c = await guestClinic();
    await request(t.app, {
      method: "PATCH",
      url: `/v1/clinics/${c.clinicId}`,
      token: c.admin.token,
      body: { guest_holds_max: 4 },
    });
    const first = await Promise.all(
      ["a0", "a1", "a2"].map((name) => guestBook(c, `${name}@example.test`, "198.51.100.1")),
    );
    expect(first.map((a) => a.statusCode)).toEqual([201, 201, 201]);
    const byAddress = await guestBook(c, "a3@example.test", "198.51.100.1");
    expect(byAddress.statusCode).toBe(409);
    expect(problemOf(byAddress)).toMatchObject({ code: "BOOKING_LIMIT", lapses_at: "2027-03-01T08:10:00.000Z" });
    expect(problemOf(byAddress).detail).toContain("2027-03-01T08:10:00.000Z");
    const byEmail = await guestBook(c, "A0@Example.TEST", "198.51.100.2");
    expect(byEmail.statusCode).toBe(409);
    expect(problemOf(byEmail).code).toBe("BOOKING_LIMIT");

    now = new Date("2027-03-01T08:04:00.000Z");
    expect((await guestBook(c, "b@example.test", "198.51.100.3")).statusCode).toBe(201);
    const full = await guestBook(c, "c@example.test", "198.51.100.4");
    expect(full.statusCode).toBe(429);
    expect(problemOf(full)).toMatchObject({ code: "RATE_LIMITED", retry_after_s: 360 });
    expect(full.headers["retry-after"]).toBe("360");
  });
});
