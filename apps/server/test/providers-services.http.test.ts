import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { clinicMembers } from "@clinic/db";
import { addProvider, clinicFixture, newIdentity } from "@clinic/api/testing";
import { problemOf, request, useTestApp } from "./helpers.ts";

const t = useTestApp();

type Seeded = Awaited<ReturnType<typeof clinicFixture>>;

interface ServiceBody {
  id: string;
  clinic_id: string;
  name: string;
  duration_min: number;
  price: string | null;
  provider_id: string | null;
  provider_name: string | null;
  is_active: boolean;
  created_at: string;
  updated_at: string;
}

const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A provider of the clinic with the given status, inserted directly. */
const providerOf = (clinic: Seeded, fullName: string, status: "approved" | "pending" | "suspended" = "approved") =>
  addProvider(t.handle.db, clinic.clinicId, fullName, { status });

async function createService(clinic: Seeded, body: Record<string, unknown>): Promise<ServiceBody> {
  const response = await request(t.app, {
    method: "POST",
    url: `/v1/services?clinic_id=${clinic.clinicId}`,
    token: clinic.admin.token,
    body,
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<ServiceBody>();
}

describe("providers over HTTP", () => {
  it("GET /v1/clinics/{cid}/providers?clinic_id=cid lists providers by full_name", async () => {
    const clinic = await clinicFixture(t.handle.db);
    const zoe = await providerOf(clinic, "Zoe", "pending");
    const anna = await providerOf(clinic, "Anna");
    const url = `/v1/clinics/${clinic.clinicId}/providers?clinic_id=${clinic.clinicId}`;
    const response = await request(t.app, { method: "GET", url, token: clinic.staff.token });
    expect(response.statusCode).toBe(200);
    const body = response.json<{
      providers: { user_id: string; created_at: string; is_provider: boolean }[];
      next_cursor: string | null;
    }>();
    expect(body.providers.map((p) => p.user_id)).toEqual([anna.id, zoe.id]);
    expect(body.next_cursor).toBeNull();
    expect(body.providers[0]?.created_at).toMatch(iso);
    expect(body.providers.every((p) => p.is_provider)).toBe(true);

    const repeated = await request(t.app, {
      method: "GET",
      url: `${url}&status=pending&status=suspended`,
      token: clinic.staff.token,
    });
    expect(repeated.json<{ providers: { user_id: string }[] }>().providers.map((p) => p.user_id)).toEqual([zoe.id]);
    const comma = await request(t.app, {
      method: "GET",
      url: `${url}&status=pending,approved&q=ANN`,
      token: clinic.staff.token,
    });
    expect(comma.json<{ providers: { user_id: string }[] }>().providers.map((p) => p.user_id)).toEqual([anna.id]);

    const unknown = await request(t.app, { method: "GET", url: `${url}&status=retired`, token: clinic.staff.token });
    expect(unknown.statusCode).toBe(400);
    expect(problemOf(unknown).code).toBe("VALIDATION_FAILED");
    const mismatch = await request(t.app, {
      method: "GET",
      url: `/v1/clinics/${clinic.clinicId}/providers?clinic_id=${crypto.randomUUID()}`,
      token: clinic.staff.token,
    });
    expect(mismatch.statusCode).toBe(400);
    const custom = await request(t.app, { method: "GET", url, token: clinic.custom.token });
    expect(custom.statusCode).toBe(403);
    expect(problemOf(custom).code).toBe("FORBIDDEN");
    const anonymous = await request(t.app, { method: "GET", url });
    expect(anonymous.statusCode).toBe(401);
  });

  it("runs the lifecycle: approve 200, repeated approve 409, suspend, reactivate, reject, delete 204", async () => {
    const clinic = await clinicFixture(t.handle.db);
    const pat = await providerOf(clinic, "Pat", "pending");
    const base = `/v1/clinics/${clinic.clinicId}/providers/${pat.id}`;
    const post = (action: string, token = clinic.admin.token) =>
      request(t.app, { method: "POST", url: `${base}/${action}`, token });

    const approved = await post("approve");
    expect(approved.statusCode).toBe(200);
    expect(approved.json()).toMatchObject({ user_id: pat.id, status: "approved", is_provider: true });
    const again = await post("approve");
    expect(again.statusCode).toBe(409);
    expect(problemOf(again)).toMatchObject({ status: 409, code: "INVALID_TRANSITION", provider_status: "approved" });
    expect((await post("suspend", clinic.staff.token)).statusCode).toBe(403);
    expect((await post("suspend")).json()).toMatchObject({ status: "suspended" });
    expect((await post("reactivate")).json()).toMatchObject({ status: "approved" });

    const detail = await request(t.app, { method: "GET", url: base, token: clinic.staff.token });
    expect(detail.statusCode).toBe(200);
    expect(detail.json()).toMatchObject({ user_id: pat.id, notes: null, work_hours: [], services: [], closures: [] });

    const deleted = await request(t.app, { method: "DELETE", url: base, token: clinic.admin.token });
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe("");
    const gone = await request(t.app, { method: "GET", url: base, token: clinic.staff.token });
    expect(gone.statusCode).toBe(404);
    expect(problemOf(gone).code).toBe("NOT_FOUND");

    const pending = await providerOf(clinic, "Rae", "pending");
    const rejected = await request(t.app, {
      method: "POST",
      url: `/v1/clinics/${clinic.clinicId}/providers/${pending.id}/reject`,
      token: clinic.admin.token,
    });
    expect(rejected.statusCode).toBe(200);
    expect(rejected.json()).toMatchObject({ user_id: pending.id, is_provider: false, clinic_id: clinic.clinicId });
  });

  it("answers 409 PROVIDER_HAS_SERVICES with service_ids, and 404 for another clinic's provider", async () => {
    const clinic = await clinicFixture(t.handle.db);
    const other = await clinicFixture(t.handle.db);
    const pat = await providerOf(clinic, "Pat");
    const service = await createService(clinic, { name: "Massage", duration_min: 30, provider_id: pat.id });
    const refused = await request(t.app, {
      method: "DELETE",
      url: `/v1/clinics/${clinic.clinicId}/providers/${pat.id}`,
      token: clinic.admin.token,
    });
    expect(refused.statusCode).toBe(409);
    expect(problemOf(refused)).toMatchObject({ code: "PROVIDER_HAS_SERVICES", service_ids: [service.id] });
    const foreign = await request(t.app, {
      method: "POST",
      url: `/v1/clinics/${other.clinicId}/providers/${pat.id}/suspend`,
      token: other.admin.token,
    });
    expect(foreign.statusCode).toBe(404);
    expect(problemOf(foreign).code).toBe("NOT_FOUND");
  });
});

describe("services over HTTP", () => {
  it("creates (201), reads, updates, lists, searches and deletes (204) with clinic_id in the query", async () => {
    const clinic = await clinicFixture(t.handle.db);
    const anna = await providerOf(clinic, "Anna Berg");
    const created = await createService(clinic, { name: "Deep Tissue Massage", duration_min: 60, price: "49.9" });
    expect(created).toMatchObject({
      clinic_id: clinic.clinicId,
      price: "49.90",
      provider_id: null,
      provider_name: null,
      is_active: true,
    });
    expect(created.created_at).toMatch(iso);

    const read = await request(t.app, {
      method: "GET",
      url: `/v1/services/${created.id}?clinic_id=${clinic.clinicId}`,
      token: clinic.custom.token,
    });
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual(created);

    const patched = await request(t.app, {
      method: "PATCH",
      url: `/v1/services/${created.id}?clinic_id=${clinic.clinicId}`,
      token: clinic.admin.token,
      body: { provider_id: anna.id, price: 99999999.99 },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ provider_id: anna.id, provider_name: "Anna Berg", price: "99999999.99" });

    const list = await request(t.app, {
      method: "GET",
      url: `/v1/services?clinic_id=${clinic.clinicId}&provider_id=${anna.id}&limit=10`,
      token: clinic.custom.token,
    });
    expect(list.statusCode).toBe(200);
    expect(list.json()).toMatchObject({
      services: [{ id: created.id, provider_name: "Anna Berg" }],
      next_cursor: null,
    });

    const search = await request(t.app, {
      method: "GET",
      url: `/v1/services/search?clinic_id=${clinic.clinicId}&q=deep%20tisue%20masage`,
      token: clinic.custom.token,
    });
    expect(search.statusCode).toBe(200);
    const matches = search.json<{ matches: { service: ServiceBody; score: number }[] }>().matches;
    expect(matches[0]?.service.id).toBe(created.id);
    expect(typeof matches[0]?.score).toBe("number");

    const deleted = await request(t.app, {
      method: "DELETE",
      url: `/v1/services/${created.id}?clinic_id=${clinic.clinicId}`,
      token: clinic.admin.token,
    });
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe("");
    const after = await request(t.app, {
      method: "GET",
      url: `/v1/services/${created.id}?clinic_id=${clinic.clinicId}`,
      token: clinic.admin.token,
    });
    expect(after.statusCode).toBe(404);
    expect(problemOf(after).code).toBe("NOT_FOUND");

    const audit = await request(t.app, {
      method: "GET",
      url: `/v1/audit_log?clinic_id=${clinic.clinicId}&resource_id=${created.id}`,
      token: clinic.admin.token,
    });
    expect(audit.statusCode).toBe(200);
    const entries = audit.json<{
      entries: { action: string; user_email: string; created_at: string; details: Record<string, unknown> }[];
    }>().entries;
    expect(entries.map((e) => e.action)).toEqual(["SERVICE_DELETED", "SERVICE_UPDATED", "SERVICE_CREATED"]);
    expect(entries[1]).toMatchObject({
      user_email: clinic.admin.email,
      details: {
        changed_fields: ["price", "provider_id"],
        old_provider_id: null,
        new_provider_id: anna.id,
        provider_name: "Anna Berg",
      },
    });
    expect(entries[0]?.created_at).toMatch(iso);
  });

  it.each([
    [{ price: "12345678901" }, "price"],
    [{ price: 1.005 }, "price"],
    [{ price: "1.234" }, "price"],
    [{ price: -5 }, "price"],
    [{ duration_min: 0 }, "duration_min"],
    [{ duration_min: "30" }, "duration_min"],
    [{ name: "" }, "name"],
    [{ provider_id: "not-a-uuid" }, "provider_id"],
  ])("answers 400 VALIDATION_FAILED for %j", async (override, path) => {
    const clinic = await clinicFixture(t.handle.db);
    const response = await request(t.app, {
      method: "POST",
      url: `/v1/services?clinic_id=${clinic.clinicId}`,
      token: clinic.admin.token,
      body: { name: "Check-up", duration_min: 30, ...override },
    });
    expect(response.statusCode).toBe(400);
    const problem = problemOf(response);
    expect(problem.code).toBe("VALIDATION_FAILED");
    expect(problem.errors?.map((e) => e.path)).toContain(path);
  });

  it("answers 422 NOT_A_PROVIDER for a membership id, a non-provider and another clinic's provider", async () => {
    const clinic = await clinicFixture(t.handle.db);
    const other = await clinicFixture(t.handle.db);
    const foreign = await providerOf(other, "Foreign");
    const anna = await providerOf(clinic, "Anna");
    const [membership] = await t.handle.db
      .select({ id: clinicMembers.id })
      .from(clinicMembers)
      .where(and(eq(clinicMembers.clinicId, clinic.clinicId), eq(clinicMembers.userId, anna.id)));
    for (const providerId of [membership?.id, clinic.staff.id, foreign.id]) {
      const response = await request(t.app, {
        method: "POST",
        url: `/v1/services?clinic_id=${clinic.clinicId}`,
        token: clinic.admin.token,
        body: { name: "X", duration_min: 30, provider_id: providerId },
      });
      expect(response.statusCode).toBe(422);
      expect(problemOf(response).code).toBe("NOT_A_PROVIDER");
    }
  });

  it("bulk assigns in one transaction: 200 {services}, 409 ALREADY_ASSIGNED with service_ids, nothing changed", async () => {
    const clinic = await clinicFixture(t.handle.db);
    const anna = await providerOf(clinic, "Anna");
    const ben = await providerOf(clinic, "Ben");
    const free = await createService(clinic, { name: "Free", duration_min: 30 });
    const bens = await createService(clinic, { name: "Ben's", duration_min: 30, provider_id: ben.id });
    const url = `/v1/services/bulk_assign?clinic_id=${clinic.clinicId}`;
    const conflict = await request(t.app, {
      method: "POST",
      url,
      token: clinic.admin.token,
      body: { provider_id: anna.id, service_ids: [free.id, bens.id] },
    });
    expect(conflict.statusCode).toBe(409);
    expect(problemOf(conflict)).toMatchObject({ code: "ALREADY_ASSIGNED", service_ids: [bens.id] });
    const unchanged = await request(t.app, {
      method: "GET",
      url: `/v1/services/${free.id}?clinic_id=${clinic.clinicId}`,
      token: clinic.admin.token,
    });
    expect(unchanged.json()).toMatchObject({ provider_id: null });

    const ok = await request(t.app, {
      method: "POST",
      url,
      token: clinic.admin.token,
      body: { provider_id: anna.id, service_ids: [free.id] },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ services: [{ id: free.id, provider_id: anna.id, provider_name: "Anna" }] });
    const custom = await request(t.app, {
      method: "POST",
      url,
      token: clinic.custom.token,
      body: { provider_id: anna.id, service_ids: [free.id] },
    });
    expect(custom.statusCode).toBe(403);
  });

  it("keeps clinics apart: another clinic's service is 404, custom roles get 403 on writes, STAFF 403 on the audit log", async () => {
    const clinic = await clinicFixture(t.handle.db);
    const other = await clinicFixture(t.handle.db);
    const service = await createService(clinic, { name: "Mine", duration_min: 30 });
    for (const method of ["GET", "PATCH", "DELETE"] as const) {
      const response = await request(t.app, {
        method,
        url: `/v1/services/${service.id}?clinic_id=${other.clinicId}`,
        token: other.admin.token,
        ...(method === "PATCH" ? { body: { name: "Stolen" } } : {}),
      });
      expect(response.statusCode).toBe(404);
      expect(problemOf(response).code).toBe("NOT_FOUND");
    }
    const outsider = await request(t.app, {
      method: "GET",
      url: `/v1/services/${service.id}?clinic_id=${clinic.clinicId}`,
      token: other.admin.token,
    });
    expect(outsider.statusCode).toBe(403);

    const writes = [
      {
        method: "POST" as const,
        url: `/v1/services?clinic_id=${clinic.clinicId}`,
        body: { name: "X", duration_min: 30 },
      },
      { method: "PATCH" as const, url: `/v1/services/${service.id}?clinic_id=${clinic.clinicId}`, body: { name: "X" } },
      { method: "DELETE" as const, url: `/v1/services/${service.id}?clinic_id=${clinic.clinicId}` },
    ];
    for (const write of writes) {
      for (const token of [clinic.custom.token, clinic.staff.token]) {
        const response = await request(t.app, { ...write, token });
        expect(response.statusCode).toBe(403);
        expect(problemOf(response).code).toBe("FORBIDDEN");
      }
    }
    const audit = await request(t.app, {
      method: "GET",
      url: `/v1/audit_log?clinic_id=${clinic.clinicId}`,
      token: clinic.staff.token,
    });
    expect(audit.statusCode).toBe(403);
    const search = await request(t.app, {
      method: "GET",
      url: `/v1/services/search?clinic_id=${clinic.clinicId}&q=mine`,
      token: clinic.custom.token,
    });
    expect(search.statusCode).toBe(200);
    const stranger = await newIdentity();
    const refused = await request(t.app, {
      method: "GET",
      url: `/v1/services?clinic_id=${clinic.clinicId}`,
      token: stranger.token,
    });
    expect(refused.statusCode).toBe(403);
  });

  it("documents the routes in OpenAPI with clinic_id as a query parameter of writes", async () => {
    const response = await request(t.app, { method: "GET", url: "/v1/openapi.json" });
    const doc = response.json<{
      paths: Record<string, Record<string, { parameters: { name: string; in: string }[] }>>;
    }>();
    for (const [path, method] of [
      ["/v1/services", "post"],
      ["/v1/services", "get"],
      ["/v1/services/{id}", "patch"],
      ["/v1/services/{id}", "delete"],
      ["/v1/services/bulk_assign", "post"],
      ["/v1/services/search", "get"],
      ["/v1/audit_log", "get"],
    ] as const) {
      expect(doc.paths[path]?.[method]?.parameters).toContainEqual(
        expect.objectContaining({ name: "clinic_id", in: "query" }),
      );
    }
    for (const path of [
      "/v1/clinics/{clinic_id}/providers",
      "/v1/clinics/{clinic_id}/providers/{user_id}",
      "/v1/clinics/{clinic_id}/providers/{user_id}/approve",
    ]) {
      expect(doc.paths[path]).toBeDefined();
    }
  });
});
