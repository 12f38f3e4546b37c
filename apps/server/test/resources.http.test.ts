// Resources over REST (CONTRACT §14 Q1–Q5): the status codes (201, 200, 204, 404, 422, 403, 400),
// problem+json bodies, and a service's required_resource_kinds on /v1/services.
import { describe, expect, it } from "vitest";
import { addResource, clinicFixture } from "@clinic/api/testing";
import { problemOf, request, useTestApp } from "./helpers.ts";

const t = useTestApp();

interface Resource {
  id: string;
  clinic_id: string;
  name: string;
  kind: string;
  is_active: boolean;
  created_at: string;
  updated_at: string;
}

describe("resources over REST", () => {
  it("Q1 201, Q2 200 by kind and name (kind filter), Q3 200, Q4 204 then 404", async () => {
    const c = await clinicFixture(t.handle.db);
    const base = `/v1/clinics/${c.clinicId}/resources`;
    const created = await request(t.app, {
      method: "POST",
      url: base,
      token: c.admin.token,
      body: { name: "Room 2", kind: "treatment_room" },
    });
    expect(created.statusCode).toBe(201);
    const room = created.json<Resource>();
    expect(room).toEqual({
      id: expect.any(String) as string,
      clinic_id: c.clinicId,
      name: "Room 2",
      kind: "treatment_room",
      is_active: true,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as string,
      updated_at: room.created_at,
    });
    const scanner = await addResource(t.handle.db, c.clinicId, { name: "Scanner", kind: "imaging" });
    const room1 = await addResource(t.handle.db, c.clinicId, { name: "Room 1", kind: "treatment_room" });

    const listed = await request(t.app, { method: "GET", url: base, token: c.staff.token });
    expect(listed.statusCode).toBe(200);
    expect(listed.json<{ resources: Resource[] }>().resources.map((r) => r.id)).toEqual([scanner, room1, room.id]);
    const rooms = await request(t.app, { method: "GET", url: `${base}?kind=treatment_room`, token: c.staff.token });
    expect(rooms.json<{ resources: Resource[] }>().resources.map((r) => r.name)).toEqual(["Room 1", "Room 2"]);

    const patched = await request(t.app, {
      method: "PATCH",
      url: `${base}/${room.id}`,
      token: c.admin.token,
      body: { is_active: false, name: "Room 2 (closed)" },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json<Resource>()).toMatchObject({ id: room.id, name: "Room 2 (closed)", is_active: false });

    const deleted = await request(t.app, { method: "DELETE", url: `${base}/${room.id}`, token: c.admin.token });
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe("");
    const again = await request(t.app, { method: "DELETE", url: `${base}/${room.id}`, token: c.admin.token });
    expect(again.statusCode).toBe(404);
    expect(problemOf(again)).toMatchObject({ status: 404, code: "NOT_FOUND" });
    const after = await request(t.app, { method: "GET", url: base, token: c.staff.token });
    expect(after.json<{ resources: Resource[] }>().resources.map((r) => r.id)).toEqual([scanner, room1]);
  });

  it("Q5 201 with a resource-scoped Closure; 422 INVALID_TIME_RANGE for an empty range; the closure list", async () => {
    const c = await clinicFixture(t.handle.db);
    const id = await addResource(t.handle.db, c.clinicId);
    const url = `/v1/clinics/${c.clinicId}/resources/${id}/closures`;
    const closed = await request(t.app, {
      method: "POST",
      url,
      token: c.admin.token,
      body: { starts_at: "2027-05-03T08:00:00+02:00", ends_at: "2027-05-03T12:00:00+02:00", reason: "Service" },
    });
    expect(closed.statusCode).toBe(201);
    expect(closed.json()).toEqual({
      id: expect.any(String) as string,
      clinic_id: c.clinicId,
      scope: "resource",
      provider_id: null,
      resource_id: id,
      starts_at: "2027-05-03T06:00:00.000Z",
      ends_at: "2027-05-03T10:00:00.000Z",
      reason: "Service",
      created_at: expect.any(String) as string,
    });
    const backwards = await request(t.app, {
      method: "POST",
      url,
      token: c.admin.token,
      body: { starts_at: "2027-05-03T12:00:00Z", ends_at: "2027-05-03T12:00:00Z" },
    });
    expect(backwards.statusCode).toBe(422);
    expect(problemOf(backwards)).toMatchObject({
      status: 422,
      code: "INVALID_TIME_RANGE",
      errors: [{ path: "ends_at", message: "must be after starts_at" }],
    });
    const listed = await request(t.app, { method: "GET", url, token: c.staff.token });
    expect(listed.statusCode).toBe(200);
    expect(listed.json<{ closures: { reason: string }[] }>().closures.map((k) => k.reason)).toEqual(["Service"]);
  });

  it("403 for STAFF writes, 404 for another clinic's resource, 400 problem+json for a bad kind or name", async () => {
    const c = await clinicFixture(t.handle.db);
    const other = await clinicFixture(t.handle.db);
    const base = `/v1/clinics/${c.clinicId}/resources`;
    const byStaff = await request(t.app, {
      method: "POST",
      url: base,
      token: c.staff.token,
      body: { name: "Room", kind: "room" },
    });
    expect(byStaff.statusCode).toBe(403);
    expect(problemOf(byStaff).code).toBe("FORBIDDEN");
    const byCustom = await request(t.app, { method: "GET", url: base, token: c.custom.token });
    expect(byCustom.statusCode).toBe(403);

    const theirs = await addResource(t.handle.db, other.clinicId);
    for (const [method, url, body] of [
      ["PATCH", `${base}/${theirs}`, { name: "Mine now" }],
      ["DELETE", `${base}/${theirs}`, undefined],
      ["POST", `${base}/${theirs}/closures`, { starts_at: "2027-05-03T08:00:00Z", ends_at: "2027-05-03T09:00:00Z" }],
    ] as const) {
      const response = await request(t.app, { method, url, token: c.admin.token, body });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(problemOf(response).code).toBe("NOT_FOUND");
    }

    const badKind = await request(t.app, {
      method: "POST",
      url: base,
      token: c.admin.token,
      body: { name: "Room", kind: "Treatment Room" },
    });
    expect(badKind.statusCode).toBe(400);
    expect(problemOf(badKind)).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ path: "kind" }] });
    const emptyName = await request(t.app, {
      method: "POST",
      url: base,
      token: c.admin.token,
      body: { name: " ", kind: "room" },
    });
    expect(emptyName.statusCode).toBe(400);
    expect(problemOf(emptyName)).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ path: "name" }] });
    const unknownField = await request(t.app, {
      method: "POST",
      url: base,
      token: c.admin.token,
      body: { name: "Room", kind: "room", capacity: 2 },
    });
    expect(unknownField.statusCode).toBe(400);
  });

  it("a service's required_resource_kinds on S1/S2: 201 with the kinds sorted, 400 for a kind named twice", async () => {
    const c = await clinicFixture(t.handle.db);
    const created = await request(t.app, {
      method: "POST",
      url: `/v1/services?clinic_id=${c.clinicId}`,
      token: c.admin.token,
      body: { name: "Scan", duration_min: 30, required_resource_kinds: ["ultrasound", "treatment_room"] },
    });
    expect(created.statusCode).toBe(201);
    const service = created.json<{ id: string; required_resource_kinds: string[] }>();
    expect(service.required_resource_kinds).toEqual(["treatment_room", "ultrasound"]);
    const twice = await request(t.app, {
      method: "PATCH",
      url: `/v1/services/${service.id}?clinic_id=${c.clinicId}`,
      token: c.admin.token,
      body: { required_resource_kinds: ["room", "room"] },
    });
    expect(twice.statusCode).toBe(400);
    expect(problemOf(twice)).toMatchObject({
      code: "VALIDATION_FAILED",
      errors: [{ path: "required_resource_kinds" }],
    });
  });
});
