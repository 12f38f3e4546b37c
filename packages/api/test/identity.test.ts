import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { appointments, clinicMembers, services, users, workHours } from "@clinic/db";
import { UserProvisioner } from "../src/modules/identity/index.ts";
import {
  addHours,
  addService,
  callerFor,
  clinicFixture,
  codeOf,
  createUser,
  pinnedNow,
  useTestDatabase,
} from "../testing/index.ts";

const t = useTestDatabase();
/** Claims as the verifier passes them on; the issuer vouches for the e-mail unless told otherwise. */
const claimsOf = (sub: string, email: string, emailVerified: unknown = true) => ({
  sub,
  email,
  email_verified: emailVerified,
});

describe("user provisioning", () => {
  it("re-keys a placeholder invited by e-mail to the sub of the person's first token", async () => {
    const c = await clinicFixture(t.db);
    const email = `invited-${crypto.randomUUID()}@test.example`;
    const invited = await c.asAdmin.members.add({ clinic_id: c.clinicId, email, full_name: "Invited" });
    const sub = crypto.randomUUID();
    await new UserProvisioner().provision(t.db, claimsOf(sub, email.toUpperCase()));
    const [membership] = await t.db.select().from(clinicMembers).where(eq(clinicMembers.id, invited.id));
    expect(membership?.userId).toBe(sub);
  });

  it("does not re-key a placeholder for a token whose issuer does not say email_verified: true (issue 47)", async () => {
    const c = await clinicFixture(t.db);
    const email = `victim-${crypto.randomUUID()}@test.example`;
    const invited = await c.asAdmin.members.add({ clinic_id: c.clinicId, email, full_name: "Invited" });
    const unverified = [
      claimsOf(crypto.randomUUID(), email, false),
      claimsOf(crypto.randomUUID(), email, "true"),
      { sub: crypto.randomUUID(), email },
    ];
    for (const claims of unverified)
      expect(await codeOf(new UserProvisioner().provision(t.db, claims))).toBe("UNAUTHENTICATED");
    const [membership] = await t.db.select().from(clinicMembers).where(eq(clinicMembers.id, invited.id));
    expect(membership?.userId).toBe(invited.user_id);
  });

  it("moves an invited provider's hours, services and appointments to the person, keeping the membership id", async () => {
    const c = await clinicFixture(t.db);
    const email = `provider-${crypto.randomUUID()}@test.example`;
    const invited = await c.asAdmin.members.add({
      clinic_id: c.clinicId,
      email,
      full_name: "Invited Provider",
      is_provider: true,
    });
    await c.asAdmin.providers.approve({ clinic_id: c.clinicId, user_id: invited.user_id });
    await addHours(t.db, c.clinicId, null, [1, 2, 3, 4, 5], "09:00", "17:00");
    await addHours(t.db, c.clinicId, invited.user_id, [1, 2, 3, 4, 5], "09:00", "17:00");
    const serviceId = await addService(t.db, c.clinicId, { providerId: invited.user_id });
    const staff = callerFor(t.db, c.staff, { now: pinnedNow });
    const booked = await staff.appointments.book({
      clinic_id: c.clinicId,
      service_id: serviceId,
      start: "2027-03-02T10:00:00Z",
      patient: { name: "Pat" },
    });
    const sub = crypto.randomUUID();
    await new UserProvisioner().provision(t.db, claimsOf(sub, email));
    const [membership] = await t.db.select().from(clinicMembers).where(eq(clinicMembers.id, invited.id));
    expect(membership?.userId).toBe(sub);
    const [service] = await t.db.select().from(services).where(eq(services.id, serviceId));
    expect(service?.providerId).toBe(sub);
    const [appointment] = await t.db.select().from(appointments).where(eq(appointments.id, booked.id));
    expect(appointment?.providerId).toBe(sub);
    const hours = await t.db.select().from(workHours).where(eq(workHours.providerId, sub));
    expect(hours).toHaveLength(5);
    expect(await t.db.select().from(users).where(eq(users.id, invited.user_id))).toEqual([]);
  });

  it("joins an invitation by e-mail to an identity invited by id elsewhere", async () => {
    const a = await clinicFixture(t.db);
    const b = await clinicFixture(t.db);
    const sub = crypto.randomUUID();
    const email = `both-${crypto.randomUUID()}@test.example`;
    // A invites the person by id before B invites the same person by e-mail (a second placeholder).
    await a.asAdmin.members.add({
      clinic_id: a.clinicId,
      user_id: sub,
      email: `other-${crypto.randomUUID()}@test.example`,
      full_name: "By Id",
    });
    const inB = await b.asAdmin.members.add({ clinic_id: b.clinicId, email, full_name: "By E-mail" });
    expect(inB.user_id).not.toBe(sub);
    await new UserProvisioner().provision(t.db, claimsOf(sub, email));
    const memberships = await t.db
      .select({ clinicId: clinicMembers.clinicId })
      .from(clinicMembers)
      .where(eq(clinicMembers.userId, sub));
    expect(memberships.map((m) => m.clinicId).sort()).toEqual([a.clinicId, b.clinicId].sort());
    const [user] = await t.db.select().from(users).where(eq(users.id, sub));
    expect(user?.email).toBe(email);
  });

  it("refuses a token whose e-mail belongs to someone who has signed in", async () => {
    const owner = await createUser(t.db);
    await new UserProvisioner().provision(t.db, claimsOf(owner.id, owner.email));
    expect(await codeOf(new UserProvisioner().provision(t.db, claimsOf(crypto.randomUUID(), owner.email)))).toBe(
      "UNAUTHENTICATED",
    );
  });
});
