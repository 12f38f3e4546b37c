import { describe, expect, it } from "vitest";
import { callerFor, clinicFixture, codeOf, createUser, useTestDatabase } from "../testing/index.ts";

const t = useTestDatabase();

describe("members", () => {
  it("adds a new user as a member; a new provider starts pending", async () => {
    const c = await clinicFixture(t.db);
    const member = await c.asAdmin.members.add({
      clinic_id: c.clinicId,
      email: `Anna.${crypto.randomUUID()}@Test.example`,
      full_name: "Anna Berg",
      phone_e164: "+4930123456",
      is_provider: true,
    });
    expect(member).toMatchObject({
      clinic_id: c.clinicId,
      full_name: "Anna Berg",
      is_provider: true,
      status: "pending",
      clinic_role: "STAFF",
      phone_e164: "+4930123456",
      notes: null,
    });
    const staff = await c.asAdmin.members.add({
      clinic_id: c.clinicId,
      email: `s.${crypto.randomUUID()}@test.example`,
      full_name: "Sam",
    });
    expect(staff).toMatchObject({ is_provider: false, status: "approved" });
  });

  it("links an existing user by e-mail (case-insensitive) and refuses a second membership", async () => {
    const a = await clinicFixture(t.db);
    const b = await clinicFixture(t.db);
    const user = await createUser(t.db);
    const inA = await a.asAdmin.members.add({
      clinic_id: a.clinicId,
      email: user.email.toUpperCase(),
      full_name: "In A",
    });
    expect(inA.user_id).toBe(user.id);
    const inB = await b.asAdmin.members.add({
      clinic_id: b.clinicId,
      email: user.email,
      full_name: "In B",
      is_provider: true,
    });
    expect(inB.user_id).toBe(user.id);
    expect(await codeOf(a.asAdmin.members.add({ clinic_id: a.clinicId, email: user.email, full_name: "Again" }))).toBe(
      "ALREADY_MEMBER",
    );
  });

  it("lists members by full_name, STAFF or higher only", async () => {
    const c = await clinicFixture(t.db);
    const list = await c.asStaff.members.list({ clinic_id: c.clinicId });
    expect(list.members.map((m) => m.full_name)).toEqual(["Admin Person", "Agent Person", "Staff Person"]);
    expect(await codeOf(c.asCustom.members.list({ clinic_id: c.clinicId }))).toBe("FORBIDDEN");
  });

  it("updates a member; making a non-provider a provider sets pending", async () => {
    const c = await clinicFixture(t.db);
    const updated = await c.asAdmin.members.update({
      clinic_id: c.clinicId,
      user_id: c.staff.id,
      is_provider: true,
      notes: "n",
      full_name: "New Name",
    });
    expect(updated).toMatchObject({ is_provider: true, status: "pending", notes: "n", full_name: "New Name" });
    expect(await codeOf(c.asStaff.members.update({ clinic_id: c.clinicId, user_id: c.staff.id, notes: "x" }))).toBe(
      "FORBIDDEN",
    );
  });

  it("answers 404 for a member of another clinic", async () => {
    const a = await clinicFixture(t.db);
    const b = await clinicFixture(t.db);
    expect(await codeOf(a.asAdmin.members.update({ clinic_id: a.clinicId, user_id: b.staff.id, notes: "x" }))).toBe(
      "NOT_FOUND",
    );
  });

  it("refuses unknown fields and malformed values", async () => {
    const c = await clinicFixture(t.db);
    const admin = callerFor(t.db, c.admin);
    expect(await codeOf(admin.members.add({ clinic_id: c.clinicId, email: "not-an-email", full_name: "X" }))).toBe(
      "VALIDATION_FAILED",
    );
    expect(
      await codeOf(
        admin.members.add({ clinic_id: c.clinicId, email: "a@b.example", full_name: "X", phone_e164: "0301234" }),
      ),
    ).toBe("VALIDATION_FAILED");
  });

  it("keeps name, e-mail and phone per membership: linking by user_id shows only what the caller sent", async () => {
    const a = await clinicFixture(t.db);
    const b = await clinicFixture(t.db);
    // Clinic A's admin names clinic B's staff member by user id, with an e-mail of their own choosing.
    const linked = await a.asAdmin.members.add({
      clinic_id: a.clinicId,
      user_id: b.staff.id,
      email: "anything@a.example",
      full_name: "Whoever",
      phone_e164: "+4911111111",
    });
    expect(linked).toMatchObject({
      user_id: b.staff.id,
      email: "anything@a.example",
      full_name: "Whoever",
      phone_e164: "+4911111111",
    });
    expect(JSON.stringify(linked)).not.toContain(b.staff.email);
    // A's change of the phone is A's alone.
    await a.asAdmin.members.update({
      clinic_id: a.clinicId,
      user_id: b.staff.id,
      phone_e164: "+4922222222",
      full_name: "Renamed",
    });
    const inB = (await b.asAdmin.members.list({ clinic_id: b.clinicId })).members.find((m) => m.user_id === b.staff.id);
    expect(inB).toMatchObject({ email: b.staff.email, full_name: "Staff Person", phone_e164: null });
  });

  it("answers the same whether or not an e-mail is registered elsewhere, and never 409 on a user_id/e-mail mismatch", async () => {
    const c = await clinicFixture(t.db);
    const elsewhere = await createUser(t.db);
    const registered = await c.asAdmin.members.add({
      clinic_id: c.clinicId,
      email: elsewhere.email,
      full_name: "Known",
    });
    const fresh = await c.asAdmin.members.add({
      clinic_id: c.clinicId,
      email: `fresh-${crypto.randomUUID()}@test.example`,
      full_name: "Unknown",
    });
    const shape = (m: typeof registered) => Object.keys(m).sort();
    expect(shape(registered)).toEqual(shape(fresh));
    expect(registered).toMatchObject({ email: elsewhere.email, full_name: "Known", phone_e164: null, notes: null });
    // A random user_id with a registered e-mail: a new identity is linked, nothing is refused.
    const randomId = crypto.randomUUID();
    const byId = await c.asAdmin.members.add({
      clinic_id: c.clinicId,
      user_id: randomId,
      email: elsewhere.email,
      full_name: "By Id",
    });
    expect(byId).toMatchObject({ user_id: randomId, email: elsewhere.email });
  });
});
