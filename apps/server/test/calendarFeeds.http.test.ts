import { describe, expect, it } from "vitest";
import { addProvider, clinicFixture } from "@clinic/api/testing";
import { problemOf, request, useTestApp } from "./helpers.ts";

const t = useTestApp();

// Contract §10: F1–F3 are CLINIC_ADMIN's, or a provider's for feeds of their own.
describe("GET /v1/clinics/{cid}/calendar_feeds (F2)", () => {
  it("refuses a member who is neither CLINIC_ADMIN nor a provider with 403; a provider sees their own feeds", async () => {
    const c = await clinicFixture(t.handle.db);
    const provider = await addProvider(t.handle.db, c.clinicId, "Anna Provider");
    const url = `/v1/clinics/${c.clinicId}/calendar_feeds`;
    const create = (token: string, body: Record<string, unknown>) =>
      request(t.app, { method: "POST", url, token, body });
    const own = await create(provider.token, { provider_id: provider.id });
    expect(own.statusCode).toBe(201);
    expect((await create(c.admin.token, {})).statusCode).toBe(201);

    // A STAFF member and a custom-role member, neither a provider.
    for (const member of [c.staff, c.custom]) {
      const refused = await request(t.app, { method: "GET", url, token: member.token });
      expect(refused.statusCode).toBe(403);
      expect(problemOf(refused).code).toBe("FORBIDDEN");
    }

    const asProvider = await request(t.app, { method: "GET", url, token: provider.token });
    expect(asProvider.statusCode).toBe(200);
    expect(asProvider.json<{ calendar_feeds: { id: string }[] }>().calendar_feeds.map((f) => f.id)).toEqual([
      own.json<{ id: string }>().id,
    ]);
    const asAdmin = await request(t.app, { method: "GET", url, token: c.admin.token });
    expect(asAdmin.statusCode).toBe(200);
    expect(asAdmin.json<{ calendar_feeds: unknown[] }>().calendar_feeds).toHaveLength(2);
  });
});
