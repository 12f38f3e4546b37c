import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { availabilityVersions, clinicMembers, closures, workHours } from "@clinic/db";
import {
  addMember,
  callerFor,
  clinicFixture,
  codeOf,
  createUser,
  type MemberOptions,
  rejectionOf,
  useTestDatabase,
  versionMovedPast,
} from "../testing/index.ts";

const t = useTestDatabase();

type Fixture = Awaited<ReturnType<typeof clinicFixture>>;

function provider(c: Fixture, fullName: string, options: MemberOptions = {}) {
  return addMember(t.db, c.clinicId, { isProvider: true, status: "approved", fullName, ...options });
}

async function version(clinicId: string, scopeId: string): Promise<number> {
  const [row] = await t.db
    .select({ version: availabilityVersions.version })
    .from(availabilityVersions)
    .where(and(eq(availabilityVersions.clinicId, clinicId), eq(availabilityVersions.scopeId, scopeId)));
  return row?.version ?? 0;
}

describe("providers.list (P1)", () => {
  it("lists exactly the clinic's providers by full_name with the seed's fields", async () => {
    const c = await clinicFixture(t.db);
    const zoe = await provider(c, "Zoe Zimmer", { status: "pending" });
    const anna = await provider(c, "Anna Adler");
    const mia = await provider(c, "Mia Maier", { status: "suspended", role: "CLINIC_ADMIN" });
    await addMember(t.db, c.clinicId, { fullName: "Bob Not-A-Provider" });
    const { providers, next_cursor } = await c.asStaff.providers.list({ clinic_id: c.clinicId });
    expect(next_cursor).toBeNull();
    expect(providers.map((p) => p.user_id)).toEqual([anna.id, mia.id, zoe.id]);
    const first = providers[0];
    expect(Object.keys(first ?? {}).sort()).toEqual(
      [
        "id",
        "user_id",
        "full_name",
        "email",
        "phone_e164",
        "is_provider",
        "clinic_role",
        "status",
        "created_at",
        "updated_at",
        // v1.4 (§8): the provider answers carry the daily limit.
        "max_daily_appointments",
      ].sort(),
    );
    expect(first).toMatchObject({
      user_id: anna.id,
      full_name: "Anna Adler",
      email: anna.email,
      phone_e164: null,
      is_provider: true,
      clinic_role: "STAFF",
      status: "approved",
    });
    expect(providers[1]).toMatchObject({ clinic_role: "CLINIC_ADMIN", status: "suspended" });
    const [membership] = await t.db
      .select({ id: clinicMembers.id })
      .from(clinicMembers)
      .where(and(eq(clinicMembers.clinicId, c.clinicId), eq(clinicMembers.userId, anna.id)));
    expect(first?.id).toBe(membership?.id);
    expect(first?.created_at).toBeInstanceOf(Date);
  });

  it("orders equal names by id", async () => {
    const c = await clinicFixture(t.db);
    const a = await provider(c, "Same Name");
    const b = await provider(c, "Same Name");
    const { providers } = await c.asStaff.providers.list({ clinic_id: c.clinicId });
    expect(providers.map((p) => p.id)).toEqual([...providers.map((p) => p.id)].sort());
    expect(providers.map((p) => p.user_id).sort()).toEqual([a.id, b.id].sort());
  });

  it("keeps the provider flag per clinic", async () => {
    const a = await clinicFixture(t.db);
    const b = await clinicFixture(t.db);
    const user = await createUser(t.db);
    await a.asAdmin.members.add({
      clinic_id: a.clinicId,
      email: user.email,
      full_name: "Dual Person",
      is_provider: true,
    });
    await b.asAdmin.members.add({ clinic_id: b.clinicId, email: user.email, full_name: "Dual Person" });
    const inA = await a.asStaff.providers.list({ clinic_id: a.clinicId });
    const inB = await b.asStaff.providers.list({ clinic_id: b.clinicId });
    expect(inA.providers.map((p) => p.user_id)).toEqual([user.id]);
    expect(inB.providers).toEqual([]);
    expect(await codeOf(b.asStaff.providers.get({ clinic_id: b.clinicId, user_id: user.id }))).toBe("NOT_FOUND");
  });

  it("filters by one status, comma-separated statuses and an array of statuses", async () => {
    const c = await clinicFixture(t.db);
    const pending = await provider(c, "P Pending", { status: "pending" });
    const approved = await provider(c, "A Approved");
    const suspended = await provider(c, "S Suspended", { status: "suspended" });
    const ids = async (status: string | string[]) =>
      (await c.asStaff.providers.list({ clinic_id: c.clinicId, status })).providers.map((p) => p.user_id);
    expect(await ids("pending")).toEqual([pending.id]);
    expect(await ids("approved,suspended")).toEqual([approved.id, suspended.id]);
    expect(await ids(" pending , suspended ")).toEqual([pending.id, suspended.id]);
    expect(await ids(["pending", "approved"])).toEqual([approved.id, pending.id]);
    expect(await ids(["pending,approved", "suspended"])).toEqual([approved.id, pending.id, suspended.id]);
    expect(await codeOf(c.asStaff.providers.list({ clinic_id: c.clinicId, status: "retired" }))).toBe(
      "VALIDATION_FAILED",
    );
    expect(await codeOf(c.asStaff.providers.list({ clinic_id: c.clinicId, status: "approved,retired" }))).toBe(
      "VALIDATION_FAILED",
    );
    expect(await codeOf(c.asStaff.providers.list({ clinic_id: c.clinicId, status: "" }))).toBe("VALIDATION_FAILED");
  });

  it("filters by q on full_name or e-mail, case-insensitively, with % and _ taken literally", async () => {
    const c = await clinicFixture(t.db);
    const tag = crypto.randomUUID().slice(0, 8);
    const anna = await provider(c, "Anna Berg", { email: `anna.${tag}@Mail.example` });
    const percent = await provider(c, "Care 100% Team");
    const underscore = await provider(c, "Ida_Lund");
    const plain = await provider(c, "Idaxlund Carex");
    const accented = await provider(c, "Zoë Ångström");
    const ids = async (q: string) =>
      (await c.asStaff.providers.list({ clinic_id: c.clinicId, q })).providers.map((p) => p.user_id);
    expect(await ids("BERG")).toEqual([anna.id]);
    expect(await ids(`ANNA.${tag}@mail`)).toEqual([anna.id]);
    expect(await ids("%")).toEqual([percent.id]);
    expect(await ids("0% t")).toEqual([percent.id]);
    expect(await ids("_")).toEqual([underscore.id]);
    expect(await ids("ida_l")).toEqual([underscore.id]);
    expect(await ids("idaxl")).toEqual([plain.id]);
    expect(await ids("care")).toEqual([percent.id, plain.id]);
    expect(await ids("angstrom")).toEqual([accented.id]);
    expect(await ids("\\")).toEqual([]);
    expect(await ids("nobody-matches-this")).toEqual([]);
  });

  it("filters by service_id: the provider assigned to that service", async () => {
    const c = await clinicFixture(t.db);
    const anna = await provider(c, "Anna");
    await provider(c, "Ben");
    const assigned = await c.asAdmin.services.create({
      clinic_id: c.clinicId,
      name: "Massage",
      duration_min: 30,
      provider_id: anna.id,
    });
    const open = await c.asAdmin.services.create({ clinic_id: c.clinicId, name: "Open", duration_min: 30 });
    const ids = async (serviceId: string) =>
      (await c.asStaff.providers.list({ clinic_id: c.clinicId, service_id: serviceId })).providers.map(
        (p) => p.user_id,
      );
    expect(await ids(assigned.id)).toEqual([anna.id]);
    expect(await ids(open.id)).toEqual([]);
    const other = await clinicFixture(t.db);
    const foreign = await other.asAdmin.services.create({
      clinic_id: other.clinicId,
      name: "Foreign",
      duration_min: 30,
    });
    expect(await ids(foreign.id)).toEqual([]);
    await c.asAdmin.services.remove({ clinic_id: c.clinicId, id: assigned.id });
    expect(await ids(assigned.id)).toEqual([]);
  });

  it("walks every page without duplicates or gaps", async () => {
    const c = await clinicFixture(t.db);
    const created = new Set<string>();
    for (const name of ["Eve", "Adam", "Dora", "Carl", "Bea", "Adam", "Finn"])
      created.add((await provider(c, name)).id);
    const seen: string[] = [];
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await c.asStaff.providers.list({ clinic_id: c.clinicId, limit: 2, ...(cursor ? { cursor } : {}) });
      expect(page.providers.length).toBeLessThanOrEqual(2);
      seen.push(...page.providers.map((p) => p.user_id));
      names.push(...page.providers.map((p) => p.full_name));
      cursor = page.next_cursor ?? undefined;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(4);
    expect(new Set(seen).size).toBe(seen.length);
    expect(new Set(seen)).toEqual(created);
    expect(names).toEqual(["Adam", "Adam", "Bea", "Carl", "Dora", "Eve", "Finn"]);
    expect(await codeOf(c.asStaff.providers.list({ clinic_id: c.clinicId, cursor: "garbage" }))).toBe(
      "VALIDATION_FAILED",
    );
    expect(await codeOf(c.asStaff.providers.list({ clinic_id: c.clinicId, limit: 501 }))).toBe("VALIDATION_FAILED");
    expect(await codeOf(c.asStaff.providers.list({ clinic_id: c.clinicId, limit: 0 }))).toBe("VALIDATION_FAILED");
  });

  it("needs STAFF: custom roles and non-members are refused", async () => {
    const c = await clinicFixture(t.db);
    expect((await c.asAdmin.providers.list({ clinic_id: c.clinicId })).providers).toEqual([]);
    expect(await codeOf(c.asCustom.providers.list({ clinic_id: c.clinicId }))).toBe("FORBIDDEN");
    const outsider = await createUser(t.db);
    expect(await codeOf(callerFor(t.db, outsider).providers.list({ clinic_id: c.clinicId }))).toBe("FORBIDDEN");
    expect(await codeOf(callerFor(t.db, null).providers.list({ clinic_id: c.clinicId }))).toBe("UNAUTHENTICATED");
    const globalAdmin = await createUser(t.db, { admin: true });
    expect((await callerFor(t.db, globalAdmin).providers.list({ clinic_id: c.clinicId })).providers).toEqual([]);
  });
});

describe("providers.get (P2)", () => {
  it("shows notes, provider work hours, assigned active services and current/future closures", async () => {
    const c = await clinicFixture(t.db);
    const anna = await provider(c, "Anna Berg");
    await t.db
      .update(clinicMembers)
      .set({ notes: "speaks Danish" })
      .where(and(eq(clinicMembers.clinicId, c.clinicId), eq(clinicMembers.userId, anna.id)));
    await t.db.insert(workHours).values([
      { clinicId: c.clinicId, scope: "provider", providerId: anna.id, weekday: 3, opensMin: 600, closesMin: 720 },
      { clinicId: c.clinicId, scope: "provider", providerId: anna.id, weekday: 1, opensMin: 780, closesMin: 1020 },
      { clinicId: c.clinicId, scope: "provider", providerId: anna.id, weekday: 1, opensMin: 540, closesMin: 720 },
      { clinicId: c.clinicId, scope: "clinic", providerId: null, weekday: 1, opensMin: 480, closesMin: 1200 },
    ]);
    const now = Date.now();
    const hour = 3_600_000;
    await t.db.insert(closures).values([
      {
        clinicId: c.clinicId,
        scope: "provider",
        providerId: anna.id,
        startsAt: new Date(now + 48 * hour),
        endsAt: new Date(now + 50 * hour),
        reason: "later",
      },
      {
        clinicId: c.clinicId,
        scope: "provider",
        providerId: anna.id,
        startsAt: new Date(now - 48 * hour),
        endsAt: new Date(now - 47 * hour),
        reason: "past",
      },
      {
        clinicId: c.clinicId,
        scope: "provider",
        providerId: anna.id,
        startsAt: new Date(now - hour),
        endsAt: new Date(now + hour),
        reason: "current",
      },
      {
        clinicId: c.clinicId,
        scope: "clinic",
        providerId: null,
        startsAt: new Date(now + hour),
        endsAt: new Date(now + 2 * hour),
        reason: "clinic",
      },
    ]);
    await c.asAdmin.services.create({ clinic_id: c.clinicId, name: "Zumba", duration_min: 30, provider_id: anna.id });
    await c.asAdmin.services.create({
      clinic_id: c.clinicId,
      name: "Acupuncture",
      duration_min: 45,
      provider_id: anna.id,
      price: "80",
    });
    await c.asAdmin.services.create({
      clinic_id: c.clinicId,
      name: "Dormant",
      duration_min: 30,
      provider_id: anna.id,
      is_active: false,
    });
    const gone = await c.asAdmin.services.create({
      clinic_id: c.clinicId,
      name: "Gone",
      duration_min: 30,
      provider_id: anna.id,
    });
    await c.asAdmin.services.remove({ clinic_id: c.clinicId, id: gone.id });
    await c.asAdmin.services.create({ clinic_id: c.clinicId, name: "Unassigned", duration_min: 30 });

    const detail = await c.asStaff.providers.get({ clinic_id: c.clinicId, user_id: anna.id });
    expect(detail).toMatchObject({
      user_id: anna.id,
      full_name: "Anna Berg",
      notes: "speaks Danish",
      is_provider: true,
      status: "approved",
    });
    expect(detail.work_hours.map((w) => [w.weekday, w.opens_at, w.closes_at, w.scope, w.provider_id])).toEqual([
      [1, "09:00", "12:00", "provider", anna.id],
      [1, "13:00", "17:00", "provider", anna.id],
      [3, "10:00", "12:00", "provider", anna.id],
    ]);
    expect(detail.services.map((s) => s.name)).toEqual(["Acupuncture", "Zumba"]);
    expect(detail.services[0]).toMatchObject({
      price: "80.00",
      provider_id: anna.id,
      provider_name: "Anna Berg",
      duration_min: 45,
      is_active: true,
    });
    expect(detail.closures.map((k) => k.reason)).toEqual(["current", "later"]);
  });

  it("answers 404 for a non-provider, another clinic's provider and an unknown user; 403 below STAFF", async () => {
    const a = await clinicFixture(t.db);
    const b = await clinicFixture(t.db);
    const foreign = await provider(b, "Foreign");
    expect(await codeOf(a.asStaff.providers.get({ clinic_id: a.clinicId, user_id: a.staff.id }))).toBe("NOT_FOUND");
    expect(await codeOf(a.asStaff.providers.get({ clinic_id: a.clinicId, user_id: foreign.id }))).toBe("NOT_FOUND");
    expect(await codeOf(a.asStaff.providers.get({ clinic_id: a.clinicId, user_id: crypto.randomUUID() }))).toBe(
      "NOT_FOUND",
    );
    const mine = await provider(a, "Mine");
    expect(await codeOf(a.asCustom.providers.get({ clinic_id: a.clinicId, user_id: mine.id }))).toBe("FORBIDDEN");
    expect(await codeOf(b.asAdmin.providers.get({ clinic_id: a.clinicId, user_id: mine.id }))).toBe("FORBIDDEN");
  });
});

describe("provider lifecycle (P3–P7)", () => {
  it("approve, suspend, reactivate: the legal transitions, answering the provider", async () => {
    const c = await clinicFixture(t.db);
    const p = await provider(c, "Pat", { status: "pending" });
    const key = { clinic_id: c.clinicId, user_id: p.id };
    let seen = await version(c.clinicId, p.id);
    const approved = await c.asAdmin.providers.approve(key);
    expect(approved).toMatchObject({ user_id: p.id, status: "approved", is_provider: true });
    expect(Object.keys(approved)).not.toContain("notes");
    seen = await versionMovedPast(version(c.clinicId, p.id), seen);
    expect(await c.asAdmin.providers.suspend(key)).toMatchObject({ status: "suspended" });
    seen = await versionMovedPast(version(c.clinicId, p.id), seen);
    expect(await c.asAdmin.providers.reactivate(key)).toMatchObject({ status: "approved" });
    await versionMovedPast(version(c.clinicId, p.id), seen);
    expect(
      (await c.asStaff.providers.list({ clinic_id: c.clinicId, status: "approved" })).providers.map((x) => x.user_id),
    ).toEqual([p.id]);
  });

  it.each([
    ["approve", "approved"],
    ["approve", "suspended"],
    ["reject", "approved"],
    ["reject", "suspended"],
    ["suspend", "pending"],
    ["suspend", "suspended"],
    ["reactivate", "pending"],
    ["reactivate", "approved"],
  ] as const)("refuses %s from %s with 409 INVALID_TRANSITION and changes nothing", async (action, status) => {
    const c = await clinicFixture(t.db);
    const p = await provider(c, "Pat", { status });
    const before = await version(c.clinicId, p.id);
    const failure = await rejectionOf(c.asAdmin.providers[action]({ clinic_id: c.clinicId, user_id: p.id }));
    expect(failure.domainCode).toBe("INVALID_TRANSITION");
    expect(failure.extra).toMatchObject({ provider_status: status });
    const detail = await c.asStaff.providers.get({ clinic_id: c.clinicId, user_id: p.id });
    expect(detail.status).toBe(status);
    expect(await version(c.clinicId, p.id)).toBe(before);
  });

  it("reject: pending → no longer a provider, answering the member", async () => {
    const c = await clinicFixture(t.db);
    const p = await provider(c, "Pat", { status: "pending" });
    const before = await version(c.clinicId, p.id);
    const member = await c.asAdmin.providers.reject({ clinic_id: c.clinicId, user_id: p.id });
    expect(member).toMatchObject({ clinic_id: c.clinicId, user_id: p.id, is_provider: false, full_name: "Pat" });
    expect(Object.keys(member)).toContain("notes");
    await versionMovedPast(version(c.clinicId, p.id), before);
    expect((await c.asStaff.providers.list({ clinic_id: c.clinicId })).providers).toEqual([]);
    expect(await codeOf(c.asAdmin.providers.reject({ clinic_id: c.clinicId, user_id: p.id }))).toBe("NOT_FOUND");
  });

  it.each(["pending", "approved", "suspended"] as const)(
    "remove from %s: is_provider false, still a member",
    async (status) => {
      const c = await clinicFixture(t.db);
      const p = await provider(c, "Pat", { status });
      const before = await version(c.clinicId, p.id);
      await expect(c.asAdmin.providers.remove({ clinic_id: c.clinicId, user_id: p.id })).resolves.toBeUndefined();
      await versionMovedPast(version(c.clinicId, p.id), before);
      expect((await c.asStaff.providers.list({ clinic_id: c.clinicId })).providers).toEqual([]);
      const members = await c.asAdmin.members.list({ clinic_id: c.clinicId });
      expect(members.members.find((m) => m.user_id === p.id)).toMatchObject({ is_provider: false });
      expect(await codeOf(c.asAdmin.providers.remove({ clinic_id: c.clinicId, user_id: p.id }))).toBe("NOT_FOUND");
    },
  );

  it("refuses to remove (or reject) a provider with active assigned services, listing them", async () => {
    const c = await clinicFixture(t.db);
    const p = await provider(c, "Pat");
    const s1 = await c.asAdmin.services.create({
      clinic_id: c.clinicId,
      name: "One",
      duration_min: 30,
      provider_id: p.id,
    });
    const s2 = await c.asAdmin.services.create({
      clinic_id: c.clinicId,
      name: "Two",
      duration_min: 30,
      provider_id: p.id,
    });
    await c.asAdmin.services.create({
      clinic_id: c.clinicId,
      name: "Three",
      duration_min: 30,
      provider_id: p.id,
      is_active: false,
    });
    const failure = await rejectionOf(c.asAdmin.providers.remove({ clinic_id: c.clinicId, user_id: p.id }));
    expect(failure.domainCode).toBe("PROVIDER_HAS_SERVICES");
    expect(failure.extra?.service_ids).toEqual([s1.id, s2.id].sort());
    expect((await c.asStaff.providers.get({ clinic_id: c.clinicId, user_id: p.id })).is_provider).toBe(true);

    const pending = await provider(c, "Pending Pat", { status: "pending" });
    await c.asAdmin.services.create({ clinic_id: c.clinicId, name: "Four", duration_min: 30, provider_id: pending.id });
    expect(await codeOf(c.asAdmin.providers.reject({ clinic_id: c.clinicId, user_id: pending.id }))).toBe(
      "PROVIDER_HAS_SERVICES",
    );

    // Inactive assignments do not block; unassigning the active ones unblocks.
    await c.asAdmin.services.update({ clinic_id: c.clinicId, id: s1.id, provider_id: null });
    await c.asAdmin.services.update({ clinic_id: c.clinicId, id: s2.id, is_active: false });
    await c.asAdmin.providers.remove({ clinic_id: c.clinicId, user_id: p.id });
    expect(await codeOf(c.asStaff.providers.get({ clinic_id: c.clinicId, user_id: p.id }))).toBe("NOT_FOUND");
  });

  it("keeps work hours of a removed provider; re-flagging starts pending with the schedule back", async () => {
    const c = await clinicFixture(t.db);
    const p = await provider(c, "Pat");
    await t.db
      .insert(workHours)
      .values({ clinicId: c.clinicId, scope: "provider", providerId: p.id, weekday: 2, opensMin: 540, closesMin: 600 });
    await c.asAdmin.providers.remove({ clinic_id: c.clinicId, user_id: p.id });
    const again = await c.asAdmin.members.update({ clinic_id: c.clinicId, user_id: p.id, is_provider: true });
    expect(again).toMatchObject({ is_provider: true, status: "pending" });
    const detail = await c.asStaff.providers.get({ clinic_id: c.clinicId, user_id: p.id });
    expect(detail.work_hours.map((w) => w.opens_at)).toEqual(["09:00"]);
  });

  it("answers 404 for non-providers and other clinics' providers; needs CLINIC_ADMIN", async () => {
    const a = await clinicFixture(t.db);
    const b = await clinicFixture(t.db);
    const foreign = await provider(b, "Foreign", { status: "pending" });
    const mine = await provider(a, "Mine", { status: "pending" });
    for (const action of ["approve", "reject", "suspend", "reactivate", "remove"] as const) {
      expect(await codeOf(a.asAdmin.providers[action]({ clinic_id: a.clinicId, user_id: a.staff.id }))).toBe(
        "NOT_FOUND",
      );
      expect(await codeOf(a.asAdmin.providers[action]({ clinic_id: a.clinicId, user_id: foreign.id }))).toBe(
        "NOT_FOUND",
      );
      expect(await codeOf(a.asStaff.providers[action]({ clinic_id: a.clinicId, user_id: mine.id }))).toBe("FORBIDDEN");
      expect(await codeOf(a.asCustom.providers[action]({ clinic_id: a.clinicId, user_id: mine.id }))).toBe("FORBIDDEN");
      expect(await codeOf(b.asAdmin.providers[action]({ clinic_id: a.clinicId, user_id: mine.id }))).toBe("FORBIDDEN");
    }
    expect((await b.asStaff.providers.get({ clinic_id: b.clinicId, user_id: foreign.id })).status).toBe("pending");
    const globalAdmin = await createUser(t.db, { admin: true });
    expect(
      await callerFor(t.db, globalAdmin).providers.approve({ clinic_id: a.clinicId, user_id: mine.id }),
    ).toMatchObject({ status: "approved" });
  });

  it("lets only one of two concurrent approvals succeed", async () => {
    const c = await clinicFixture(t.db);
    const p = await provider(c, "Pat", { status: "pending" });
    const key = { clinic_id: c.clinicId, user_id: p.id };
    const results = await Promise.allSettled([
      c.asAdmin.providers.approve(key),
      callerFor(t.db, c.admin).providers.approve(key),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const failed = results.find((r) => r.status === "rejected");
    expect(failed?.status === "rejected" ? (failed.reason as { domainCode?: string }).domainCode : undefined).toBe(
      "INVALID_TRANSITION",
    );
  });
});
