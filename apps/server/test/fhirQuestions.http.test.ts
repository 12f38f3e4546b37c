// Booking questions over FHIR (CONTRACT §19, docs/fhir.md#questionnaires): a service's questions
// are a Questionnaire linked from its HealthcareService; $book takes the answers as a
// QuestionnaireResponse in `questionnaire-response`; the booked Appointment references its
// QuestionnaireResponse in supportingInformation, which reads back. Every resource is checked by
// the independent R4 validator; bad answers are a 400 OperationOutcome naming the element, and
// nothing is booked.
import { describe, expect, it } from "vitest";
import type { LightMyRequestResponse } from "fastify";
import type {
  Appointment,
  Bundle,
  CapabilityStatement,
  FhirResource,
  HealthcareService,
  OperationOutcome,
  Parameters,
  ParametersParameter,
  Questionnaire,
  QuestionnaireResponse,
  QuestionnaireResponseItem,
} from "fhir/r4.js";
import { addService, bookableClinic, createUser, questionsOfEveryType } from "@clinic/api/testing";
import { useTestApp } from "./helpers.ts";
import { assertValidFhir } from "./fhirValidator.ts";

// A Monday, an hour before the fixtures' hours open (09:00–17:00 UTC, Monday to Friday).
const now = new Date("2027-03-15T08:00:00.000Z");
const t = useTestApp({ now: () => now });
const hex = (uuid: string) => uuid.replaceAll("-", "");
const base = "http://localhost:80/fhir/R4";

const everyType = questionsOfEveryType;

/** A clinic with a service that asks every type, and one that asks nothing. */
async function askingClinic() {
  const c = await bookableClinic(t.handle.db);
  const created = await c.asAdmin.services.create({
    clinic_id: c.clinicId,
    name: "Intake",
    duration_min: 30,
    provider_id: c.provider.id,
    questions: everyType,
  });
  const plain = await addService(t.handle.db, c.clinicId, { name: "Checkup", providerId: c.provider.id });
  const questionnaireId = `${hex(c.clinicId)}${hex(created.id)}`;
  return {
    ...c,
    service: created.id,
    plain,
    questionnaireId,
    questionnaireUrl: `${base}/Questionnaire/${questionnaireId}`,
    practitioner: `Practitioner/${hex(c.clinicId)}${hex(c.provider.id)}`,
  };
}
type Clinic = Awaited<ReturnType<typeof askingClinic>>;

function send(method: "GET" | "POST", url: string, token: string, body?: unknown): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method,
    url: `/fhir/R4${url}`,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/fhir+json" }),
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

/** A 200 resource of the given type, valid R4, with its ETag. */
function resourceOf<T extends { resourceType: string; meta?: { versionId?: string } }>(
  response: LightMyRequestResponse,
  type: T["resourceType"],
  status = 200,
): T {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers["content-type"]).toBe("application/fhir+json; charset=utf-8");
  const resource = response.json<T>();
  assertValidFhir(resource);
  expect(resource.resourceType).toBe(type);
  if (type !== "Bundle" && type !== "CapabilityStatement")
    expect(response.headers.etag).toBe(`W/"${resource.meta?.versionId ?? ""}"`);
  return resource;
}

function outcomeOf(response: LightMyRequestResponse, status: number, code: string): OperationOutcome {
  expect(response.statusCode, response.body).toBe(status);
  const outcome = response.json<OperationOutcome>();
  assertValidFhir(outcome);
  expect(outcome.issue[0]?.details?.text).toBe(code);
  const parts = (outcome.issue[0]?.diagnostics ?? "").split("; ");
  expect(parts, outcome.issue[0]?.diagnostics).toEqual([...new Set(parts)]);
  return outcome;
}

/** The free proposals of a service on Monday morning. */
async function find(c: Clinic, service = c.service): Promise<Appointment[]> {
  const response = await send("POST", "/Appointment/$find", c.staff.token, {
    resourceType: "Parameters",
    parameter: [
      { name: "start", valueDateTime: "2027-03-15T09:00:00Z" },
      { name: "end", valueDateTime: "2027-03-15T12:00:00Z" },
      { name: "service-type", valueCoding: { system: "urn:clinic-scheduling:service", code: service } },
      { name: "practitioner", valueReference: { reference: c.practitioner } },
    ],
  } satisfies Parameters);
  const bundle = resourceOf<Bundle>(response, "Bundle");
  return (bundle.entry ?? []).map((e) => e.resource as Appointment);
}

const response = (
  item: QuestionnaireResponseItem[],
  extra: Partial<QuestionnaireResponse> = {},
): QuestionnaireResponse => ({ resourceType: "QuestionnaireResponse", status: "completed", item, ...extra });

/** Every question answered, as a form would send it. */
const goodItems = (): QuestionnaireResponseItem[] => [
  { linkId: "reason", text: "Reason for the visit", answer: [{ valueString: "Knee hurts" }] },
  { linkId: "insurance", answer: [{ valueCoding: { code: "private" } }] },
  { linkId: "consent", answer: [{ valueBoolean: true }] },
  { linkId: "born", answer: [{ valueDate: "1980-02-29" }] },
  { linkId: "history", answer: [{ valueString: "none" }] },
  { linkId: "symptoms", answer: [{ valueString: "pain" }, { valueString: "fever" }] },
  { linkId: "weight", answer: [{ valueDecimal: 72.5 }] },
  { linkId: "contact_email", answer: [{ valueString: "other@example.test" }] },
  { linkId: "contact_phone", answer: [{ valueString: "+4930123456" }] },
];

/** $book's Parameters (IHE): the proposal with its patient, and the parts given. */
function bookParameters(
  proposal: Appointment,
  parts: ParametersParameter[],
  patient?: { id: string; name: string },
): Parameters {
  const who = patient ?? { id: "", name: "Pat Patient" };
  return {
    resourceType: "Parameters",
    parameter: [
      {
        name: "appointment-resource",
        resource: {
          ...proposal,
          participant: [
            ...proposal.participant,
            {
              actor: { ...(patient ? { reference: `Patient/${who.id}` } : {}), display: who.name },
              status: "accepted",
            },
          ],
        },
      },
      ...parts,
    ],
  };
}

/** The one Appointment of $book's (or, 201, $hold's) Bundle. */
function bookedOf(answer: LightMyRequestResponse, status = 200): Appointment {
  const bundle = resourceOf<Bundle>(answer, "Bundle", status);
  const appointment = bundle.entry?.[0]?.resource;
  if (appointment?.resourceType !== "Appointment") throw new Error("no Appointment in the Bundle");
  assertValidFhir(appointment);
  return appointment;
}

async function appointmentsIn(c: Clinic) {
  return (await c.asStaff.appointments.list({ clinic_id: c.clinicId, status: "held,booked" })).appointments;
}

describe("FHIR: booking questions as Questionnaire and QuestionnaireResponse (§19)", () => {
  it("a service with questions is a Questionnaire, linked from its HealthcareService; the CapabilityStatement says so", async () => {
    const c = await askingClinic();
    const service = resourceOf<HealthcareService>(
      await send("GET", `/HealthcareService/${c.questionnaireId}`, c.staff.token),
      "HealthcareService",
    );
    expect(service.extension).toEqual([
      { url: "urn:clinic-scheduling:fhir:StructureDefinition/questionnaire", valueCanonical: c.questionnaireUrl },
    ]);
    const questionnaire = resourceOf<Questionnaire>(
      await send("GET", `/Questionnaire/${c.questionnaireId}`, c.custom.token),
      "Questionnaire",
    );
    expect(questionnaire).toMatchObject({
      id: c.questionnaireId,
      url: c.questionnaireUrl,
      status: "active",
      title: "Intake",
      subjectType: ["Patient"],
    });
    expect(questionnaire.useContext?.[0]?.valueReference?.reference).toBe(`HealthcareService/${c.questionnaireId}`);
    expect(questionnaire.item).toEqual([
      { linkId: "reason", text: "Reason for the visit", required: true, type: "string", maxLength: 200 },
      {
        linkId: "insurance",
        text: "Insurance",
        required: true,
        type: "choice",
        answerOption: [{ valueString: "public" }, { valueString: "private" }, { valueString: "none" }],
      },
      { linkId: "consent", text: "I agree to the treatment terms", required: true, type: "boolean" },
      { linkId: "born", text: "Date of birth", required: true, type: "date" },
      { linkId: "history", text: "Medical history", required: false, type: "text", maxLength: 50 },
      {
        linkId: "symptoms",
        text: "Symptoms",
        required: false,
        type: "choice",
        repeats: true,
        answerOption: [{ valueString: "fever" }, { valueString: "cough" }, { valueString: "pain" }],
      },
      { linkId: "weight", text: "Weight (kg)", required: false, type: "decimal" },
      expect.objectContaining({ linkId: "contact_email", type: "string", required: false }),
      expect.objectContaining({ linkId: "contact_phone", type: "string", required: false }),
    ]);

    // Found by its canonical URL (how a client resolves QuestionnaireResponse.questionnaire) and by clinic.
    const byUrl = resourceOf<Bundle>(
      await send("GET", `/Questionnaire?url=${encodeURIComponent(c.questionnaireUrl)}`, c.staff.token),
      "Bundle",
    );
    expect(byUrl.entry?.map((e) => e.resource?.id)).toEqual([c.questionnaireId]);
    const byClinic = resourceOf<Bundle>(
      await send("GET", `/Questionnaire?clinic=${c.clinicId}`, c.staff.token),
      "Bundle",
    );
    expect(byClinic.entry?.map((e) => e.resource?.id)).toEqual([c.questionnaireId]);
    for (const entry of byClinic.entry ?? []) assertValidFhir(entry.resource);

    // A service that asks nothing has no Questionnaire and no link.
    const plainId = `${hex(c.clinicId)}${hex(c.plain)}`;
    const plain = resourceOf<HealthcareService>(
      await send("GET", `/HealthcareService/${plainId}`, c.staff.token),
      "HealthcareService",
    );
    expect(plain.extension).toBeUndefined();
    outcomeOf(await send("GET", `/Questionnaire/${plainId}`, c.staff.token), 404, "NOT_FOUND");
    outcomeOf(await send("GET", "/Questionnaire/nothing", c.staff.token), 404, "NOT_FOUND");
    // Another clinic's: refused as HealthcareService is (a clinic the caller is not a member of: 403, §3).
    const other = await askingClinic();
    outcomeOf(await send("GET", `/Questionnaire/${other.questionnaireId}`, c.staff.token), 403, "FORBIDDEN");
    const outsider = await createUser(t.handle.db);
    outcomeOf(await send("GET", `/Questionnaire/${c.questionnaireId}`, outsider.token), 403, "FORBIDDEN");

    const metadata = resourceOf<CapabilityStatement>(
      await t.app.inject({ method: "GET", url: "/fhir/R4/metadata" }),
      "CapabilityStatement",
    );
    const served = metadata.rest?.[0]?.resource ?? [];
    expect(served.find((r) => r.type === "Questionnaire")?.interaction?.map((i) => i.code)).toEqual([
      "read",
      "search-type",
    ]);
    expect(served.find((r) => r.type === "QuestionnaireResponse")?.interaction?.map((i) => i.code)).toEqual(["read"]);
  });

  it("$book with a questionnaire-response books the answers; the Appointment points at a QuestionnaireResponse that reads back", async () => {
    const c = await askingClinic();
    const patient = await createUser(t.handle.db);
    const [first] = await find(c);
    if (!first) throw new Error("nothing proposed");
    const booked = bookedOf(
      await send(
        "POST",
        "/Appointment/$book",
        c.staff.token,
        bookParameters(
          first,
          [{ name: "questionnaire-response", resource: response(goodItems(), { questionnaire: c.questionnaireUrl }) }],
          { id: patient.id, name: "Pat Patient" },
        ),
      ),
    );
    expect(booked.status).toBe("booked");
    const id = booked.id ?? "";
    expect(booked.supportingInformation).toEqual([{ reference: `QuestionnaireResponse/${id}` }]);

    // The answers are the booking's, as /v1 shows them.
    const v1Id = booked.identifier?.[0]?.value ?? "";
    const stored = await c.asStaff.appointments.get({ clinic_id: c.clinicId, id: v1Id });
    expect(Object.fromEntries(stored.answers.map((a) => [a.key, a.value]))).toEqual({
      reason: "Knee hurts",
      insurance: "private",
      consent: true,
      born: "1980-02-29",
      history: "none",
      symptoms: ["fever", "pain"],
      weight: 72.5,
      contact_email: "other@example.test",
      contact_phone: "+4930123456",
    });

    const read = resourceOf<QuestionnaireResponse>(
      await send("GET", `/QuestionnaireResponse/${id}`, c.staff.token),
      "QuestionnaireResponse",
    );
    expect(read).toMatchObject({
      id,
      status: "completed",
      questionnaire: c.questionnaireUrl,
      subject: { reference: `Patient/${patient.id}`, display: "Pat Patient" },
      authored: now.toISOString(),
    });
    expect(read.item).toEqual([
      { linkId: "reason", text: "Reason for the visit", answer: [{ valueString: "Knee hurts" }] },
      { linkId: "insurance", text: "Insurance", answer: [{ valueString: "private" }] },
      { linkId: "consent", text: "I agree to the treatment terms", answer: [{ valueBoolean: true }] },
      { linkId: "born", text: "Date of birth", answer: [{ valueDate: "1980-02-29" }] },
      { linkId: "history", text: "Medical history", answer: [{ valueString: "none" }] },
      { linkId: "symptoms", text: "Symptoms", answer: [{ valueString: "fever" }, { valueString: "pain" }] },
      { linkId: "weight", text: "Weight (kg)", answer: [{ valueDecimal: 72.5 }] },
      { linkId: "contact_email", text: "Another e-mail", answer: [{ valueString: "other@example.test" }] },
      { linkId: "contact_phone", text: "Another phone", answer: [{ valueString: "+4930123456" }] },
    ]);
    // Its questionnaire resolves to the service's Questionnaire.
    const questionnaire = resourceOf<Questionnaire>(
      await send("GET", (read.questionnaire ?? "").replace("http://localhost:80/fhir/R4", ""), c.staff.token),
      "Questionnaire",
    );
    expect(questionnaire.item?.map((i) => i.linkId)).toEqual(read.item?.map((i) => i.linkId));

    // The Appointment read and search carry the reference too.
    const again = resourceOf<Appointment>(await send("GET", `/Appointment/${id}`, c.staff.token), "Appointment");
    expect(again.supportingInformation).toEqual(booked.supportingInformation);

    // Who reads it: the clinic's staff and the patient themself; nobody else (as the Appointment).
    resourceOf<QuestionnaireResponse>(
      await send("GET", `/QuestionnaireResponse/${id}`, patient.token),
      "QuestionnaireResponse",
    );
    const otherPatient = await createUser(t.handle.db);
    outcomeOf(await send("GET", `/QuestionnaireResponse/${id}`, otherPatient.token), 403, "FORBIDDEN");
    outcomeOf(await send("GET", `/QuestionnaireResponse/${id}`, c.custom.token), 403, "FORBIDDEN");
    const other = await askingClinic();
    outcomeOf(await send("GET", `/QuestionnaireResponse/${id}`, other.staff.token), 403, "FORBIDDEN");
    // Another clinic's id with the caller's own clinic in it: not found.
    outcomeOf(
      await send("GET", `/QuestionnaireResponse/${hex(other.clinicId)}${id.slice(32)}`, other.staff.token),
      404,
      "NOT_FOUND",
    );
    outcomeOf(await send("GET", "/QuestionnaireResponse/nothing", c.staff.token), 404, "NOT_FOUND");
    // Read only: no search.
    outcomeOf(await send("GET", "/QuestionnaireResponse", c.staff.token), 404, "NOT_FOUND");
  });

  it("an appointment without answers has no supportingInformation and no QuestionnaireResponse", async () => {
    const c = await askingClinic();
    const [first] = await find(c, c.plain);
    if (!first) throw new Error("nothing proposed");
    const booked = bookedOf(await send("POST", "/Appointment/$book", c.staff.token, bookParameters(first, [])));
    expect(booked.supportingInformation).toBeUndefined();
    outcomeOf(await send("GET", `/QuestionnaireResponse/${booked.id ?? ""}`, c.staff.token), 404, "NOT_FOUND");
  });

  it("$hold, then $book of the hold by reference with the answers (one answer of a multi_choice, an integer number)", async () => {
    const c = await askingClinic();
    const [first] = await find(c);
    if (!first?.id) throw new Error("nothing proposed");
    const reference = { name: "appointment-reference", valueReference: { reference: `Appointment/${first.id}` } };
    const answers = response([
      { linkId: "reason", answer: [{ valueString: "Check" }] },
      { linkId: "insurance", answer: [{ valueString: "public" }] },
      { linkId: "consent", answer: [{ valueBoolean: true }] },
      { linkId: "born", answer: [{ valueDate: "1990-01-01" }] },
      { linkId: "symptoms", answer: [{ valueCoding: { code: "cough" } }] },
      { linkId: "weight", answer: [{ valueInteger: 80 }] },
      { linkId: "history", answer: [] },
    ]);
    // A hold takes no answers.
    outcomeOf(
      await send("POST", "/Appointment/$hold", c.staff.token, {
        resourceType: "Parameters",
        parameter: [reference, { name: "questionnaire-response", resource: answers }],
      }),
      400,
      "VALIDATION_FAILED",
    );
    const held = bookedOf(
      await send("POST", "/Appointment/$hold", c.staff.token, { resourceType: "Parameters", parameter: [reference] }),
      201,
    );
    expect(held.status).toBe("pending");
    expect(held.supportingInformation).toBeUndefined();
    const booked = bookedOf(
      await send("POST", "/Appointment/$book", c.staff.token, {
        resourceType: "Parameters",
        parameter: [
          { name: "appointment-reference", valueReference: { reference: `Appointment/${held.id ?? ""}` } },
          { name: "patient", valueString: "Pat Patient" },
          { name: "questionnaire-response", resource: answers },
        ],
      }),
    );
    expect(booked).toMatchObject({ id: held.id, status: "booked" });
    const read = resourceOf<QuestionnaireResponse>(
      await send("GET", `/QuestionnaireResponse/${booked.id ?? ""}`, c.staff.token),
      "QuestionnaireResponse",
    );
    expect(read.subject).toEqual({ display: "Pat Patient" });
    expect(read.item?.find((i) => i.linkId === "symptoms")?.answer).toEqual([{ valueString: "cough" }]);
    expect(read.item?.find((i) => i.linkId === "weight")?.answer).toEqual([{ valueDecimal: 80 }]);
    expect(read.item?.map((i) => i.linkId)).not.toContain("history");
  });

  it("bad answers are a 400 OperationOutcome naming the element (expression), and nothing is booked", async () => {
    const c = await askingClinic();
    const [first] = await find(c);
    if (!first) throw new Error("nothing proposed");
    const at = "Parameters.parameter[1].resource";
    const items = goodItems();
    const without = (linkId: string) => items.filter((i) => i.linkId !== linkId);
    const replaced = (item: QuestionnaireResponseItem) => items.map((i) => (i.linkId === item.linkId ? item : i));
    const cases: [string, FhirResource, string, RegExp][] = [
      ["a required answer missing", response(without("consent")), at, /item "consent" is required/],
      [
        "a consent not given",
        response(replaced({ linkId: "consent", answer: [{ valueBoolean: false }] })),
        `${at}.item[2]`,
        /"consent": must be accepted/,
      ],
      [
        "an unknown linkId",
        response([...items, { linkId: "shoe_size", answer: [{ valueInteger: 42 }] }]),
        `${at}.item[9].linkId`,
        /"shoe_size" is not a question of this service/,
      ],
      [
        "an option not offered",
        response(replaced({ linkId: "insurance", answer: [{ valueString: "gold" }] })),
        `${at}.item[1]`,
        /"insurance": is not one of the options/,
      ],
      [
        "a value of the wrong type",
        response(replaced({ linkId: "weight", answer: [{ valueString: "heavy" }] })),
        `${at}.item[6]`,
        /"weight": must be a number/,
      ],
      [
        "a text too long",
        response(replaced({ linkId: "history", answer: [{ valueString: "x".repeat(51) }] })),
        `${at}.item[4]`,
        /at most 50 characters/,
      ],
      [
        "two answers to a single choice",
        response(replaced({ linkId: "insurance", answer: [{ valueString: "public" }, { valueString: "none" }] })),
        `${at}.item[1]`,
        /takes one answer/,
      ],
      [
        "an answer without a value",
        response(replaced({ linkId: "reason", answer: [{}] })),
        `${at}.item[0].answer[0]`,
        /exactly one value\[x\]/,
      ],
      [
        "an answer of a type not read",
        response(replaced({ linkId: "reason", answer: [{ valueUri: "http://x" }] })),
        `${at}.item[0].answer[0].valueUri`,
        /valueUri is not read here/,
      ],
      [
        "the same linkId twice",
        response([...items, { linkId: "reason", answer: [{ valueString: "again" }] }]),
        `${at}.item[9]`,
        /answered twice/,
      ],
      [
        "nested items",
        response(replaced({ linkId: "reason", item: [{ linkId: "x" }] })),
        `${at}.item[0].item`,
        /nested items/,
      ],
      [
        "another service's Questionnaire",
        response(items, { questionnaire: `${base}/Questionnaire/${hex(c.clinicId)}${hex(c.plain)}` }),
        `${at}.questionnaire`,
        /must be the booked service's Questionnaire/,
      ],
      ["answers not completed", response(items, { status: "in-progress" }), `${at}.status`, /must be completed/],
      ["a linkId that is not a string", response([{ linkId: 7 } as never]), `${at}.item[0].linkId`, /linkId/],
      ["not a QuestionnaireResponse", { resourceType: "Patient" }, `${at}.resourceType`, /QuestionnaireResponse/],
    ];
    for (const [name, resource, expression, diagnostics] of cases) {
      const outcome = outcomeOf(
        await send(
          "POST",
          "/Appointment/$book",
          c.staff.token,
          bookParameters(first, [{ name: "questionnaire-response", resource }]),
        ),
        400,
        "VALIDATION_FAILED",
      );
      expect(outcome.issue[0]?.expression, name).toEqual([expression]);
      expect(outcome.issue[0]?.diagnostics, name).toMatch(diagnostics);
    }
    // Without any answers the required ones are missing; a part without a resource, or twice, is refused.
    const none = outcomeOf(
      await send("POST", "/Appointment/$book", c.staff.token, bookParameters(first, [])),
      400,
      "VALIDATION_FAILED",
    );
    expect(none.issue[0]?.diagnostics).toMatch(/questionnaire-response: the service asks questions: item "reason"/);
    expect(none.issue[0]?.expression).toEqual(["Parameters"]);
    const withoutResource = outcomeOf(
      await send(
        "POST",
        "/Appointment/$book",
        c.staff.token,
        bookParameters(first, [{ name: "questionnaire-response", valueString: "yes" }]),
      ),
      400,
      "VALIDATION_FAILED",
    );
    expect(withoutResource.issue[0]?.expression).toEqual(["Parameters.parameter[1]"]);
    const twice = outcomeOf(
      await send(
        "POST",
        "/Appointment/$book",
        c.staff.token,
        bookParameters(first, [
          { name: "questionnaire-response", resource: response(items) },
          { name: "questionnaire-response", resource: response(items) },
        ]),
      ),
      400,
      "VALIDATION_FAILED",
    );
    expect(twice.issue[0]?.expression).toEqual(["Parameters.parameter[2]"]);
    // The proposed Appointment as the body (v1.2's form) cannot carry answers: told how to.
    const bare = outcomeOf(
      await send("POST", "/Appointment/$book", c.staff.token, {
        ...first,
        participant: [...first.participant, { actor: { display: "Pat" }, status: "accepted" }],
      }),
      400,
      "VALIDATION_FAILED",
    );
    expect(bare.issue[0]?.diagnostics).toMatch(/book with Parameters holding a questionnaire-response part/);

    // Nothing was booked: the slot is still proposed, and the clinic has no appointment.
    expect((await find(c)).map((a) => a.id)).toContain(first.id);
    expect(await appointmentsIn(c)).toEqual([]);
  });
});
