// X1 and X3 through the procedures (CONTRACT §21, docs/patient-data.md#export-x1-x3): a patient
// found by user id, e-mail (any case) or phone; only the clinic's own rows; who may export; and a
// signed-in user's own export across clinics that never shows another patient's data.
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { appointments, clinics, messages } from "@clinic/db";
import { manageToken } from "../src/modules/manage/index.ts";
import {
  addMember,
  addService,
  bookableClinic,
  callerFor,
  codeOf,
  createUser,
  unique,
  useTestDatabase,
} from "../testing/index.ts";

const t = useTestDatabase();

/** A bookable clinic taking online bookings, whose service asks one free-text question. */
async function clinicWithQuestion() {
  const c = await bookableClinic(t.db);
  const service = await addService(t.db, c.clinicId, { name: "Intake", providerId: c.provider.id });
  await c.asAdmin.services.update({
    clinic_id: c.clinicId,
    id: service,
    questions: [{ key: "allergies", label: "Allergies", type: "long_text" }],
  });
  await t.db.update(clinics).set({ onlineBooking: true }).where(eq(clinics.id, c.clinicId));
  return { ...c, service };
}

/** A patient's identifiers, unique to the test. */
function identifiers() {
  const tag = unique();
  return {
    name: `Mira Export ${tag}`,
    email: `mira.${tag}@example.test`,
    phone: `+4930${String(Math.floor(10_000_000 + Math.random() * 89_999_999))}`,
  };
}

/**
 * Clinic A: two staff bookings of the patient (e-mail in other cases, one with phone), one by phone
 * only, a series, a waitlist entry, their own booking with an account, and another patient's
 * booking; clinic B: the same patient's booking.
 */
async function scene() {
  const a = await clinicWithQuestion();
  const b = await clinicWithQuestion();
  const p = identifiers();
  const other = identifiers();
  const account = await createUser(t.db, { email: p.email });
  const asPatient = callerFor(t.db, account);
  const book = (c: typeof a, start: string, patient: Record<string, string>, extra: Record<string, unknown> = {}) =>
    c.asStaff.appointments.book({
      clinic_id: c.clinicId,
      service_id: c.service,
      start,
      patient: { name: p.name, ...patient },
      ...extra,
    });
  const first = await book(
    a,
    "2027-03-15T09:00:00Z",
    { email: p.email.toUpperCase(), phone_e164: p.phone },
    { notes: "left knee", answers: { allergies: "penicillin" } },
  );
  const second = await book(a, "2027-03-15T10:00:00Z", { email: p.email.replace("mira", "Mira") });
  const byPhone = await book(a, "2027-03-15T11:00:00Z", { phone_e164: p.phone });
  const others = await a.asStaff.appointments.book({
    clinic_id: a.clinicId,
    service_id: a.service,
    start: "2027-03-15T12:00:00Z",
    patient: { name: other.name, email: other.email, phone_e164: other.phone },
  });
  const series = await a.asStaff.series.book({
    clinic_id: a.clinicId,
    service_id: a.service,
    start: "2027-03-16T09:00:00Z",
    rrule: "FREQ=WEEKLY;COUNT=2",
    patient: { name: p.name, email: p.email },
  });
  const entry = await a.asStaff.waitlist.add({
    clinic_id: a.clinicId,
    service_id: a.service,
    from_date: "2027-04-01",
    to_date: "2027-04-02",
    patient: { name: p.name, email: p.email },
  });
  const own = await asPatient.onlineBooking.book({
    clinic_id: a.clinicId,
    service_id: a.service,
    start: "2027-03-17T09:00:00Z",
    patient: { name: p.name },
  });
  const inB = await book(b, "2027-03-15T09:00:00Z", { email: p.email });
  return { a, b, p, other, account, asPatient, first, second, byPhone, others, series, entry, own, inB };
}

type Scene = Awaited<ReturnType<typeof scene>>;
const idsOf = (list: readonly { id: string }[]) => list.map((x) => x.id).sort();
const seriesIdsOf = (s: Scene) => ("id" in s.series ? s.series.occurrences.map((o) => o.id) : []);

describe("X1: a patient's export", () => {
  it("finds the patient by e-mail in any case, with their appointments, series, waitlist entries and messages", async () => {
    const s = await scene();
    const exported = await s.a.asAdmin.patientData.export({ clinic_id: s.a.clinicId, email: s.p.email.toUpperCase() });
    expect(exported.clinic.id).toBe(s.a.clinicId);
    expect(idsOf(exported.appointments)).toEqual([s.first.id, s.second.id, s.own.id, ...seriesIdsOf(s)].sort());
    expect(exported.patient.emails).toEqual([s.p.email]);
    expect(exported.patient.phones).toEqual([s.p.phone]);
    expect(exported.patient.names).toEqual([s.p.name]);
    // The account the patient booked with themselves, and its registration with the clinic.
    expect(exported.patient.user_ids).toEqual([s.account.id]);
    expect(exported.registrations.map((r) => r.user_id)).toEqual([s.account.id]);
    const first = exported.appointments.find((x) => x.id === s.first.id);
    expect(first).toMatchObject({
      notes: "left knee",
      answers: [{ key: "allergies", label: "Allergies", type: "long_text", value: "penicillin" }],
      status_history: [expect.objectContaining({ status: "booked" })],
    });
    expect(exported.series.map((x) => x.id)).toEqual(["id" in s.series ? s.series.id : ""]);
    expect(exported.series[0]?.appointment_ids.sort()).toEqual(seriesIdsOf(s).sort());
    expect(exported.waitlist_entries.map((x) => x.id)).toEqual([s.entry.id]);
    // Every message of the clinic about those appointments or to that address, and no other.
    const all = await t.db.select().from(messages).where(eq(messages.clinicId, s.a.clinicId));
    const ids = new Set(exported.appointments.map((x) => x.id));
    const expected = all.filter((m) => ids.has(m.appointmentId) || m.to.toLowerCase() === s.p.email).map((m) => m.id);
    expect(expected.length).toBeGreaterThan(0);
    expect(exported.messages.map((m) => m.id).sort()).toEqual(expected.sort());
    for (const m of exported.messages)
      expect(Object.keys(m).sort()).toEqual([
        "appointment_id",
        "attempts",
        "created_at",
        "id",
        "kind",
        "sent_at",
        "status",
        "subject",
        "to",
      ]);
    // Nothing of another patient, nothing of another clinic.
    expect(JSON.stringify(exported)).not.toContain(s.other.email);
    expect(JSON.stringify(exported)).not.toContain(s.others.id);
    expect(JSON.stringify(exported)).not.toContain(s.inB.id);
    expect(exported.truncated).toEqual([]);
  });

  it("finds the patient by phone, and by user id (their account's rows and registration)", async () => {
    const s = await scene();
    const byPhone = await s.a.asAdmin.patientData.export({ clinic_id: s.a.clinicId, phone_e164: s.p.phone });
    expect(idsOf(byPhone.appointments)).toEqual([s.first.id, s.byPhone.id].sort());
    expect(byPhone.series).toEqual([]);
    const byUser = await s.a.asAdmin.patientData.export({ clinic_id: s.a.clinicId, patient_user_id: s.account.id });
    expect(idsOf(byUser.appointments)).toEqual([s.own.id]);
    expect(byUser.patient.user_ids).toEqual([s.account.id]);
    expect(byUser.registrations.map((r) => r.user_id)).toEqual([s.account.id]);
    // A member of the clinic with the patient's e-mail is the patient too (the erasure's rule).
    const member = await addMember(t.db, s.a.clinicId, { email: `member-${unique()}@example.test` });
    const asMember = await s.a.asAdmin.patientData.export({ clinic_id: s.a.clinicId, email: member.email });
    expect(asMember.patient.user_ids).toEqual([member.id]);
    expect(asMember.memberships.map((m) => m.user_id)).toEqual([member.id]);
  });

  it("lists the changes the patient made themselves as manage-link uses", async () => {
    const s = await scene();
    const [row] = await t.db
      .select({ key: appointments.manageKey })
      .from(appointments)
      .where(and(eq(appointments.clinicId, s.a.clinicId), eq(appointments.id, s.second.id)));
    const anyone = callerFor(t.db, null);
    await anyone.manage.cancel({ token: manageToken(s.a.clinicId, s.second.id, row?.key ?? "") });
    await s.asPatient.me.cancel({ id: s.own.id });
    await s.a.asStaff.appointments.cancel({ clinic_id: s.a.clinicId, id: s.first.id });
    const exported = await s.a.asAdmin.patientData.export({ clinic_id: s.a.clinicId, email: s.p.email });
    expect(exported.manage_link_uses.map((u) => [u.appointment_id, u.status, u.by_user_id]).sort()).toEqual(
      [
        [s.second.id, "canceled", null],
        [s.own.id, "canceled", s.account.id],
      ].sort(),
    );
  });

  it("answers empty lists for a patient the clinic does not know", async () => {
    const s = await scene();
    const exported = await s.a.asAdmin.patientData.export({ clinic_id: s.a.clinicId, email: "nobody@example.test" });
    expect(exported).toMatchObject({
      patient: { user_ids: [], names: [], emails: [], phones: [] },
      appointments: [],
      series: [],
      waitlist_entries: [],
      messages: [],
      manage_link_uses: [],
      audit_entries: [],
    });
  });

  it("holds nothing of a patient erased from the clinic (the erasure's matching is the export's)", async () => {
    const s = await scene();
    const erased = await s.a.asAdmin.patientData.erase({
      clinic_id: s.a.clinicId,
      email: s.p.email,
      reason: "Art. 17",
    });
    expect(erased.erased.appointments).toBe(3 + seriesIdsOf(s).length);
    for (const match of [{ email: s.p.email }, { patient_user_id: s.account.id }]) {
      const exported = await s.a.asAdmin.patientData.export({ clinic_id: s.a.clinicId, ...match });
      // Contact data lists only what rows hold: the asked address, held by no row any more, is not echoed.
      expect(exported.patient.emails).toEqual([]);
      const text = JSON.stringify(exported);
      for (const value of [s.p.name, s.p.email, "left knee", "penicillin"]) expect(text).not.toContain(value);
    }
    // The phone-only booking was not the e-mail's: it is still found by the phone.
    const byPhone = await s.a.asAdmin.patientData.export({ clinic_id: s.a.clinicId, phone_e164: s.p.phone });
    expect(idsOf(byPhone.appointments)).toEqual([s.byPhone.id]);
    expect(byPhone.patient.phones).toEqual([s.p.phone]);
    // Erased by the phone too: the phone appears nowhere in the export by that phone.
    await s.a.asAdmin.patientData.erase({ clinic_id: s.a.clinicId, phone_e164: s.p.phone, reason: "Art. 17" });
    const afterPhone = await s.a.asAdmin.patientData.export({ clinic_id: s.a.clinicId, phone_e164: s.p.phone });
    expect(afterPhone.patient.phones).toEqual([]);
    expect(JSON.stringify(afterPhone)).not.toContain(s.p.phone);
  });

  it("is for a CLINIC_ADMIN of the clinic, with exactly one identifier", async () => {
    const s = await scene();
    const input = { clinic_id: s.a.clinicId, email: s.p.email };
    expect(await codeOf(s.a.asStaff.patientData.export(input))).toBe("FORBIDDEN");
    expect(await codeOf(s.a.asCustom.patientData.export(input))).toBe("FORBIDDEN");
    expect(await codeOf(s.b.asAdmin.patientData.export(input))).toBe("FORBIDDEN");
    expect(await codeOf(s.asPatient.patientData.export(input))).toBe("FORBIDDEN");
    expect(await codeOf(callerFor(t.db, null).patientData.export(input))).toBe("UNAUTHENTICATED");
    expect(await codeOf(s.a.asAdmin.patientData.export({ clinic_id: s.a.clinicId }))).toBe("VALIDATION_FAILED");
    expect(
      await codeOf(
        s.a.asAdmin.patientData.export({ clinic_id: s.a.clinicId, email: s.p.email, phone_e164: s.p.phone }),
      ),
    ).toBe("VALIDATION_FAILED");
    const admin = callerFor(t.db, await createUser(t.db, { admin: true }));
    expect((await admin.patientData.export(input)).appointments.length).toBeGreaterThan(0);
  });
});

describe("X3: my own export", () => {
  it("holds the caller's data in every clinic where they appear, and never another patient's", async () => {
    const s = await scene();
    const mine = await s.asPatient.patientData.myExport();
    expect(mine.user).toEqual({ id: s.account.id, email: s.p.email, phone_e164: null });
    expect(mine.clinics.map((c) => c.clinic.id).sort()).toEqual([s.a.clinicId, s.b.clinicId].sort());
    const inA = mine.clinics.find((c) => c.clinic.id === s.a.clinicId);
    const inB = mine.clinics.find((c) => c.clinic.id === s.b.clinicId);
    // By the account and by its e-mail; the phone-only booking is not found (the account has no phone).
    expect(idsOf(inA?.appointments ?? [])).toEqual([s.first.id, s.second.id, s.own.id, ...seriesIdsOf(s)].sort());
    expect(idsOf(inB?.appointments ?? [])).toEqual([s.inB.id]);
    expect(JSON.stringify(mine)).not.toContain(s.other.email);
    expect(JSON.stringify(mine)).not.toContain(s.others.id);

    // Another patient sees only their own: the one booking, in clinic A.
    const otherAccount = await createUser(t.db, { email: s.other.email.toUpperCase() });
    const theirs = await callerFor(t.db, otherAccount).patientData.myExport();
    expect(theirs.clinics.map((c) => c.clinic.id)).toEqual([s.a.clinicId]);
    expect(idsOf(theirs.clinics[0]?.appointments ?? [])).toEqual([s.others.id]);
    expect(JSON.stringify(theirs)).not.toContain(s.p.email);

    // Someone the service has never seen gets an empty export; nobody signed in gets 401.
    const stranger = await createUser(t.db);
    expect((await callerFor(t.db, stranger).patientData.myExport()).clinics).toEqual([]);
    // A token that claims the patient's phone number opens nothing: X3 does not match by phone
    // (the claim is not known to be verified).
    const claimer = { ...(await createUser(t.db)), phoneE164: s.p.phone };
    expect((await callerFor(t.db, claimer).patientData.myExport()).clinics).toEqual([]);
    expect(await codeOf(callerFor(t.db, null).patientData.myExport())).toBe("UNAUTHENTICATED");
  });
});
