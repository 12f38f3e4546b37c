// Resources (CONTRACT §14 Q1–Q5, docs/resources.md): create, list, update, soft delete and close a
// clinic's rooms and equipment, through the real middleware chain; and a service's
// required_resource_kinds.
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { availabilityVersions, resourceClosures, resources } from "@clinic/db";
import {
  addResource,
  callerFor,
  clinicFixture,
  codeOf,
  createUser,
  rejectionOf,
  useTestDatabase,
  versionMovedPast,
} from "../testing/index.ts";

const t = useTestDatabase();

async function clinicVersion(clinicId: string): Promise<number> {
  const [row] = await t.db
    .select({ version: availabilityVersions.version })
    .from(availabilityVersions)
    .where(and(eq(availabilityVersions.clinicId, clinicId), eq(availabilityVersions.scopeId, clinicId)));
  return row?.version ?? 0;
}

describe("resources.create (Q1)", () => {
  it("creates an active resource with a trimmed name, answers the Resource, and invalidates availability", async () => {
    const c = await clinicFixture(t.db);
    const before = await clinicVersion(c.clinicId);
    const room = await c.asAdmin.resources.create({
      clinic_id: c.clinicId,
      name: "  Room 1  ",
      kind: "treatment_room",
    });
    expect(room).toMatchObject({ clinic_id: c.clinicId, name: "Room 1", kind: "treatment_room", is_active: true });
    expect(Object.keys(room).sort()).toEqual(
      ["id", "clinic_id", "name", "kind", "is_active", "created_at", "updated_at"].sort(),
    );
    expect(room.created_at).toBeInstanceOf(Date);
    await versionMovedPast(clinicVersion(c.clinicId), before);
    const inactive = await c.asAdmin.resources.create({
      clinic_id: c.clinicId,
      name: "Spare ultrasound",
      kind: "ultrasound",
      is_active: false,
    });
    expect(inactive.is_active).toBe(false);
  });

  it("refuses a bad kind or an empty name with 400 and a message that says what is allowed", async () => {
    const c = await clinicFixture(t.db);
    const create = (name: string, kind: string) => c.asAdmin.resources.create({ clinic_id: c.clinicId, name, kind });
    for (const kind of ["Treatment_Room", "room 1", "", "_room", "x".repeat(65), "räume"]) {
      const rejection = await rejectionOf(create("Room", kind));
      expect(rejection.domainCode, kind).toBe("VALIDATION_FAILED");
      expect(rejection.message).toMatch(/^kind: must be 1-64 lower-case letters, digits, _ and -/);
    }
    expect(await create("Room", "x".repeat(64))).toMatchObject({ kind: "x".repeat(64) });
    expect(await create("Room", " room-2 ")).toMatchObject({ kind: "room-2" });
    const empty = await rejectionOf(create("   ", "room"));
    expect(empty).toMatchObject({ domainCode: "VALIDATION_FAILED", message: "name: must not be empty" });
    expect(await codeOf(create("x".repeat(201), "room"))).toBe("VALIDATION_FAILED");
  });

  it("is CLINIC_ADMIN's: STAFF, a custom role and outsiders are 403", async () => {
    const c = await clinicFixture(t.db);
    const input = { clinic_id: c.clinicId, name: "Room", kind: "room" };
    expect(await codeOf(c.asStaff.resources.create(input))).toBe("FORBIDDEN");
    expect(await codeOf(c.asCustom.resources.create(input))).toBe("FORBIDDEN");
    const outsider = callerFor(t.db, await createUser(t.db));
    expect(await codeOf(outsider.resources.create(input))).toBe("FORBIDDEN");
  });
});

describe("resources.list (Q2)", () => {
  it("lists live resources by kind, name, id, inactive ones too, filtered by kind; STAFF may list", async () => {
    const c = await clinicFixture(t.db);
    const other = await clinicFixture(t.db);
    await addResource(t.db, other.clinicId, { name: "Elsewhere", kind: "room" });
    const roomB = await addResource(t.db, c.clinicId, { name: "Room B", kind: "room" });
    const xray = await addResource(t.db, c.clinicId, { name: "X-ray", kind: "imaging", isActive: false });
    const roomA = await addResource(t.db, c.clinicId, { name: "Room A", kind: "room" });
    await addResource(t.db, c.clinicId, { name: "Old room", kind: "room", deleted: true });

    const all = await c.asStaff.resources.list({ clinic_id: c.clinicId });
    expect(all.resources.map((r) => [r.id, r.is_active])).toEqual([
      [xray, false],
      [roomA, true],
      [roomB, true],
    ]);
    const rooms = await c.asStaff.resources.list({ clinic_id: c.clinicId, kind: "room" });
    expect(rooms.resources.map((r) => r.name)).toEqual(["Room A", "Room B"]);
    expect((await c.asAdmin.resources.list({ clinic_id: c.clinicId, kind: "laser" })).resources).toEqual([]);
    expect(await codeOf(c.asStaff.resources.list({ clinic_id: c.clinicId, kind: "Room" }))).toBe("VALIDATION_FAILED");
    expect(await codeOf(c.asCustom.resources.list({ clinic_id: c.clinicId }))).toBe("FORBIDDEN");
  });
});

describe("resources.update (Q3)", () => {
  it("changes name, kind and is_active; a kind or activity change invalidates availability, a rename does not", async () => {
    const c = await clinicFixture(t.db);
    const id = await addResource(t.db, c.clinicId, { name: "Room 1", kind: "room" });
    const [before] = (await c.asAdmin.resources.list({ clinic_id: c.clinicId })).resources;
    let version = await clinicVersion(c.clinicId);

    const renamed = await c.asAdmin.resources.update({ clinic_id: c.clinicId, id, name: " Blue room " });
    expect(renamed).toMatchObject({ id, name: "Blue room", kind: "room", is_active: true });
    expect(renamed.updated_at.getTime()).toBeGreaterThan(before?.updated_at.getTime() ?? Infinity);
    expect(await clinicVersion(c.clinicId)).toBe(version);

    const rekinded = await c.asAdmin.resources.update({ clinic_id: c.clinicId, id, kind: "treatment_room" });
    expect(rekinded.kind).toBe("treatment_room");
    version = await versionMovedPast(clinicVersion(c.clinicId), version);

    const deactivated = await c.asAdmin.resources.update({ clinic_id: c.clinicId, id, is_active: false });
    expect(deactivated.is_active).toBe(false);
    version = await versionMovedPast(clinicVersion(c.clinicId), version);

    // Nothing to change: nothing written, updated_at kept, no invalidation.
    const same = await c.asAdmin.resources.update({ clinic_id: c.clinicId, id, is_active: false, name: "Blue room" });
    expect(same).toEqual(deactivated);
    expect(await c.asAdmin.resources.update({ clinic_id: c.clinicId, id })).toEqual(deactivated);
    expect(await clinicVersion(c.clinicId)).toBe(version);

    expect(await codeOf(c.asAdmin.resources.update({ clinic_id: c.clinicId, id, kind: "Blue Room" }))).toBe(
      "VALIDATION_FAILED",
    );
    expect(await codeOf(c.asAdmin.resources.update({ clinic_id: c.clinicId, id, name: "" }))).toBe("VALIDATION_FAILED");
    expect(await codeOf(c.asStaff.resources.update({ clinic_id: c.clinicId, id, name: "Mine" }))).toBe("FORBIDDEN");
  });

  it("answers 404 for another clinic's resource, a deleted one, or an unknown id", async () => {
    const c = await clinicFixture(t.db);
    const other = await clinicFixture(t.db);
    const theirs = await addResource(t.db, other.clinicId);
    const deleted = await addResource(t.db, c.clinicId, { deleted: true });
    for (const id of [theirs, deleted, "00000000-0000-4000-8000-000000000000"]) {
      expect(await codeOf(c.asAdmin.resources.update({ clinic_id: c.clinicId, id, name: "Mine" }))).toBe("NOT_FOUND");
    }
    const [row] = await t.db.select().from(resources).where(eq(resources.id, theirs));
    expect(row?.name).toBe("Room 1");
  });
});

describe("resources.remove (Q4)", () => {
  it("soft-deletes: gone from the list, the row kept with deleted_at; a second delete is 404", async () => {
    const c = await clinicFixture(t.db);
    const id = await addResource(t.db, c.clinicId, { name: "Room 1" });
    const version = await clinicVersion(c.clinicId);
    await c.asAdmin.resources.remove({ clinic_id: c.clinicId, id });
    await versionMovedPast(clinicVersion(c.clinicId), version);
    expect((await c.asAdmin.resources.list({ clinic_id: c.clinicId })).resources).toEqual([]);
    const [row] = await t.db.select().from(resources).where(eq(resources.id, id));
    expect(row).toMatchObject({ id, name: "Room 1" });
    expect(row?.deletedAt).toBeInstanceOf(Date);
    expect(await codeOf(c.asAdmin.resources.remove({ clinic_id: c.clinicId, id }))).toBe("NOT_FOUND");
    expect(
      await codeOf(
        c.asAdmin.resources.createClosure({
          clinic_id: c.clinicId,
          id,
          starts_at: "2027-05-03T00:00:00Z",
          ends_at: "2027-05-04T00:00:00Z",
        }),
      ),
    ).toBe("NOT_FOUND");
  });

  it("answers 404 for another clinic's resource and 403 for STAFF, leaving it alive", async () => {
    const c = await clinicFixture(t.db);
    const other = await clinicFixture(t.db);
    const theirs = await addResource(t.db, other.clinicId);
    expect(await codeOf(c.asAdmin.resources.remove({ clinic_id: c.clinicId, id: theirs }))).toBe("NOT_FOUND");
    const mine = await addResource(t.db, c.clinicId);
    expect(await codeOf(c.asStaff.resources.remove({ clinic_id: c.clinicId, id: mine }))).toBe("FORBIDDEN");
    const [row] = await t.db.select().from(resources).where(eq(resources.id, theirs));
    expect(row?.deletedAt).toBeNull();
    expect((await other.asAdmin.resources.list({ clinic_id: other.clinicId })).resources.map((r) => r.id)).toEqual([
      theirs,
    ]);
  });
});

describe("resources.createClosure (Q5)", () => {
  it("closes a resource: a Closure with scope resource; listed by start; deleted; availability invalidated", async () => {
    const c = await clinicFixture(t.db);
    const id = await addResource(t.db, c.clinicId);
    const version = await clinicVersion(c.clinicId);
    const maintenance = await c.asAdmin.resources.createClosure({
      clinic_id: c.clinicId,
      id,
      starts_at: "2027-05-03T08:00:00+02:00",
      ends_at: "2027-05-03T12:00:00+02:00",
      reason: " Maintenance ",
    });
    expect(maintenance).toEqual({
      id: expect.any(String) as string,
      clinic_id: c.clinicId,
      scope: "resource",
      provider_id: null,
      resource_id: id,
      starts_at: new Date("2027-05-03T06:00:00Z"),
      ends_at: new Date("2027-05-03T10:00:00Z"),
      reason: "Maintenance",
      created_at: expect.any(Date) as Date,
    });
    const afterFirst = await versionMovedPast(clinicVersion(c.clinicId), version);
    const earlier = await c.asAdmin.resources.createClosure({
      clinic_id: c.clinicId,
      id,
      starts_at: "2027-05-01T00:00:00Z",
      ends_at: "2027-05-02T00:00:00Z",
    });
    expect(earlier.reason).toBeNull();

    const listed = await c.asStaff.resources.listClosures({ clinic_id: c.clinicId, id });
    expect(listed.closures.map((k) => k.id)).toEqual([earlier.id, maintenance.id]);
    const inRange = await c.asStaff.resources.listClosures({ clinic_id: c.clinicId, id, from: "2027-05-03T00:00:00Z" });
    expect(inRange.closures.map((k) => k.id)).toEqual([maintenance.id]);

    await c.asAdmin.resources.deleteClosure({ clinic_id: c.clinicId, id, closure_id: earlier.id });
    await versionMovedPast(clinicVersion(c.clinicId), afterFirst);
    expect(await codeOf(c.asAdmin.resources.deleteClosure({ clinic_id: c.clinicId, id, closure_id: earlier.id }))).toBe(
      "NOT_FOUND",
    );
    expect((await c.asStaff.resources.listClosures({ clinic_id: c.clinicId, id })).closures).toHaveLength(1);
  });

  it("answers 422 INVALID_TIME_RANGE when ends_at is not after starts_at, 400 past 366 days or without an offset", async () => {
    const c = await clinicFixture(t.db);
    const id = await addResource(t.db, c.clinicId);
    const close = (starts_at: string, ends_at: string) =>
      c.asAdmin.resources.createClosure({ clinic_id: c.clinicId, id, starts_at, ends_at });
    const equal = await rejectionOf(close("2027-05-03T10:00:00Z", "2027-05-03T10:00:00Z"));
    expect(equal).toMatchObject({ domainCode: "INVALID_TIME_RANGE", message: "ends_at must be after starts_at" });
    expect(await codeOf(close("2027-05-03T10:00:00Z", "2027-05-03T09:00:00Z"))).toBe("INVALID_TIME_RANGE");
    expect(await codeOf(close("2027-01-01T00:00:00Z", "2028-01-03T00:00:00Z"))).toBe("VALIDATION_FAILED");
    expect(await codeOf(close("2027-05-03T10:00:00", "2027-05-03T11:00:00Z"))).toBe("VALIDATION_FAILED");
    expect(await t.db.select().from(resourceClosures).where(eq(resourceClosures.resourceId, id))).toEqual([]);
  });

  it("is CLINIC_ADMIN's; another clinic's resource is 404", async () => {
    const c = await clinicFixture(t.db);
    const other = await clinicFixture(t.db);
    const mine = await addResource(t.db, c.clinicId);
    const theirs = await addResource(t.db, other.clinicId);
    const range = { starts_at: "2027-05-03T10:00:00Z", ends_at: "2027-05-03T11:00:00Z" };
    expect(await codeOf(c.asStaff.resources.createClosure({ clinic_id: c.clinicId, id: mine, ...range }))).toBe(
      "FORBIDDEN",
    );
    expect(await codeOf(c.asAdmin.resources.createClosure({ clinic_id: c.clinicId, id: theirs, ...range }))).toBe(
      "NOT_FOUND",
    );
    expect(await codeOf(c.asAdmin.resources.listClosures({ clinic_id: c.clinicId, id: theirs }))).toBe("NOT_FOUND");
  });
});

describe("services.required_resource_kinds (§14)", () => {
  it("defaults to [], round-trips sorted on create and update, and a change invalidates availability", async () => {
    const c = await clinicFixture(t.db);
    const plain = await c.asAdmin.services.create({ clinic_id: c.clinicId, name: "Talk", duration_min: 30 });
    expect(plain.required_resource_kinds).toEqual([]);

    const s = await c.asAdmin.services.create({
      clinic_id: c.clinicId,
      name: "Ultrasound scan",
      duration_min: 30,
      required_resource_kinds: ["ultrasound", "treatment_room"],
    });
    expect(s.required_resource_kinds).toEqual(["treatment_room", "ultrasound"]);
    expect((await c.asStaff.services.get({ clinic_id: c.clinicId, id: s.id })).required_resource_kinds).toEqual([
      "treatment_room",
      "ultrasound",
    ]);

    let version = await clinicVersion(c.clinicId);
    // The same kinds in another order are no change: nothing written.
    const same = await c.asAdmin.services.update({
      clinic_id: c.clinicId,
      id: s.id,
      required_resource_kinds: [" ultrasound", "treatment_room"],
    });
    expect(same).toEqual(s);
    expect(await clinicVersion(c.clinicId)).toBe(version);

    const changed = await c.asAdmin.services.update({
      clinic_id: c.clinicId,
      id: s.id,
      required_resource_kinds: ["treatment_room"],
    });
    expect(changed.required_resource_kinds).toEqual(["treatment_room"]);
    version = await versionMovedPast(clinicVersion(c.clinicId), version);
    const cleared = await c.asAdmin.services.update({ clinic_id: c.clinicId, id: s.id, required_resource_kinds: [] });
    expect(cleared.required_resource_kinds).toEqual([]);
    version = await versionMovedPast(clinicVersion(c.clinicId), version);
  });

  it("refuses a malformed kind, a kind named twice, and more than 10 kinds", async () => {
    const c = await clinicFixture(t.db);
    const create = (kinds: string[]) =>
      c.asAdmin.services.create({
        clinic_id: c.clinicId,
        name: "Scan",
        duration_min: 30,
        required_resource_kinds: kinds,
      });
    const malformed = await rejectionOf(create(["Treatment Room"]));
    expect(malformed.domainCode).toBe("VALIDATION_FAILED");
    expect(malformed.message).toMatch(/^required_resource_kinds\.0: must be 1-64 lower-case letters/);
    const twice = await rejectionOf(create(["room", "room"]));
    expect(twice).toMatchObject({
      domainCode: "VALIDATION_FAILED",
      message: "required_resource_kinds: must not name a kind twice",
    });
    const many = Array.from({ length: 11 }, (_, i) => `kind${String(i)}`);
    expect(await rejectionOf(create(many))).toMatchObject({
      domainCode: "VALIDATION_FAILED",
      message: "required_resource_kinds: at most 10 kinds",
    });
    expect((await create(many.slice(0, 10))).required_resource_kinds).toHaveLength(10);
    const s = await create(["room"]);
    expect(
      await codeOf(c.asAdmin.services.update({ clinic_id: c.clinicId, id: s.id, required_resource_kinds: ["a b"] })),
    ).toBe("VALIDATION_FAILED");
  });
});
