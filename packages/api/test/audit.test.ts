import { describe, expect, it } from "vitest";
import { callerFor, clinicFixture, codeOf, createUser, useTestDatabase } from "../testing/index.ts";

const t = useTestDatabase();

describe("audit.list (A1)", () => {
  it("answers the clinic's entries newest first with the contract's fields", async () => {
    const c = await clinicFixture(t.db);
    const s = await c.asAdmin.services.create({ clinic_id: c.clinicId, name: "One", duration_min: 30 });
    // Several quick changes in a row: the order must hold even within one millisecond.
    for (let i = 1; i <= 5; i += 1)
      await c.asAdmin.services.update({ clinic_id: c.clinicId, id: s.id, duration_min: 30 + i });
    await c.asAdmin.services.remove({ clinic_id: c.clinicId, id: s.id });
    const { entries, next_cursor } = await c.asAdmin.audit.list({ clinic_id: c.clinicId });
    expect(next_cursor).toBeNull();
    expect(entries.map((e) => e.action)).toEqual([
      "SERVICE_DELETED",
      ...Array<string>(5).fill("SERVICE_UPDATED"),
      "SERVICE_CREATED",
    ]);
    expect(entries.slice(1, 6).map((e) => e.details.changed_fields)).toEqual(Array(5).fill(["duration_min"]));
    const times = entries.map((e) => e.created_at.getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(Object.keys(entries[0] ?? {}).sort()).toEqual([
      "action",
      "clinic_id",
      "created_at",
      "details",
      "id",
      "resource_id",
      "resource_type",
      "user_email",
    ]);
    expect(entries[0]).toMatchObject({
      clinic_id: c.clinicId,
      resource_type: "service",
      resource_id: s.id,
      user_email: c.admin.email,
    });
  });

  it("filters by resource_type and resource_id, never showing another clinic", async () => {
    const a = await clinicFixture(t.db);
    const b = await clinicFixture(t.db);
    const s1 = await a.asAdmin.services.create({ clinic_id: a.clinicId, name: "One", duration_min: 30 });
    const s2 = await a.asAdmin.services.create({ clinic_id: a.clinicId, name: "Two", duration_min: 30 });
    const foreign = await b.asAdmin.services.create({ clinic_id: b.clinicId, name: "Foreign", duration_min: 30 });
    const ids = async (input: { resource_type?: "service"; resource_id?: string }) =>
      (await a.asAdmin.audit.list({ clinic_id: a.clinicId, ...input })).entries.map((e) => e.resource_id);
    expect(await ids({})).toEqual([s2.id, s1.id]);
    expect(await ids({ resource_type: "service" })).toEqual([s2.id, s1.id]);
    expect(await ids({ resource_id: s1.id })).toEqual([s1.id]);
    expect(await ids({ resource_type: "service", resource_id: s2.id })).toEqual([s2.id]);
    expect(await ids({ resource_id: foreign.id })).toEqual([]);
    expect(await codeOf(a.asAdmin.audit.list({ clinic_id: a.clinicId, resource_type: "appointment" as never }))).toBe(
      "VALIDATION_FAILED",
    );
    expect(await codeOf(a.asAdmin.audit.list({ clinic_id: a.clinicId, resource_id: "nope" }))).toBe(
      "VALIDATION_FAILED",
    );
  });

  it("walks every page without duplicates, newest first", async () => {
    const c = await clinicFixture(t.db);
    const s = await c.asAdmin.services.create({ clinic_id: c.clinicId, name: "Paged", duration_min: 30 });
    for (let i = 1; i <= 6; i += 1)
      await c.asAdmin.services.update({ clinic_id: c.clinicId, id: s.id, duration_min: 30 + i });
    const all = (await c.asAdmin.audit.list({ clinic_id: c.clinicId })).entries.map((e) => e.id);
    expect(all).toHaveLength(7);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { entries: { id: string }[]; next_cursor: string | null } = await c.asAdmin.audit.list({
        clinic_id: c.clinicId,
        limit: 2,
        ...(cursor ? { cursor } : {}),
      });
      seen.push(...page.entries.map((e) => e.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all);
    expect(await codeOf(c.asAdmin.audit.list({ clinic_id: c.clinicId, cursor: "bad" }))).toBe("VALIDATION_FAILED");
  });

  it("is for CLINIC_ADMIN (and global ADMIN) only", async () => {
    const c = await clinicFixture(t.db);
    await c.asAdmin.services.create({ clinic_id: c.clinicId, name: "One", duration_min: 30 });
    expect(await codeOf(c.asStaff.audit.list({ clinic_id: c.clinicId }))).toBe("FORBIDDEN");
    expect(await codeOf(c.asCustom.audit.list({ clinic_id: c.clinicId }))).toBe("FORBIDDEN");
    const other = await clinicFixture(t.db);
    expect(await codeOf(other.asAdmin.audit.list({ clinic_id: c.clinicId }))).toBe("FORBIDDEN");
    const globalAdmin = callerFor(t.db, await createUser(t.db, { admin: true }));
    expect((await globalAdmin.audit.list({ clinic_id: c.clinicId })).entries).toHaveLength(1);
  });
});
