import { describe, expect, it } from "vitest";
import { callerFor, clinicFixture, codeOf, createUser, useTestDatabase } from "../testing/index.ts";

const t = useTestDatabase();

describe("clinics", () => {
  it("lets only a global ADMIN create a clinic, defaulting the time zone to UTC", async () => {
    const admin = await createUser(t.db, { admin: true });
    const created = await callerFor(t.db, admin).clinics.create({ name: "Mitte" });
    expect(created).toMatchObject({ name: "Mitte", timezone: "UTC" });
    expect(created.created_at).toBeInstanceOf(Date);
    const plain = await createUser(t.db);
    expect(await codeOf(callerFor(t.db, plain).clinics.create({ name: "X" }))).toBe("FORBIDDEN");
  });

  it("refuses an unknown time zone, an offset zone and an empty name", async () => {
    const admin = await createUser(t.db, { admin: true });
    expect(await codeOf(callerFor(t.db, admin).clinics.create({ name: "X", timezone: "Mars/Olympus" }))).toBe(
      "VALIDATION_FAILED",
    );
    expect(await codeOf(callerFor(t.db, admin).clinics.create({ name: "X", timezone: "+05:30" }))).toBe(
      "VALIDATION_FAILED",
    );
    expect(await codeOf(callerFor(t.db, admin).clinics.create({ name: "  " }))).toBe("VALIDATION_FAILED");
  });

  it("stores a time zone in its canonical spelling", async () => {
    const admin = callerFor(t.db, await createUser(t.db, { admin: true }));
    const created = await admin.clinics.create({ name: "Case", timezone: "europe/berlin" });
    expect(created.timezone).toBe("Europe/Berlin");
    const updated = await admin.clinics.update({ clinic_id: created.id, timezone: "AMERICA/NEW_YORK" });
    expect(updated.timezone).toBe("America/New_York");
  });

  it("lists only the caller's clinics, an ADMIN sees all, with keyset pagination", async () => {
    const a = await clinicFixture(t.db);
    const b = await clinicFixture(t.db);
    const mine = await a.asStaff.clinics.list({});
    expect(mine.clinics.map((c) => c.id)).toEqual([a.clinicId]);
    const admin = callerFor(t.db, await createUser(t.db, { admin: true }));
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < 1000; page++) {
      const result = await admin.clinics.list({ limit: 2, ...(cursor ? { cursor } : {}) });
      expect(result.clinics.length).toBeLessThanOrEqual(2);
      for (const clinic of result.clinics) {
        expect(seen.has(clinic.id)).toBe(false);
        seen.add(clinic.id);
      }
      if (!result.next_cursor) break;
      cursor = result.next_cursor;
    }
    expect(seen.has(a.clinicId) && seen.has(b.clinicId)).toBe(true);
  });

  it("answers 403 to a non-member for any clinic id, existing or not; ADMIN gets 404 for a missing one", async () => {
    const a = await clinicFixture(t.db);
    const outsider = callerFor(t.db, await createUser(t.db));
    expect(await codeOf(outsider.clinics.get({ clinic_id: a.clinicId }))).toBe("FORBIDDEN");
    expect(await codeOf(outsider.clinics.get({ clinic_id: crypto.randomUUID() }))).toBe("FORBIDDEN");
    const admin = callerFor(t.db, await createUser(t.db, { admin: true }));
    expect(await codeOf(admin.clinics.get({ clinic_id: crypto.randomUUID() }))).toBe("NOT_FOUND");
    expect((await admin.clinics.get({ clinic_id: a.clinicId })).id).toBe(a.clinicId);
  });

  it("lets any member read and only CLINIC_ADMIN update", async () => {
    const a = await clinicFixture(t.db);
    expect((await a.asCustom.clinics.get({ clinic_id: a.clinicId })).id).toBe(a.clinicId);
    expect(await codeOf(a.asStaff.clinics.update({ clinic_id: a.clinicId, name: "No" }))).toBe("FORBIDDEN");
    const updated = await a.asAdmin.clinics.update({
      clinic_id: a.clinicId,
      name: "Renamed",
      timezone: "Asia/Kolkata",
    });
    expect(updated).toMatchObject({ name: "Renamed", timezone: "Asia/Kolkata" });
    expect(updated.updated_at.getTime()).toBeGreaterThanOrEqual(updated.created_at.getTime());
  });

  it("requires authentication", async () => {
    expect(await codeOf(callerFor(t.db, null).clinics.list({}))).toBe("UNAUTHENTICATED");
  });
});
