// X1 and X3 over REST (CONTRACT §21, docs/patient-data.md#export-x1-x3): the paths, the
// exactly-one-identifier rule (400), who may call them, and X1's FHIR form — a Bundle (collection)
// of the Patient, their Appointments and QuestionnaireResponses, chosen by Accept and valid FHIR R4
// by an independent validator (fhirValidator.ts), its references resolving inside the Bundle.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { addService, bookableClinic, createUser, unique } from "@clinic/api/testing";
import { clinics } from "@clinic/db";
import { assertValidFhir } from "./fhirValidator.ts";
import { problemOf, request, useTestApp } from "./helpers.ts";

const t = useTestApp({ now: () => new Date("2027-03-01T00:00:00Z") });

interface Entry {
  fullUrl: string;
  resource: {
    resourceType: string;
    id: string;
    participant?: { actor?: { reference?: string } }[];
    supportingInformation?: { reference: string }[];
    subject?: { reference?: string };
  };
}
interface Bundle {
  resourceType: string;
  type: string;
  entry: Entry[];
}

async function scene() {
  const db = t.handle.db;
  const c = await bookableClinic(db);
  const service = await addService(db, c.clinicId, { name: "Intake", providerId: c.provider.id });
  await db.update(clinics).set({ onlineBooking: true }).where(eq(clinics.id, c.clinicId));
  const patched = await request(t.app, {
    method: "PATCH",
    url: `/v1/services/${service}?clinic_id=${c.clinicId}`,
    token: c.admin.token,
    body: {
      questions: [
        { key: "allergies", label: "Allergies", type: "long_text" },
        { key: "first_visit", label: "First visit?", type: "boolean" },
        { key: "born", label: "Date of birth", type: "date" },
      ],
    },
  });
  expect(patched.statusCode).toBe(200);
  const tag = unique();
  const email = `rex.${tag}@example.test`;
  const phone = `+4930${String(Math.floor(10_000_000 + Math.random() * 89_999_999))}`;
  const account = await createUser(db, { email });
  const book = async (start: string, body: Record<string, unknown>, token = c.staff.token, url?: string) => {
    const response = await request(t.app, {
      method: "POST",
      url: url ?? `/v1/appointments?clinic_id=${c.clinicId}`,
      token,
      body: { service_id: service, start, ...body },
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json<{ id: string }>().id;
  };
  const withAnswers = await book("2027-03-15T09:00:00Z", {
    patient: { name: `Rex ${tag}`, email: email.toUpperCase(), phone_e164: phone },
    notes: "Bring the X-ray",
    answers: { allergies: "none known", first_visit: true, born: "1980-02-29" },
  });
  const plain = await book("2027-03-15T10:00:00Z", { patient: { name: `Rex ${tag}`, phone_e164: phone } });
  const own = await book(
    "2027-03-16T09:00:00Z",
    { patient: { name: `Rex ${tag}` }, answers: { allergies: "pollen" } },
    account.token,
    `/v1/booking/clinics/${c.clinicId}/appointments`,
  );
  const other = await book("2027-03-15T11:00:00Z", {
    patient: { name: "Someone Else", email: `else.${tag}@example.test` },
  });
  return { ...c, service, email, phone, account, withAnswers, plain, own, other };
}

const exportUrl = (clinicId: string, query: string) => `/v1/clinics/${clinicId}/patients/export?${query}`;

/** The facade's base URL, from the Patient's fullUrl. */
const baseOf = (bundle: Bundle) => (bundle.entry[0]?.fullUrl ?? "").replace(/\/Patient\/[^/]+$/, "");

/** Every reference of the Bundle's resources resolves to an entry (by the entry's fullUrl). */
function expectReferencesResolve(bundle: Bundle, base: string) {
  const urls = new Set(bundle.entry.map((e) => e.fullUrl));
  for (const { resource } of bundle.entry) {
    const references = [
      ...(resource.participant ?? []).map((p) => p.actor?.reference),
      ...(resource.supportingInformation ?? []).map((s) => s.reference),
      resource.subject?.reference,
    ].filter((r): r is string => r !== undefined && /^(Patient|QuestionnaireResponse)\//.test(r));
    for (const reference of references) expect(urls, reference).toContain(`${base}/${reference}`);
  }
}

describe("GET /v1/clinics/{clinic_id}/patients/export (X1)", () => {
  it("answers JSON by default, and a valid FHIR R4 Bundle for Accept: application/fhir+json", async () => {
    const s = await scene();
    const json = await request(t.app, {
      method: "GET",
      url: exportUrl(s.clinicId, `email=${encodeURIComponent(s.email.toUpperCase())}`),
      token: s.admin.token,
    });
    expect(json.statusCode, json.body).toBe(200);
    expect(json.headers["content-type"]).toMatch(/^application\/json/);
    expect(json.headers.vary).toMatch(/Accept/i);
    const body = json.json<{ appointments: { id: string; answers: unknown[] }[]; patient: { user_ids: string[] } }>();
    expect(body.appointments.map((a) => a.id).sort()).toEqual([s.withAnswers, s.own].sort());
    expect(body.patient.user_ids).toEqual([s.account.id]);
    expect(json.body).not.toContain(s.other);

    const fhir = await request(t.app, {
      method: "GET",
      url: exportUrl(s.clinicId, `email=${encodeURIComponent(s.email)}`),
      token: s.admin.token,
      headers: { accept: "application/fhir+json" },
    });
    expect(fhir.statusCode, fhir.body).toBe(200);
    expect(fhir.headers["content-type"]).toMatch(/^application\/fhir\+json/);
    const bundle = fhir.json<Bundle>();
    assertValidFhir(bundle);
    expect(bundle).toMatchObject({ resourceType: "Bundle", type: "collection" });
    const types = bundle.entry.map((e) => e.resource.resourceType);
    expect(types).toEqual(["Patient", "Appointment", "Appointment", "QuestionnaireResponse", "QuestionnaireResponse"]);
    const patient = bundle.entry[0]?.resource;
    expect(patient).toMatchObject({
      id: s.account.id,
      identifier: [{ system: "urn:clinic-scheduling:user", value: s.account.id }],
      telecom: [
        { system: "email", value: s.email },
        { system: "phone", value: s.phone },
      ],
    });
    for (const entry of bundle.entry) assertValidFhir(entry.resource);
    const base = baseOf(bundle);
    expect(base).toMatch(/^http:\/\/[^/]+\/fhir\/R4$/);
    expect(bundle.entry[0]?.fullUrl).toBe(`${base}/Patient/${s.account.id}`);
    expectReferencesResolve(bundle, base);
    for (const entry of bundle.entry.filter((e) => e.resource.resourceType === "Appointment"))
      expect(entry.resource.participant?.map((p) => p.actor?.reference)).toContain(`Patient/${s.account.id}`);
    expect(fhir.body).toContain("none known");
    expect(fhir.body).not.toContain(s.other.replaceAll("-", ""));
  });

  it("gives a patient without an account a Patient of their own, and keeps JSON when Accept prefers it", async () => {
    const s = await scene();
    const fhir = await request(t.app, {
      method: "GET",
      url: exportUrl(s.clinicId, `phone_e164=${encodeURIComponent(s.phone)}`),
      token: s.admin.token,
      headers: { accept: "application/fhir+json, application/json;q=0.5" },
    });
    expect(fhir.statusCode, fhir.body).toBe(200);
    const bundle = fhir.json<Bundle>();
    assertValidFhir(bundle);
    const [patient] = bundle.entry;
    expect(patient?.resource.resourceType).toBe("Patient");
    expect(patient?.resource.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(bundle.entry.filter((e) => e.resource.resourceType === "Appointment")).toHaveLength(2);
    expectReferencesResolve(bundle, baseOf(bundle));
    // The same request again names the patient the same.
    const again = await request(t.app, {
      method: "GET",
      url: exportUrl(s.clinicId, `phone_e164=${encodeURIComponent(s.phone)}`),
      token: s.admin.token,
      headers: { accept: "application/fhir+json" },
    });
    expect(again.json<Bundle>().entry[0]?.resource.id).toBe(patient?.resource.id);

    for (const accept of [
      "application/json, application/fhir+json;q=0.5",
      "*/*",
      "application/json, application/fhir+json",
    ]) {
      const json = await request(t.app, {
        method: "GET",
        url: exportUrl(s.clinicId, `phone_e164=${encodeURIComponent(s.phone)}`),
        token: s.admin.token,
        headers: { accept },
      });
      expect(json.headers["content-type"], accept).toMatch(/^application\/json/);
    }
  });

  it("refuses anything but exactly one identifier (400), and anyone but a CLINIC_ADMIN of the clinic", async () => {
    const s = await scene();
    for (const query of ["", `email=${s.email}&phone_e164=${encodeURIComponent(s.phone)}`, "email=not-an-address"]) {
      const response = await request(t.app, {
        method: "GET",
        url: exportUrl(s.clinicId, query),
        token: s.admin.token,
        headers: { accept: "application/fhir+json" },
      });
      expect(response.statusCode, query).toBe(400);
      expect(problemOf(response).code).toBe("VALIDATION_FAILED");
    }
    const query = `email=${encodeURIComponent(s.email)}`;
    const staff = await request(t.app, { method: "GET", url: exportUrl(s.clinicId, query), token: s.staff.token });
    expect(staff.statusCode).toBe(403);
    const other = await bookableClinic(t.handle.db);
    const outsider = await request(t.app, {
      method: "GET",
      url: exportUrl(s.clinicId, query),
      token: other.admin.token,
    });
    expect(outsider.statusCode).toBe(403);
    expect(outsider.body).not.toContain(s.email);
    const anonymous = await request(t.app, { method: "GET", url: exportUrl(s.clinicId, query) });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe("GET /v1/me/export (X3)", () => {
  it("answers the caller's own data in every clinic, and 401 without a token", async () => {
    const s = await scene();
    const mine = await request(t.app, { method: "GET", url: "/v1/me/export", token: s.account.token });
    expect(mine.statusCode, mine.body).toBe(200);
    const body = mine.json<{
      user: { id: string };
      clinics: { clinic: { id: string }; appointments: { id: string }[] }[];
    }>();
    expect(body.user.id).toBe(s.account.id);
    expect(body.clinics.map((c) => c.clinic.id)).toEqual([s.clinicId]);
    expect(body.clinics[0]?.appointments.map((a) => a.id).sort()).toEqual([s.withAnswers, s.own].sort());
    expect(mine.body).not.toContain(s.other);
    expect((await request(t.app, { method: "GET", url: "/v1/me/export" })).statusCode).toBe(401);
  });
});

describe("the OpenAPI document", () => {
  it("shows X1 answering JSON or FHIR, and X3", async () => {
    const doc = (await request(t.app, { method: "GET", url: "/v1/openapi.json" })).json<{
      paths: Record<string, { get?: { responses: Record<string, { content?: Record<string, unknown> }> } }>;
    }>();
    const x1 = doc.paths["/v1/clinics/{clinic_id}/patients/export"]?.get?.responses["200"]?.content ?? {};
    expect(Object.keys(x1)).toEqual(["application/json", "application/fhir+json"]);
    expect(doc.paths["/v1/me/export"]?.get).toBeDefined();
  });
});
