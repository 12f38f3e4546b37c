// A provider's daily limit over /v1 (CONTRACT §8 v1.4): M3 sets it, the Member and provider answers
// carry it, B1 past it is 409 SLOT_UNAVAILABLE as problem+json, V2 names DAILY_LIMIT.
import { describe, expect, it } from "vitest";
import { addService, bookableClinic } from "@clinic/api/testing";
import { problemOf, request, useTestApp } from "./helpers.ts";

const t = useTestApp({ now: () => new Date("2027-03-01T00:00:00Z") });

describe("a provider's daily limit over /v1", () => {
  it("PATCH …/members/{user_id} sets it (400 out of range, 403 below CLINIC_ADMIN); B1 past it is 409; V2 says why", async () => {
    const c = await bookableClinic(t.handle.db);
    const service = await addService(t.handle.db, c.clinicId, { providerId: c.provider.id });
    const url = `/v1/clinics/${c.clinicId}/members/${c.provider.id}`;
    const tooMany = await request(t.app, {
      method: "PATCH",
      url,
      token: c.admin.token,
      body: { max_daily_appointments: 101 },
    });
    expect(problemOf(tooMany)).toMatchObject({ status: 400, code: "VALIDATION_FAILED" });
    const staff = await request(t.app, {
      method: "PATCH",
      url,
      token: c.staff.token,
      body: { max_daily_appointments: 1 },
    });
    expect(problemOf(staff)).toMatchObject({ status: 403, code: "FORBIDDEN" });
    const set = await request(t.app, {
      method: "PATCH",
      url,
      token: c.admin.token,
      body: { max_daily_appointments: 1 },
    });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toMatchObject({ user_id: c.provider.id, max_daily_appointments: 1 });
    const providers = await request(t.app, {
      method: "GET",
      url: `/v1/clinics/${c.clinicId}/providers`,
      token: c.staff.token,
    });
    expect(providers.json<{ providers: { max_daily_appointments: number | null }[] }>().providers).toEqual([
      expect.objectContaining({ max_daily_appointments: 1 }),
    ]);
    const book = (start: string) =>
      request(t.app, {
        method: "POST",
        url: `/v1/appointments?clinic_id=${c.clinicId}`,
        token: c.staff.token,
        body: { service_id: service, start, patient: { name: "Pat" } },
      });
    expect((await book("2027-03-15T09:00:00Z")).statusCode).toBe(201);
    const refused = await book("2027-03-15T10:00:00Z");
    expect(refused.statusCode).toBe(409);
    expect(problemOf(refused)).toMatchObject({ status: 409, code: "SLOT_UNAVAILABLE", title: "Conflict" });
    expect((await book("2027-03-16T10:00:00Z")).statusCode).toBe(201);
    const explain = await request(t.app, {
      method: "GET",
      url: `/v1/availability/explain?clinic_id=${c.clinicId}&service_id=${service}&start=2027-03-15T10:00:00Z`,
      token: c.staff.token,
    });
    expect(explain.statusCode, explain.body).toBe(200);
    expect(explain.json()).toMatchObject({
      bookable: false,
      providers: [
        {
          provider_id: c.provider.id,
          bookable: false,
          reasons: [
            {
              code: "DAILY_LIMIT",
              detail: "the provider already has 1 appointment on 2027-03-15, their daily limit of 1",
            },
          ],
        },
      ],
    });
  });
});
