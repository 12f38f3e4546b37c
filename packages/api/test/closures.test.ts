import { describe, expect, it } from "vitest";
import { addMember, callerFor, clinicFixture, codeOf, useTestDatabase } from "../testing/index.ts";

const t = useTestDatabase();

describe("closures", () => {
  it("creates clinic closures, lists those overlapping a range by start, deletes", async () => {
    const c = await clinicFixture(t.db);
    const holiday = await c.asAdmin.closures.createClinic({
      clinic_id: c.clinicId,
      starts_at: "2027-12-24T00:00:00+01:00",
      ends_at: "2027-12-27T00:00:00+01:00",
      reason: "Christmas",
    });
    expect(holiday).toMatchObject({
      scope: "clinic",
      provider_id: null,
      reason: "Christmas",
      starts_at: new Date("2027-12-23T23:00:00Z"),
    });
    await c.asAdmin.closures.createClinic({
      clinic_id: c.clinicId,
      starts_at: "2027-12-31T12:00:00Z",
      ends_at: "2028-01-02T00:00:00Z",
    });
    const all = await c.asStaff.closures.listClinic({ clinic_id: c.clinicId });
    expect(all.closures.map((k) => k.reason)).toEqual(["Christmas", null]);
    const inRange = await c.asStaff.closures.listClinic({
      clinic_id: c.clinicId,
      from: "2027-12-26T00:00:00Z",
      to: "2027-12-31T12:00:00Z",
    });
    expect(inRange.closures.map((k) => k.id)).toEqual([holiday.id]);
    await c.asAdmin.closures.deleteClinic({ clinic_id: c.clinicId, closure_id: holiday.id });
    expect((await c.asStaff.closures.listClinic({ clinic_id: c.clinicId })).closures).toHaveLength(1);
    expect(await codeOf(c.asAdmin.closures.deleteClinic({ clinic_id: c.clinicId, closure_id: holiday.id }))).toBe(
      "NOT_FOUND",
    );
  });

  it("validates ranges: ends after starts (422), an offset (400), at most 366 days (400)", async () => {
    const c = await clinicFixture(t.db);
    const create = (starts_at: string, ends_at: string) =>
      c.asAdmin.closures.createClinic({ clinic_id: c.clinicId, starts_at, ends_at });
    expect(await codeOf(create("2027-01-02T00:00:00Z", "2027-01-02T00:00:00Z"))).toBe("INVALID_TIME_RANGE");
    expect(await codeOf(create("2027-01-02T00:00:00", "2027-01-03T00:00:00Z"))).toBe("VALIDATION_FAILED");
    expect(await codeOf(create("2027-01-01T00:00:00Z", "2028-01-03T00:00:00Z"))).toBe("VALIDATION_FAILED");
  });

  it("keeps provider closures per provider; the provider manages their own; other clinics see 404", async () => {
    const c = await clinicFixture(t.db);
    const other = await clinicFixture(t.db);
    const provider = await addMember(t.db, c.clinicId, { isProvider: true, status: "approved" });
    const asProvider = callerFor(t.db, provider);
    const away = await asProvider.closures.createProvider({
      clinic_id: c.clinicId,
      provider_id: provider.id,
      starts_at: "2027-05-03T00:00:00Z",
      ends_at: "2027-05-05T00:00:00Z",
      reason: "Conference",
    });
    expect(away).toMatchObject({ scope: "provider", provider_id: provider.id });
    expect(
      (await c.asStaff.closures.listProvider({ clinic_id: c.clinicId, provider_id: provider.id })).closures,
    ).toHaveLength(1);
    expect((await c.asStaff.closures.listClinic({ clinic_id: c.clinicId })).closures).toHaveLength(0);
    expect(
      await codeOf(
        c.asStaff.closures.createProvider({
          clinic_id: c.clinicId,
          provider_id: provider.id,
          starts_at: "2027-05-06T00:00:00Z",
          ends_at: "2027-05-07T00:00:00Z",
        }),
      ),
    ).toBe("FORBIDDEN");
    expect(
      await codeOf(
        c.asAdmin.closures.createProvider({
          clinic_id: c.clinicId,
          provider_id: c.staff.id,
          starts_at: "2027-05-06T00:00:00Z",
          ends_at: "2027-05-07T00:00:00Z",
        }),
      ),
    ).toBe("NOT_A_PROVIDER");
    expect(await codeOf(other.asAdmin.closures.deleteClinic({ clinic_id: other.clinicId, closure_id: away.id }))).toBe(
      "NOT_FOUND",
    );
    expect(await codeOf(c.asAdmin.closures.deleteClinic({ clinic_id: c.clinicId, closure_id: away.id }))).toBe(
      "NOT_FOUND",
    );
    await c.asAdmin.closures.deleteProvider({ clinic_id: c.clinicId, provider_id: provider.id, closure_id: away.id });
    expect(
      (await asProvider.closures.listProvider({ clinic_id: c.clinicId, provider_id: provider.id })).closures,
    ).toHaveLength(0);
  });
});
