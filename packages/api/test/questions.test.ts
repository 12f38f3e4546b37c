// Booking questions (CONTRACT §19, docs/questions.md): a service's questions are checked when it is
// saved; every booking route (B1, O4 signed in and as a guest with its L2 confirm, a hold booked
// with hold_id, R1) checks the answers with the one validator — errors at `answers.<key>`, nothing
// written — and keeps them as asked; a later change of the questions leaves them. Where answers must
// not appear over HTTP (events, webhooks, feeds, e-mails, the waitlist, V2): questions.http.test.ts.
import { TRPCError } from "@trpc/server";
import { and, count, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { ZodError } from "zod";
import { appointments, appointmentSeries, events, rowsOf } from "@clinic/db";
import { type ApiLimits, createContextInner, defaultApiLimits } from "../src/context.ts";
import { DomainError, fieldErrorsOf } from "../src/errors.ts";
import { manageToken } from "../src/modules/manage/index.ts";
import { appRouter } from "../src/router/index.ts";
import { createCallerFactory } from "../src/trpc.ts";
import {
  addService,
  bookableClinic,
  callerFor,
  codeOf,
  createUser,
  failureOf,
  pinnedNow,
  questionsOfEveryType,
  useTestDatabase,
} from "../testing/index.ts";

const t = useTestDatabase();
const createCaller = createCallerFactory(appRouter);
const roomy: ApiLimits = { ...defaultApiLimits, guestWritesPerMinute: 1000 };
/** Monday 15 March 2027, 09:00 UTC (10:00 in Berlin), two weeks after the pinned clock. */
const monday = Date.parse("2027-03-15T09:00:00.000Z");
const slot = (k: number) => new Date(monday + k * 30 * 60_000);

const everyType = questionsOfEveryType;

const goodAnswers = {
  reason: "Knee hurts",
  insurance: "private",
  consent: true,
  born: "1980-02-29",
  history: "none",
  symptoms: ["pain", "fever"],
  weight: 72.5,
  contact_email: "other@example.test",
  contact_phone: "+4930123456",
};

/** A clinic taking online bookings, with a service that asks every type. */
async function askingClinic() {
  const c = await bookableClinic(t.db, { timezone: "Europe/Berlin" });
  await c.asAdmin.clinics.update({ clinic_id: c.clinicId, online_booking: true, max_open_bookings_per_patient: 20 });
  const created = await c.asAdmin.services.create({
    clinic_id: c.clinicId,
    name: "Intake",
    duration_min: 30,
    provider_id: c.provider.id,
    questions: everyType,
  });
  const desk = callerFor(t.db, c.staff, { now: pinnedNow });
  return { ...c, service: created.id, questions: created.questions, desk };
}

/** The field paths of a refusal: a DomainError's errors, or the input schema's issues. */
function pathsOf(error: unknown): string[] {
  if (error instanceof DomainError) return (error.errors ?? []).map((e) => e.path);
  if (error instanceof TRPCError && error.cause instanceof ZodError)
    return fieldErrorsOf(error.cause).map((e) => e.path);
  throw error;
}

async function countIn(clinicId: string) {
  const [a] = await t.db.select({ n: count() }).from(appointments).where(eq(appointments.clinicId, clinicId));
  const [e] = await t.db.select({ n: count() }).from(events).where(eq(events.clinicId, clinicId));
  return { appointments: a?.n ?? 0, events: e?.n ?? 0 };
}

describe("a service's questions (§19)", () => {
  it("are stored as the API shows them: defaults filled in, replaced whole by an update", async () => {
    const c = await askingClinic();
    expect(c.questions.map((q) => q.key)).toEqual(everyType.map((q) => q.key));
    expect(c.questions[0]).toEqual({
      key: "reason",
      label: "Reason for the visit",
      type: "text",
      required: true,
      max_length: 200,
    });
    expect(c.questions.find((q) => q.key === "history")).toMatchObject({ required: false, max_length: 50 });
    expect(c.questions.find((q) => q.key === "weight")).not.toHaveProperty("max_length");
    const read = await c.desk.services.get({ clinic_id: c.clinicId, id: c.service });
    expect(read.questions).toEqual(c.questions);
    const online = await createCaller(
      createContextInner({ db: t.db, user: null, clientAddress: "198.51.100.1", now: pinnedNow }),
    ).onlineBooking.services({ clinic_id: c.clinicId });
    expect(online.services.find((s) => s.id === c.service)?.questions).toEqual(c.questions);
    const updated = await c.asAdmin.services.update({
      clinic_id: c.clinicId,
      id: c.service,
      questions: [{ key: "why", label: "Why?", type: "long_text" }],
    });
    expect(updated.questions).toEqual([
      { key: "why", label: "Why?", type: "long_text", required: false, max_length: 2000 },
    ]);
    // The same questions again change nothing: no second audit entry.
    const { entries: before } = await c.asAdmin.audit.list({ clinic_id: c.clinicId, resource_id: c.service });
    await c.asAdmin.services.update({
      clinic_id: c.clinicId,
      id: c.service,
      questions: [{ key: "why", label: "Why?", type: "long_text", required: false, max_length: 2000 }],
    });
    const { entries: after } = await c.asAdmin.audit.list({ clinic_id: c.clinicId, resource_id: c.service });
    expect(after.length).toBe(before.length);
  });

  it.each([
    ["a key that is not snake case", [{ key: "Reason", label: "R", type: "text" }], "questions.0.key"],
    ["a key of 41 characters", [{ key: `a${"b".repeat(40)}`, label: "R", type: "text" }], "questions.0.key"],
    [
      "a key twice",
      [
        { key: "a", label: "A", type: "text" },
        { key: "a", label: "B", type: "number" },
      ],
      "questions.1.key",
    ],
    ["an empty label", [{ key: "a", label: "  ", type: "text" }], "questions.0.label"],
    ["an unknown type", [{ key: "a", label: "A", type: "colour" }], "questions.0.type"],
    ["a choice without options", [{ key: "a", label: "A", type: "choice" }], "questions.0.options"],
    ["a choice with no option", [{ key: "a", label: "A", type: "choice", options: [] }], "questions.0.options"],
    [
      "51 options",
      [{ key: "a", label: "A", type: "multi_choice", options: Array.from({ length: 51 }, (_, i) => `o${String(i)}`) }],
      "questions.0.options",
    ],
    ["an option twice", [{ key: "a", label: "A", type: "choice", options: ["x", "x"] }], "questions.0.options"],
    ["options on a text", [{ key: "a", label: "A", type: "text", options: ["x"] }], "questions.0.options"],
    ["max_length on a number", [{ key: "a", label: "A", type: "number", max_length: 5 }], "questions.0.max_length"],
    ["a text longer than 2000", [{ key: "a", label: "A", type: "text", max_length: 2001 }], "questions.0.max_length"],
    [
      "a long text longer than 10000",
      [{ key: "a", label: "A", type: "long_text", max_length: 10_001 }],
      "questions.0.max_length",
    ],
    ["an unknown field", [{ key: "a", label: "A", type: "text", hint: "x" }], "questions.0"],
    [
      "31 questions",
      Array.from({ length: 31 }, (_, i) => ({ key: `q${String(i)}`, label: "Q", type: "text" })),
      "questions",
    ],
  ])("refuse %s (400 at its path) and keep the service as it was", async (_what, questions, path) => {
    const c = await askingClinic();
    const refused = await failureOf(
      c.asAdmin.services.update({ clinic_id: c.clinicId, id: c.service, questions: questions as never }),
    );
    expect(pathsOf(refused)).toContain(path);
    expect((await c.desk.services.get({ clinic_id: c.clinicId, id: c.service })).questions).toEqual(c.questions);
    const created = await failureOf(
      c.asAdmin.services.create({
        clinic_id: c.clinicId,
        name: "Other",
        duration_min: 30,
        questions: questions as never,
      }),
    );
    expect(pathsOf(created)).toContain(path);
  });
});

describe("answers on a booking (§19)", () => {
  it("are kept as asked and answered, in the questions' order, only the answered ones; a later change of the questions leaves them", async () => {
    const c = await askingClinic();
    const booked = await c.desk.appointments.book({
      clinic_id: c.clinicId,
      service_id: c.service,
      start: slot(0),
      patient: { name: "Pat Answer" },
      answers: { ...goodAnswers, history: null, contact_email: undefined },
    });
    expect(booked.answers).toEqual([
      { key: "reason", label: "Reason for the visit", type: "text", value: "Knee hurts" },
      { key: "insurance", label: "Insurance", type: "choice", value: "private" },
      { key: "consent", label: "I agree to the treatment terms", type: "boolean", value: true },
      { key: "born", label: "Date of birth", type: "date", value: "1980-02-29" },
      // In the options' order, whatever order they were given in.
      { key: "symptoms", label: "Symptoms", type: "multi_choice", value: ["fever", "pain"] },
      { key: "weight", label: "Weight (kg)", type: "number", value: 72.5 },
      { key: "contact_phone", label: "Another phone", type: "phone", value: "+4930123456" },
    ]);
    await c.asAdmin.services.update({
      clinic_id: c.clinicId,
      id: c.service,
      questions: [{ key: "reason", label: "What brings you here?", type: "choice", options: ["a", "b"] }],
    });
    const read = await c.desk.appointments.get({ clinic_id: c.clinicId, id: booked.id });
    expect(read.answers).toEqual(booked.answers);
    // A move and a status change keep them, and answer them.
    const moved = await c.desk.appointments.reschedule({ clinic_id: c.clinicId, id: booked.id, start: slot(2) });
    expect(moved.answers).toEqual(booked.answers);
    const atTheDesk = callerFor(t.db, c.staff, { now: () => slot(2) });
    const arrived = await atTheDesk.appointments.setStatus({ clinic_id: c.clinicId, id: booked.id, status: "arrived" });
    expect(arrived.answers).toEqual(booked.answers);
  });

  it.each([
    ["a missing required answer", { reason: undefined }, "answers.reason"],
    ["a blank required text", { reason: "   " }, "answers.reason"],
    ["an unknown key", { colour: "blue" }, "answers.colour"],
    ["a number for a text", { reason: 42 }, "answers.reason"],
    ["a text one character too long", { history: "x".repeat(51) }, "answers.history"],
    ["an option not offered", { insurance: "gold" }, "answers.insurance"],
    ["a list for a choice", { insurance: ["public"] }, "answers.insurance"],
    ["an option not offered among several", { symptoms: ["fever", "rash"] }, "answers.symptoms"],
    ["an option twice", { symptoms: ["fever", "fever"] }, "answers.symptoms"],
    ["a text for a multi choice", { symptoms: "fever" }, "answers.symptoms"],
    ["a consent refused", { consent: false }, "answers.consent"],
    ["a consent as text", { consent: "yes" }, "answers.consent"],
    ["a date that does not exist", { born: "1981-02-29" }, "answers.born"],
    ["a date with a time", { born: "1980-02-29T10:00" }, "answers.born"],
    ["a number as text", { weight: "72" }, "answers.weight"],
    ["a malformed e-mail", { contact_email: "not-an-address" }, "answers.contact_email"],
    ["a phone number without +", { contact_phone: "030123456" }, "answers.contact_phone"],
  ])("refuse %s: 400 at answers.<key>, nothing written", async (_what, change, path) => {
    const c = await askingClinic();
    const before = await countIn(c.clinicId);
    const answers: Record<string, unknown> = { ...goodAnswers, ...change };
    const refused = await failureOf(
      c.desk.appointments.book({
        clinic_id: c.clinicId,
        service_id: c.service,
        start: slot(0),
        patient: { name: "Pat Wrong" },
        answers,
      }),
    );
    expect(refused).toBeInstanceOf(DomainError);
    if (!(refused instanceof DomainError)) return;
    expect(refused.domainCode).toBe("VALIDATION_FAILED");
    expect(pathsOf(refused)).toEqual([path]);
    expect(await countIn(c.clinicId)).toEqual(before);
  });

  it("a text of exactly max_length is taken (counted in characters, not bytes, as every length of the API)", async () => {
    const c = await askingClinic();
    const booked = await c.desk.appointments.book({
      clinic_id: c.clinicId,
      service_id: c.service,
      start: slot(0),
      patient: { name: "Pat Long" },
      answers: { ...goodAnswers, history: "é".repeat(50) },
    });
    expect(booked.answers.find((a) => a.key === "history")?.value).toBe("é".repeat(50));
  });

  it("a service without questions takes {} or no answers, and refuses any key", async () => {
    const c = await bookableClinic(t.db);
    const plain = await addService(t.db, c.clinicId, { providerId: c.provider.id });
    const staff = callerFor(t.db, c.staff, { now: pinnedNow });
    const book = (k: number, answers?: Record<string, unknown>) =>
      staff.appointments.book({
        clinic_id: c.clinicId,
        service_id: plain,
        start: slot(k),
        patient: { name: "Pat Plain" },
        ...(answers === undefined ? {} : { answers }),
      });
    expect((await book(0)).answers).toEqual([]);
    expect((await book(1, {})).answers).toEqual([]);
    expect(pathsOf(await failureOf(book(2, { reason: "x" })))).toEqual(["answers.reason"]);
  });

  it("O4: a signed-in patient's booking and a guest's hold are checked; the guest's confirm (L2) keeps what O4 was given", async () => {
    const c = await askingClinic();
    const patientUser = await createUser(t.db);
    const patient = callerFor(t.db, patientUser, { now: pinnedNow });
    const mine = await patient.onlineBooking.book({
      clinic_id: c.clinicId,
      service_id: c.service,
      start: slot(0),
      patient: { name: "Pat Online" },
      answers: goodAnswers,
    });
    expect(mine.answers.map((a) => a.key)).toContain("reason");
    expect(
      pathsOf(
        await failureOf(
          patient.onlineBooking.book({
            clinic_id: c.clinicId,
            service_id: c.service,
            start: slot(1),
            patient: { name: "Pat Online" },
            answers: { ...goodAnswers, consent: false },
          }),
        ),
      ),
    ).toEqual(["answers.consent"]);

    const guest = createCaller(
      createContextInner({ db: t.db, user: null, clientAddress: "198.51.100.9", now: pinnedNow, limits: roomy }),
    );
    const before = await countIn(c.clinicId);
    expect(
      pathsOf(
        await failureOf(
          guest.onlineBooking.book({
            clinic_id: c.clinicId,
            service_id: c.service,
            start: slot(2),
            patient: { name: "Gus Guest", email: "gus@example.test" },
            answers: { ...goodAnswers, born: "yesterday" },
          }),
        ),
      ),
    ).toEqual(["answers.born"]);
    expect(await countIn(c.clinicId)).toEqual(before);
    const held = await guest.onlineBooking.book({
      clinic_id: c.clinicId,
      service_id: c.service,
      start: slot(2),
      patient: { name: "Gus Guest", email: "gus@example.test" },
      answers: goodAnswers,
    });
    expect(held.status).toBe("held");
    expect(held.answers.length).toBe(9);
    const [row] = rowsOf<{ key: string }>(
      await t.db.execute(
        sql`select manage_key as key from appointments where clinic_id = ${c.clinicId}::uuid and id = ${held.id}::uuid`,
      ),
    );
    const confirmed = await guest.manage.confirm({ token: manageToken(c.clinicId, held.id, row?.key ?? "") });
    expect(confirmed.status).toBe("booked");
    expect(confirmed.answers).toEqual(held.answers);
  });

  it("a hold (T3) asks nothing; booking it with hold_id checks the answers, and a refused one leaves the hold held", async () => {
    const c = await askingClinic();
    const patientUser = await createUser(t.db);
    const patient = callerFor(t.db, patientUser, { now: pinnedNow });
    const hold = await patient.onlineBooking.hold({ clinic_id: c.clinicId, service_id: c.service, start: slot(0) });
    expect(hold.answers).toEqual([]);
    const target = { clinic_id: c.clinicId, service_id: c.service, start: slot(0), hold_id: hold.id };
    const refused = await failureOf(
      patient.onlineBooking.book({ ...target, patient: { name: "Pat Hold" }, answers: { reason: "x" } }),
    );
    expect(pathsOf(refused)).toEqual(["answers.insurance"]);
    const [still] = await t.db
      .select({ status: appointments.status, answers: appointments.answers })
      .from(appointments)
      .where(and(eq(appointments.clinicId, c.clinicId), eq(appointments.id, hold.id)));
    expect(still).toEqual({ status: "held", answers: [] });
    const booked = await patient.onlineBooking.book({ ...target, patient: { name: "Pat Hold" }, answers: goodAnswers });
    expect(booked.id).toBe(hold.id);
    expect(booked.status).toBe("booked");
    expect(booked.answers.length).toBe(9);
  });

  it("R1: a series is checked once (its dry run too) and every occurrence keeps the answers", async () => {
    const c = await askingClinic();
    const request = {
      clinic_id: c.clinicId,
      service_id: c.service,
      start: slot(0),
      rrule: "FREQ=WEEKLY;COUNT=3",
      patient: { name: "Pat Course" },
    };
    const before = await countIn(c.clinicId);
    expect(
      pathsOf(await failureOf(c.desk.series.book({ ...request, dry_run: true, answers: { reason: "x" } }))),
    ).toEqual(["answers.insurance"]);
    expect(pathsOf(await failureOf(c.desk.series.book({ ...request, answers: { reason: "x" } })))).toEqual([
      "answers.insurance",
    ]);
    expect(await countIn(c.clinicId)).toEqual(before);
    const [noSeries] = await t.db
      .select({ n: count() })
      .from(appointmentSeries)
      .where(eq(appointmentSeries.clinicId, c.clinicId));
    expect(noSeries?.n).toBe(0);
    const series = await c.desk.series.book({ ...request, answers: goodAnswers });
    if ("dry_run" in series) throw new Error("expected a booked series");
    expect(series.occurrences).toHaveLength(3);
    for (const occurrence of series.occurrences) expect(occurrence.answers.length).toBe(9);
    const read = await c.desk.series.get({ clinic_id: c.clinicId, id: series.id });
    expect(read.occurrences.map((o) => o.answers)).toEqual(series.occurrences.map((o) => o.answers));
  });

  it("an Idempotency-Key replay with other answers is refused as a reused key", async () => {
    const c = await askingClinic();
    const request = {
      clinic_id: c.clinicId,
      service_id: c.service,
      start: slot(0),
      patient: { name: "Pat Key" },
      idempotency_key: "answers-key-1",
    };
    const first = await c.desk.appointments.book({ ...request, answers: goodAnswers });
    expect((await c.desk.appointments.book({ ...request, answers: goodAnswers })).id).toBe(first.id);
    expect(await codeOf(c.desk.appointments.book({ ...request, answers: { ...goodAnswers, reason: "Other" } }))).toBe(
      "IDEMPOTENCY_KEY_REUSED",
    );
  });
});
