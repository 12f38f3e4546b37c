import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, availabilityVersions, clinicMembers, services } from "@clinic/db";
import {
  addMember,
  callerFor,
  clinicFixture,
  codeOf,
  createUser,
  rejectionOf,
  useTestDatabase,
  versionMovedPast,
} from "../testing/index.ts";

const t = useTestDatabase();

type Fixture = Awaited<ReturnType<typeof clinicFixture>>;

function provider(c: Fixture, fullName: string, status: "approved" | "pending" | "suspended" = "approved") {
  return addMember(t.db, c.clinicId, { isProvider: true, status, fullName });
}

async function auditOf(clinicId: string, serviceId: string) {
  const { entries } = await callerFor(t.db, await clinicAdmin(clinicId)).audit.list({
    clinic_id: clinicId,
    resource_id: serviceId,
  });
  return entries;
}

/** A fresh CLINIC_ADMIN of the clinic (so reading the trail does not depend on a fixture). */
async function clinicAdmin(clinicId: string) {
  return addMember(t.db, clinicId, { role: "CLINIC_ADMIN" });
}

async function clinicVersion(clinicId: string): Promise<number> {
  const [row] = await t.db
    .select({ version: availabilityVersions.version })
    .from(availabilityVersions)
    .where(and(eq(availabilityVersions.clinicId, clinicId), eq(availabilityVersions.scopeId, clinicId)));
  return row?.version ?? 0;
}

describe("services.create (S1)", () => {
  it("creates with defaults and writes SERVICE_CREATED", async () => {
    const c = await clinicFixture(t.db);
    const before = await clinicVersion(c.clinicId);
    const s = await c.asAdmin.services.create({ clinic_id: c.clinicId, name: "  Check-up  ", duration_min: 30 });
    expect(s).toMatchObject({
      clinic_id: c.clinicId,
      name: "Check-up",
      duration_min: 30,
      price: null,
      provider_id: null,
      provider_name: null,
      is_active: true,
    });
    // The booking rules default to none: no buffers, the duration as step, no notice, no horizon.
    expect(s).toMatchObject({
      buffer_before_min: 0,
      buffer_after_min: 0,
      slot_step_min: null,
      min_notice_min: 0,
      booking_horizon_days: null,
      requires_confirmation: false,
    });
    expect(Object.keys(s).sort()).toEqual(
      [
        "id",
        "clinic_id",
        "name",
        "duration_min",
        "price",
        "provider_id",
        "provider_name",
        "is_active",
        "buffer_before_min",
        "buffer_after_min",
        "slot_step_min",
        "min_notice_min",
        "booking_horizon_days",
        "requires_confirmation",
        "capacity",
        "required_resource_kinds",
        "questions",
        "created_at",
        "updated_at",
      ].sort(),
    );
    await versionMovedPast(clinicVersion(c.clinicId), before);
    const entries = await auditOf(c.clinicId, s.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      clinic_id: c.clinicId,
      action: "SERVICE_CREATED",
      resource_type: "service",
      resource_id: s.id,
      user_email: c.admin.email,
      details: { changed_fields: ["name", "duration_min", "is_active"] },
    });
    expect(entries[0]?.details).not.toHaveProperty("new_provider_id");
  });

  it("creates an assigned service: provider_name and provider details in the audit entry", async () => {
    const c = await clinicFixture(t.db);
    const anna = await provider(c, "Anna Berg", "pending");
    const s = await c.asAdmin.services.create({
      clinic_id: c.clinicId,
      name: "Massage",
      duration_min: 60,
      price: 80,
      provider_id: anna.id,
      is_active: false,
    });
    expect(s).toMatchObject({ provider_id: anna.id, provider_name: "Anna Berg", price: "80.00", is_active: false });
    const [entry] = await auditOf(c.clinicId, s.id);
    expect(entry?.details).toEqual({
      changed_fields: ["name", "duration_min", "price", "provider_id", "is_active"],
      old_provider_id: null,
      new_provider_id: anna.id,
      provider_name: "Anna Berg",
    });
  });

  it.each([
    [99999999.99, "99999999.99"],
    ["99999999.99", "99999999.99"],
    ["49.9", "49.90"],
    [49.9, "49.90"],
    [0, "0.00"],
    ["0.5", "0.50"],
    [12, "12.00"],
    ["007.10", "7.10"],
    [null, null],
  ])("accepts price %j as %j", async (input, stored) => {
    const c = await clinicFixture(t.db);
    const s = await c.asAdmin.services.create({
      clinic_id: c.clinicId,
      name: "Priced",
      duration_min: 30,
      price: input,
    });
    expect(s.price).toBe(stored);
    expect((await c.asCustom.services.get({ clinic_id: c.clinicId, id: s.id })).price).toBe(stored);
  });

  it.each([
    ["12345678901"],
    [12345678901],
    ["123456789.5"],
    ["1.234"],
    [1.234],
    [-1],
    ["-0.01"],
    ["abc"],
    [""],
    ["1e3"],
    [Number.NaN],
  ])("refuses price %j with VALIDATION_FAILED", async (input) => {
    const c = await clinicFixture(t.db);
    expect(
      await codeOf(
        c.asAdmin.services.create({ clinic_id: c.clinicId, name: "Priced", duration_min: 30, price: input }),
      ),
    ).toBe("VALIDATION_FAILED");
  });

  it("validates name and duration_min", async () => {
    const c = await clinicFixture(t.db);
    const create = (name: string, duration_min: number) =>
      c.asAdmin.services.create({ clinic_id: c.clinicId, name, duration_min });
    expect((await create("x".repeat(200), 1)).name).toHaveLength(200);
    expect((await create("Long", 1440)).duration_min).toBe(1440);
    for (const [name, duration] of [
      ["   ", 30],
      ["x".repeat(201), 30],
      ["Ok", 0],
      ["Ok", 1441],
      ["Ok", 1.5],
    ] as const) {
      expect(await codeOf(create(name, duration))).toBe("VALIDATION_FAILED");
    }
    expect(
      await codeOf(
        c.asAdmin.services.create({ clinic_id: c.clinicId, name: "Ok", duration_min: 30, color: "red" } as never),
      ),
    ).toBe("VALIDATION_FAILED");
  });

  it("refuses a provider_id that is not the user id of a provider of this clinic (422 NOT_A_PROVIDER)", async () => {
    const a = await clinicFixture(t.db);
    const b = await clinicFixture(t.db);
    const anna = await provider(a, "Anna");
    const foreign = await provider(b, "Foreign");
    const [membership] = await t.db
      .select({ id: clinicMembers.id })
      .from(clinicMembers)
      .where(and(eq(clinicMembers.clinicId, a.clinicId), eq(clinicMembers.userId, anna.id)));
    for (const providerId of [membership?.id ?? "", a.staff.id, crypto.randomUUID(), foreign.id]) {
      const failure = await rejectionOf(
        a.asAdmin.services.create({ clinic_id: a.clinicId, name: "X", duration_min: 30, provider_id: providerId }),
      );
      expect(failure.domainCode).toBe("NOT_A_PROVIDER");
    }
    expect((await a.asAdmin.services.list({ clinic_id: a.clinicId, include_inactive: true })).services).toEqual([]);
  });
});

describe("services.update (S2)", () => {
  it("assigns, reassigns and unassigns with audit entries naming the new provider", async () => {
    const c = await clinicFixture(t.db);
    const anna = await provider(c, "Anna Berg");
    const ben = await provider(c, "Ben Cole", "suspended");
    const s = await c.asAdmin.services.create({ clinic_id: c.clinicId, name: "Massage", duration_min: 30 });
    const v0 = await clinicVersion(c.clinicId);

    const assigned = await c.asAdmin.services.update({ clinic_id: c.clinicId, id: s.id, provider_id: anna.id });
    expect(assigned).toMatchObject({ provider_id: anna.id, provider_name: "Anna Berg" });
    expect(assigned.updated_at.getTime()).toBeGreaterThanOrEqual(s.updated_at.getTime());
    const reassigned = await c.asAdmin.services.update({ clinic_id: c.clinicId, id: s.id, provider_id: ben.id });
    expect(reassigned).toMatchObject({ provider_id: ben.id, provider_name: "Ben Cole" });
    const unassigned = await c.asAdmin.services.update({ clinic_id: c.clinicId, id: s.id, provider_id: null });
    expect(unassigned).toMatchObject({ provider_id: null, provider_name: null });
    await versionMovedPast(clinicVersion(c.clinicId), v0);

    const entries = await auditOf(c.clinicId, s.id);
    expect(entries.map((e) => e.action)).toEqual([
      "SERVICE_UPDATED",
      "SERVICE_UPDATED",
      "SERVICE_UPDATED",
      "SERVICE_CREATED",
    ]);
    expect(entries.slice(0, 3).map((e) => e.details)).toEqual([
      { changed_fields: ["provider_id"], old_provider_id: ben.id, new_provider_id: null, provider_name: null },
      { changed_fields: ["provider_id"], old_provider_id: anna.id, new_provider_id: ben.id, provider_name: "Ben Cole" },
      { changed_fields: ["provider_id"], old_provider_id: null, new_provider_id: anna.id, provider_name: "Anna Berg" },
    ]);
    for (const entry of entries) expect(entry.user_email).toBe(c.admin.email);
  });

  it("updates any subset of fields; only real changes are recorded and invalidate availability", async () => {
    const c = await clinicFixture(t.db);
    const s = await c.asAdmin.services.create({
      clinic_id: c.clinicId,
      name: "Massage",
      duration_min: 30,
      price: "40",
    });
    const v0 = await clinicVersion(c.clinicId);
    const renamed = await c.asAdmin.services.update({
      clinic_id: c.clinicId,
      id: s.id,
      name: "Massage Deluxe",
      price: "40.00",
    });
    expect(renamed).toMatchObject({ name: "Massage Deluxe", price: "40.00", duration_min: 30 });
    expect(await clinicVersion(c.clinicId)).toBe(v0);
    const longer = await c.asAdmin.services.update({
      clinic_id: c.clinicId,
      id: s.id,
      duration_min: 45,
      is_active: false,
      price: null,
    });
    expect(longer).toMatchObject({ duration_min: 45, is_active: false, price: null });
    await versionMovedPast(clinicVersion(c.clinicId), v0);

    const noop = await c.asAdmin.services.update({
      clinic_id: c.clinicId,
      id: s.id,
      name: "Massage Deluxe",
      duration_min: 45,
    });
    expect(noop.updated_at).toEqual(longer.updated_at);
    const entries = await auditOf(c.clinicId, s.id);
    expect(entries.map((e) => e.details)).toEqual([
      { changed_fields: ["duration_min", "price", "is_active"] },
      { changed_fields: ["name"] },
      { changed_fields: ["name", "duration_min", "price", "is_active"] },
    ]);
    expect(await codeOf(c.asAdmin.services.update({ clinic_id: c.clinicId, id: s.id, price: "1.001" }))).toBe(
      "VALIDATION_FAILED",
    );
    expect(await codeOf(c.asAdmin.services.update({ clinic_id: c.clinicId, id: s.id, name: "" }))).toBe(
      "VALIDATION_FAILED",
    );
  });

  it("refuses NOT_A_PROVIDER and leaves the service as it was", async () => {
    const a = await clinicFixture(t.db);
    const b = await clinicFixture(t.db);
    const anna = await provider(a, "Anna");
    const foreign = await provider(b, "Foreign");
    const s = await a.asAdmin.services.create({
      clinic_id: a.clinicId,
      name: "Massage",
      duration_min: 30,
      provider_id: anna.id,
    });
    const [membership] = await t.db
      .select({ id: clinicMembers.id })
      .from(clinicMembers)
      .where(and(eq(clinicMembers.clinicId, a.clinicId), eq(clinicMembers.userId, anna.id)));
    for (const providerId of [membership?.id ?? "", a.custom.id, foreign.id, crypto.randomUUID()]) {
      expect(
        await codeOf(
          a.asAdmin.services.update({ clinic_id: a.clinicId, id: s.id, provider_id: providerId, name: "Renamed" }),
        ),
      ).toBe("NOT_A_PROVIDER");
    }
    expect(await a.asAdmin.services.get({ clinic_id: a.clinicId, id: s.id })).toMatchObject({
      name: "Massage",
      provider_id: anna.id,
    });
    expect(await auditOf(a.clinicId, s.id)).toHaveLength(1);
  });

  it("refuses to re-activate a service whose provider is no longer a provider", async () => {
    const c = await clinicFixture(t.db);
    const anna = await provider(c, "Anna");
    const s = await c.asAdmin.services.create({
      clinic_id: c.clinicId,
      name: "Massage",
      duration_min: 30,
      provider_id: anna.id,
      is_active: false,
    });
    await c.asAdmin.providers.remove({ clinic_id: c.clinicId, user_id: anna.id });
    expect(await codeOf(c.asAdmin.services.update({ clinic_id: c.clinicId, id: s.id, is_active: true }))).toBe(
      "NOT_A_PROVIDER",
    );
    const reactivated = await c.asAdmin.services.update({
      clinic_id: c.clinicId,
      id: s.id,
      is_active: true,
      provider_id: null,
    });
    expect(reactivated).toMatchObject({ is_active: true, provider_id: null });
  });

  it("answers 404 for another clinic's, a deleted and an unknown service", async () => {
    const a = await clinicFixture(t.db);
    const b = await clinicFixture(t.db);
    const foreign = await b.asAdmin.services.create({ clinic_id: b.clinicId, name: "Foreign", duration_min: 30 });
    const gone = await a.asAdmin.services.create({ clinic_id: a.clinicId, name: "Gone", duration_min: 30 });
    await a.asAdmin.services.remove({ clinic_id: a.clinicId, id: gone.id });
    for (const id of [foreign.id, gone.id, crypto.randomUUID()]) {
      expect(await codeOf(a.asAdmin.services.update({ clinic_id: a.clinicId, id, name: "X" }))).toBe("NOT_FOUND");
      expect(await codeOf(a.asAdmin.services.get({ clinic_id: a.clinicId, id }))).toBe("NOT_FOUND");
      expect(await codeOf(a.asAdmin.services.remove({ clinic_id: a.clinicId, id }))).toBe("NOT_FOUND");
    }
    expect((await b.asAdmin.services.get({ clinic_id: b.clinicId, id: foreign.id })).name).toBe("Foreign");
  });
});

describe("services.list and services.get (S3, S4)", () => {
  it("lists by name then id; inactive only on request; provider_id gives that provider's active services", async () => {
    const c = await clinicFixture(t.db);
    const anna = await provider(c, "Anna");
    const ben = await provider(c, "Ben");
    const zeta = await c.asAdmin.services.create({
      clinic_id: c.clinicId,
      name: "Zeta",
      duration_min: 30,
      provider_id: anna.id,
    });
    const alpha = await c.asAdmin.services.create({
      clinic_id: c.clinicId,
      name: "Alpha",
      duration_min: 30,
      provider_id: anna.id,
      price: "10",
    });
    const dormant = await c.asAdmin.services.create({
      clinic_id: c.clinicId,
      name: "Beta",
      duration_min: 30,
      provider_id: anna.id,
      is_active: false,
    });
    const open = await c.asAdmin.services.create({ clinic_id: c.clinicId, name: "Gamma", duration_min: 30 });
    const bens = await c.asAdmin.services.create({
      clinic_id: c.clinicId,
      name: "Delta",
      duration_min: 30,
      provider_id: ben.id,
    });
    const ids = async (input: { provider_id?: string; include_inactive?: boolean | "true" | "false" }) =>
      (await c.asCustom.services.list({ clinic_id: c.clinicId, ...input })).services.map((s) => s.id);
    expect(await ids({})).toEqual([alpha.id, bens.id, open.id, zeta.id]);
    expect(await ids({ include_inactive: true })).toEqual([alpha.id, dormant.id, bens.id, open.id, zeta.id]);
    expect(await ids({ include_inactive: "true" })).toEqual([alpha.id, dormant.id, bens.id, open.id, zeta.id]);
    expect(await ids({ include_inactive: "false" })).toEqual([alpha.id, bens.id, open.id, zeta.id]);
    expect(await ids({ provider_id: anna.id })).toEqual([alpha.id, zeta.id]);
    expect(await ids({ provider_id: crypto.randomUUID() })).toEqual([]);
    const [first] = (await c.asCustom.services.list({ clinic_id: c.clinicId, provider_id: anna.id })).services;
    expect(first).toMatchObject({
      id: alpha.id,
      name: "Alpha",
      duration_min: 30,
      price: "10.00",
      provider_id: anna.id,
      provider_name: "Anna",
      is_active: true,
    });
    expect(await codeOf(c.asCustom.services.list({ clinic_id: c.clinicId, include_inactive: "yes" as never }))).toBe(
      "VALIDATION_FAILED",
    );
  });

  it("walks every page without duplicates", async () => {
    const c = await clinicFixture(t.db);
    const created: string[] = [];
    for (const name of ["E", "A", "C", "A", "B", "D", "F"])
      created.push((await c.asAdmin.services.create({ clinic_id: c.clinicId, name, duration_min: 30 })).id);
    const seen: string[] = [];
    const names: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { services: { id: string; name: string }[]; next_cursor: string | null } =
        await c.asStaff.services.list({
          clinic_id: c.clinicId,
          limit: 3,
          ...(cursor ? { cursor } : {}),
        });
      seen.push(...page.services.map((s) => s.id));
      names.push(...page.services.map((s) => s.name));
      cursor = page.next_cursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(7);
    expect([...seen].sort()).toEqual([...created].sort());
    expect(names).toEqual(["A", "A", "B", "C", "D", "E", "F"]);
  });

  it("lets any member read; refuses non-members for any clinic id", async () => {
    const c = await clinicFixture(t.db);
    const s = await c.asAdmin.services.create({ clinic_id: c.clinicId, name: "Check-up", duration_min: 30 });
    expect((await c.asCustom.services.get({ clinic_id: c.clinicId, id: s.id })).name).toBe("Check-up");
    expect((await c.asStaff.services.get({ clinic_id: c.clinicId, id: s.id })).name).toBe("Check-up");
    const outsider = callerFor(t.db, await createUser(t.db));
    expect(await codeOf(outsider.services.get({ clinic_id: c.clinicId, id: s.id }))).toBe("FORBIDDEN");
    expect(await codeOf(outsider.services.list({ clinic_id: c.clinicId }))).toBe("FORBIDDEN");
    expect(await codeOf(outsider.services.list({ clinic_id: crypto.randomUUID() }))).toBe("FORBIDDEN");
    const admin = callerFor(t.db, await createUser(t.db, { admin: true }));
    expect(await codeOf(admin.services.list({ clinic_id: crypto.randomUUID() }))).toBe("NOT_FOUND");
  });
});

describe("services.remove (S5)", () => {
  it("soft-deletes: gone from get, list and search; the row stays for appointments; audited", async () => {
    const c = await clinicFixture(t.db);
    const s = await c.asAdmin.services.create({ clinic_id: c.clinicId, name: "Deep Tissue Massage", duration_min: 30 });
    const v0 = await clinicVersion(c.clinicId);
    await expect(c.asAdmin.services.remove({ clinic_id: c.clinicId, id: s.id })).resolves.toBeUndefined();
    await versionMovedPast(clinicVersion(c.clinicId), v0);
    expect(await codeOf(c.asAdmin.services.get({ clinic_id: c.clinicId, id: s.id }))).toBe("NOT_FOUND");
    expect((await c.asAdmin.services.list({ clinic_id: c.clinicId, include_inactive: true })).services).toEqual([]);
    expect((await c.asAdmin.services.search({ clinic_id: c.clinicId, q: "Deep Tissue Massage" })).matches).toEqual([]);
    const [row] = await t.db.select({ deletedAt: services.deletedAt }).from(services).where(eq(services.id, s.id));
    expect(row?.deletedAt).toBeInstanceOf(Date);
    const entries = await auditOf(c.clinicId, s.id);
    expect(entries.map((e) => [e.action, e.details])).toEqual([
      ["SERVICE_DELETED", { changed_fields: ["deleted_at"] }],
      ["SERVICE_CREATED", { changed_fields: ["name", "duration_min", "is_active"] }],
    ]);
  });
});

describe("services.bulkAssign (S6)", () => {
  it("assigns all selected services in one go; one audit entry per service that changed", async () => {
    const c = await clinicFixture(t.db);
    const anna = await provider(c, "Anna Berg");
    const s1 = await c.asAdmin.services.create({ clinic_id: c.clinicId, name: "B one", duration_min: 30 });
    const s2 = await c.asAdmin.services.create({
      clinic_id: c.clinicId,
      name: "A two",
      duration_min: 30,
      is_active: false,
    });
    const s3 = await c.asAdmin.services.create({
      clinic_id: c.clinicId,
      name: "C three",
      duration_min: 30,
      provider_id: anna.id,
    });
    const v0 = await clinicVersion(c.clinicId);
    const result = await c.asAdmin.services.bulkAssign({
      clinic_id: c.clinicId,
      provider_id: anna.id,
      service_ids: [s1.id, s2.id, s3.id, s1.id],
    });
    expect(result.services.map((s) => s.id)).toEqual([s2.id, s1.id, s3.id]);
    for (const s of result.services) expect(s).toMatchObject({ provider_id: anna.id, provider_name: "Anna Berg" });
    await versionMovedPast(clinicVersion(c.clinicId), v0);
    for (const id of [s1.id, s2.id]) {
      const [entry] = await auditOf(c.clinicId, id);
      expect(entry).toMatchObject({
        action: "SERVICE_UPDATED",
        user_email: c.admin.email,
        details: {
          changed_fields: ["provider_id"],
          old_provider_id: null,
          new_provider_id: anna.id,
          provider_name: "Anna Berg",
        },
      });
    }
    expect((await auditOf(c.clinicId, s3.id)).map((e) => e.action)).toEqual(["SERVICE_CREATED"]);
    // Everything already assigned to this provider: nothing changes, no entries.
    await c.asAdmin.services.bulkAssign({ clinic_id: c.clinicId, provider_id: anna.id, service_ids: [s1.id] });
    expect(await auditOf(c.clinicId, s1.id)).toHaveLength(2);
  });

  it("is all or nothing: ALREADY_ASSIGNED lists the offenders and changes nothing", async () => {
    const c = await clinicFixture(t.db);
    const anna = await provider(c, "Anna");
    const ben = await provider(c, "Ben");
    const free1 = await c.asAdmin.services.create({ clinic_id: c.clinicId, name: "Free 1", duration_min: 30 });
    const free2 = await c.asAdmin.services.create({ clinic_id: c.clinicId, name: "Free 2", duration_min: 30 });
    const bens = await c.asAdmin.services.create({
      clinic_id: c.clinicId,
      name: "Ben's",
      duration_min: 30,
      provider_id: ben.id,
    });
    const { entries: auditBefore } = await c.asAdmin.audit.list({ clinic_id: c.clinicId });
    const v0 = await clinicVersion(c.clinicId);
    const failure = await rejectionOf(
      c.asAdmin.services.bulkAssign({
        clinic_id: c.clinicId,
        provider_id: anna.id,
        service_ids: [free1.id, bens.id, free2.id],
      }),
    );
    expect(failure.domainCode).toBe("ALREADY_ASSIGNED");
    expect(failure.extra?.service_ids).toEqual([bens.id]);
    const after = await c.asAdmin.services.list({ clinic_id: c.clinicId });
    expect(after.services.map((s) => [s.id, s.provider_id])).toEqual(
      expect.arrayContaining([
        [free1.id, null],
        [free2.id, null],
        [bens.id, ben.id],
      ]),
    );
    expect((await c.asAdmin.audit.list({ clinic_id: c.clinicId })).entries).toEqual(auditBefore);
    expect(await clinicVersion(c.clinicId)).toBe(v0);
  });

  it("answers 404 for a service of another clinic (or deleted, or unknown) and changes nothing", async () => {
    const a = await clinicFixture(t.db);
    const b = await clinicFixture(t.db);
    const anna = await provider(a, "Anna");
    const mine = await a.asAdmin.services.create({ clinic_id: a.clinicId, name: "Mine", duration_min: 30 });
    const foreign = await b.asAdmin.services.create({ clinic_id: b.clinicId, name: "Foreign", duration_min: 30 });
    const gone = await a.asAdmin.services.create({ clinic_id: a.clinicId, name: "Gone", duration_min: 30 });
    await a.asAdmin.services.remove({ clinic_id: a.clinicId, id: gone.id });
    for (const other of [foreign.id, gone.id, crypto.randomUUID()]) {
      const failure = await rejectionOf(
        a.asAdmin.services.bulkAssign({ clinic_id: a.clinicId, provider_id: anna.id, service_ids: [mine.id, other] }),
      );
      expect(failure.domainCode).toBe("NOT_FOUND");
      expect(failure.extra?.service_ids).toEqual([other]);
    }
    expect((await a.asAdmin.services.get({ clinic_id: a.clinicId, id: mine.id })).provider_id).toBeNull();
    expect(await auditOf(a.clinicId, mine.id)).toHaveLength(1);
    expect((await b.asAdmin.services.get({ clinic_id: b.clinicId, id: foreign.id })).provider_id).toBeNull();
  });

  it("refuses NOT_A_PROVIDER, an empty selection, and callers below CLINIC_ADMIN", async () => {
    const a = await clinicFixture(t.db);
    const b = await clinicFixture(t.db);
    const foreign = await provider(b, "Foreign");
    const s = await a.asAdmin.services.create({ clinic_id: a.clinicId, name: "S", duration_min: 30 });
    expect(
      await codeOf(
        a.asAdmin.services.bulkAssign({ clinic_id: a.clinicId, provider_id: foreign.id, service_ids: [s.id] }),
      ),
    ).toBe("NOT_A_PROVIDER");
    expect(
      await codeOf(
        a.asAdmin.services.bulkAssign({ clinic_id: a.clinicId, provider_id: a.staff.id, service_ids: [s.id] }),
      ),
    ).toBe("NOT_A_PROVIDER");
    const anna = await provider(a, "Anna");
    expect(
      await codeOf(a.asAdmin.services.bulkAssign({ clinic_id: a.clinicId, provider_id: anna.id, service_ids: [] })),
    ).toBe("VALIDATION_FAILED");
    expect(
      await codeOf(a.asStaff.services.bulkAssign({ clinic_id: a.clinicId, provider_id: anna.id, service_ids: [s.id] })),
    ).toBe("FORBIDDEN");
    expect(
      await codeOf(
        a.asCustom.services.bulkAssign({ clinic_id: a.clinicId, provider_id: anna.id, service_ids: [s.id] }),
      ),
    ).toBe("FORBIDDEN");
    expect((await a.asAdmin.services.get({ clinic_id: a.clinicId, id: s.id })).provider_id).toBeNull();
  });
});

describe("service assignment under concurrency", () => {
  it("lets only one of two concurrent bulk assignments of the same service win", async () => {
    const c = await clinicFixture(t.db);
    const anna = await provider(c, "Anna");
    const ben = await provider(c, "Ben");
    const s = await c.asAdmin.services.create({ clinic_id: c.clinicId, name: "Contested", duration_min: 30 });
    const results = await Promise.allSettled(
      [anna.id, ben.id].map((providerId) =>
        callerFor(t.db, c.admin).services.bulkAssign({
          clinic_id: c.clinicId,
          provider_id: providerId,
          service_ids: [s.id],
        }),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const loser = results.find((r) => r.status === "rejected");
    expect(loser?.status === "rejected" ? (loser.reason as { domainCode?: string }).domainCode : undefined).toBe(
      "ALREADY_ASSIGNED",
    );
    expect(await auditOf(c.clinicId, s.id)).toHaveLength(2);
  });

  it("never leaves an active service assigned to a removed provider when assignment and removal race", async () => {
    const c = await clinicFixture(t.db);
    const anna = await provider(c, "Anna");
    const s = await c.asAdmin.services.create({ clinic_id: c.clinicId, name: "Raced", duration_min: 30 });
    await Promise.allSettled([
      callerFor(t.db, c.admin).services.update({ clinic_id: c.clinicId, id: s.id, provider_id: anna.id }),
      callerFor(t.db, c.admin).providers.remove({ clinic_id: c.clinicId, user_id: anna.id }),
    ]);
    const service = await c.asAdmin.services.get({ clinic_id: c.clinicId, id: s.id });
    const [member] = await t.db
      .select({ isProvider: clinicMembers.isProvider })
      .from(clinicMembers)
      .where(and(eq(clinicMembers.clinicId, c.clinicId), eq(clinicMembers.userId, anna.id)));
    if (service.provider_id === anna.id) expect(member?.isProvider).toBe(true);
    else expect(member?.isProvider).toBe(false);
  });
});

describe("service roles", () => {
  it("writes need CLINIC_ADMIN; STAFF and custom roles get 403; another clinic's admin gets 403", async () => {
    const c = await clinicFixture(t.db);
    const other = await clinicFixture(t.db);
    const s = await c.asAdmin.services.create({ clinic_id: c.clinicId, name: "S", duration_min: 30 });
    for (const caller of [c.asStaff, c.asCustom, other.asAdmin]) {
      expect(await codeOf(caller.services.create({ clinic_id: c.clinicId, name: "X", duration_min: 30 }))).toBe(
        "FORBIDDEN",
      );
      expect(await codeOf(caller.services.update({ clinic_id: c.clinicId, id: s.id, name: "X" }))).toBe("FORBIDDEN");
      expect(await codeOf(caller.services.remove({ clinic_id: c.clinicId, id: s.id }))).toBe("FORBIDDEN");
    }
    // Another clinic's admin naming their own clinic cannot reach this clinic's service.
    expect(await codeOf(other.asAdmin.services.update({ clinic_id: other.clinicId, id: s.id, name: "X" }))).toBe(
      "NOT_FOUND",
    );
    expect(await codeOf(other.asAdmin.services.get({ clinic_id: other.clinicId, id: s.id }))).toBe("NOT_FOUND");
    const globalAdmin = callerFor(t.db, await createUser(t.db, { admin: true }));
    expect((await globalAdmin.services.update({ clinic_id: c.clinicId, id: s.id, name: "By admin" })).name).toBe(
      "By admin",
    );
    const entries = await auditOf(c.clinicId, s.id);
    expect(entries[0]?.user_email).not.toBe(c.admin.email);
    expect(await t.db.select().from(auditLog).where(eq(auditLog.clinicId, other.clinicId))).toEqual([]);
  });
});
