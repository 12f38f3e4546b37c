import { describe, expect, it } from "vitest";
import { DomainError } from "@clinic/api";
import { problemOf as problemBody } from "../src/problem.ts";
import { addMember, clinicFixture, newIdentity } from "@clinic/api/testing";
import { problemOf, request, useTestApp } from "./helpers.ts";

const t = useTestApp();

describe("REST adapter", () => {
  it("creates, reads and updates a clinic with 201/200 and ISO millisecond timestamps", async () => {
    const admin = await newIdentity({ admin: true });
    const created = await request(t.app, {
      method: "POST",
      url: "/v1/clinics",
      token: admin.token,
      body: { name: "Berlin Mitte", timezone: "Europe/Berlin" },
    });
    expect(created.statusCode).toBe(201);
    const clinic = created.json<{ id: string; created_at: string }>();
    expect(clinic.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const read = await request(t.app, {
      method: "GET",
      url: `/v1/clinics/${clinic.id.toUpperCase()}`,
      token: admin.token,
    });
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ id: clinic.id, timezone: "Europe/Berlin" });
    const patched = await request(t.app, {
      method: "PATCH",
      url: `/v1/clinics/${clinic.id}`,
      token: admin.token,
      body: { timezone: "America/New_York" },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ timezone: "America/New_York" });
  });

  it("answers validation failures with 400 problem+json and field errors", async () => {
    const admin = await newIdentity({ admin: true });
    const response = await request(t.app, {
      method: "POST",
      url: "/v1/clinics",
      token: admin.token,
      body: { name: 42, extra: true },
    });
    expect(response.statusCode).toBe(400);
    const body = problemOf(response);
    expect(body).toMatchObject({ status: 400, code: "VALIDATION_FAILED", title: "Bad Request" });
    expect(body.errors?.map((e) => e.path)).toEqual(expect.arrayContaining(["name"]));
  });

  it("answers malformed JSON and a non-object body with 400", async () => {
    const admin = await newIdentity({ admin: true });
    const post = (payload: string) =>
      t.app.inject({
        method: "POST",
        url: "/v1/clinics",
        cookies: { access_token: admin.token },
        headers: { "content-type": "application/json" },
        payload,
      });
    const malformed = await post("{not json");
    expect(malformed.statusCode).toBe(400);
    expect(problemOf(malformed).code).toBe("VALIDATION_FAILED");
    const array = await post("[1,2]");
    expect(array.statusCode).toBe(400);
  });

  it("refuses a clinic_id in the query that differs from the path", async () => {
    const clinic = await clinicFixture(t.handle.db);
    const response = await request(t.app, {
      method: "GET",
      url: `/v1/clinics/${clinic.clinicId}?clinic_id=${crypto.randomUUID()}`,
      token: clinic.admin.token,
    });
    expect(response.statusCode).toBe(400);
    expect(problemOf(response).code).toBe("VALIDATION_FAILED");
    const same = await request(t.app, {
      method: "GET",
      url: `/v1/clinics/${clinic.clinicId}?clinic_id=${clinic.clinicId}`,
      token: clinic.admin.token,
    });
    expect(same.statusCode).toBe(200);
  });

  it("answers 400 for a malformed UUID in the path and 404 for an unknown route", async () => {
    const admin = await newIdentity({ admin: true });
    const bad = await request(t.app, { method: "GET", url: "/v1/clinics/not-a-uuid", token: admin.token });
    expect(bad.statusCode).toBe(400);
    const missing = await request(t.app, { method: "GET", url: "/v1/nothing-here", token: admin.token });
    expect(missing.statusCode).toBe(404);
    expect(problemOf(missing).code).toBe("NOT_FOUND");
  });

  it("paginates the members list with limit and next_cursor", async () => {
    const clinic = await clinicFixture(t.handle.db);
    for (let i = 0; i < 4; i++)
      await addMember(t.handle.db, clinic.clinicId, { role: "STAFF", fullName: `Extra ${i}` });
    const names: string[] = [];
    let url = `/v1/clinics/${clinic.clinicId}/members?limit=2`;
    for (let page = 0; page < 10; page++) {
      const response = await request(t.app, { method: "GET", url, token: clinic.admin.token });
      expect(response.statusCode).toBe(200);
      const body = response.json<{ members: { full_name: string }[]; next_cursor: string | null }>();
      names.push(...body.members.map((m) => m.full_name));
      if (!body.next_cursor) break;
      url = `/v1/clinics/${clinic.clinicId}/members?limit=2&cursor=${encodeURIComponent(body.next_cursor)}`;
    }
    expect(names).toEqual(["Admin Person", "Agent Person", "Extra 0", "Extra 1", "Extra 2", "Extra 3", "Staff Person"]);
    const badLimit = await request(t.app, {
      method: "GET",
      url: `/v1/clinics/${clinic.clinicId}/members?limit=0`,
      token: clinic.admin.token,
    });
    expect(badLimit.statusCode).toBe(400);
    const badCursor = await request(t.app, {
      method: "GET",
      url: `/v1/clinics/${clinic.clinicId}/members?cursor=zzz`,
      token: clinic.admin.token,
    });
    expect(badCursor.statusCode).toBe(400);
  });

  it("masks internal errors: the detail names only the request id", () => {
    const body = problemBody(new DomainError("INTERNAL", "select * from secret_table failed"), "req-123");
    expect(body).toMatchObject({ status: 500, code: "INTERNAL", detail: "internal error; request id req-123" });
    expect(JSON.stringify(body)).not.toContain("secret_table");
  });
});

describe("service endpoints", () => {
  it("serves /healthz, /readyz, the OpenAPI document and the docs page", async () => {
    expect((await t.app.inject({ method: "GET", url: "/healthz" })).json()).toEqual({ status: "ok", pid: process.pid });
    const ready = await t.app.inject({ method: "GET", url: "/readyz" });
    expect(ready.statusCode).toBe(200);
    const doc = (await t.app.inject({ method: "GET", url: "/v1/openapi.json" })).json<{
      openapi: string;
      paths: Record<
        string,
        Record<string, { responses: Record<string, unknown>; parameters: { name: string; in: string }[] }>
      >;
    }>();
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/v1/clinics",
        "/v1/clinics/{clinic_id}",
        "/v1/clinics/{clinic_id}/members",
        "/v1/clinics/{clinic_id}/members/{user_id}",
      ]),
    );
    const addMember = doc.paths["/v1/clinics/{clinic_id}/members"]?.post;
    expect(Object.keys(addMember?.responses ?? {})).toEqual(
      expect.arrayContaining(["201", "400", "401", "403", "404", "409"]),
    );
    expect(addMember?.parameters).toContainEqual(expect.objectContaining({ name: "clinic_id", in: "path" }));
    const docs = await t.app.inject({ method: "GET", url: "/docs/" });
    expect(docs.statusCode).toBe(200);
    expect(docs.body).toContain("swagger");
  });

  it("tags every response with a request id", async () => {
    const response = await t.app.inject({ method: "GET", url: "/healthz", headers: { "x-request-id": "abc-123" } });
    expect(response.headers["x-request-id"]).toBe("abc-123");
  });

  it("answers a query-only method on a /trpc mutation with 405 and the code of its meaning, not CONFLICT", async () => {
    const admin = await newIdentity({ admin: true });
    const response = await request(t.app, { method: "GET", url: "/trpc/clinics.create", token: admin.token });
    expect(response.statusCode).toBe(405);
    expect(response.json<{ error: { json: { data: { domain_code: string } } } }>().error.json.data.domain_code).toBe(
      "VALIDATION_FAILED",
    );
  });
});
