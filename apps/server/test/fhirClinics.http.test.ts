// Which clinic a FHIR search answers (CONTRACT §16 v1.3, docs/fhir.md#which-clinic): without a
// clinic, every clinic the caller may see (a member: their clinics; a patient: their own
// appointments; a global ADMIN: every clinic), narrowed by `clinic` and by references that name
// a clinic; paging and `total` across clinics; finding an Appointment by its /v1 id; and
// authentication judged before anything else.
import { describe, expect, it } from "vitest";
import type { LightMyRequestResponse } from "fastify";
import type { Appointment, Bundle, FhirResource, OperationOutcome } from "fhir/r4.js";
import { addProvider, addService, bookableClinic, createUser, newIdentity, type TestUser } from "@clinic/api/testing";
import { clinicMembers } from "@clinic/db";
import { request, useTestApp } from "./helpers.ts";
import { assertValidFhir } from "./fhirValidator.ts";

// A Monday; the fixtures' hours are Monday to Friday 09:00–17:00 UTC.
const now = new Date("2027-03-15T08:00:00.000Z");
const t = useTestApp({ now: () => now });
const hex = (uuid: string) => uuid.replaceAll("-", "");
const appointmentSystem = "urn:clinic-scheduling:appointment";

function get(url: string, token?: string): Promise<LightMyRequestResponse> {
  return request(t.app, { method: "GET", url: `/fhir/R4${url}`, ...(token ? { bearer: token } : {}) });
}

/** A 200 searchset, every resource valid R4, with its entries. */
function searchOf(response: LightMyRequestResponse): Bundle & { entries: FhirResource[] } {
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers["content-type"]).toBe("application/fhir+json; charset=utf-8");
  const bundle = response.json<Bundle>();
  assertValidFhir(bundle);
  expect(bundle.type).toBe("searchset");
  const entries = (bundle.entry ?? []).map((e) => {
    if (!e.resource) throw new Error("entry without a resource");
    return e.resource;
  });
  return { ...bundle, entries };
}

const idsOf = (bundle: { entries: FhirResource[] }) => bundle.entries.map((e) => e.id);

function outcomeOf(response: LightMyRequestResponse, status: number, code: string): OperationOutcome {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers["content-type"]).toBe("application/fhir+json; charset=utf-8");
  const outcome = response.json<OperationOutcome>();
  assertValidFhir(outcome);
  expect(outcome.issue[0]?.details?.text).toBe(code);
  return outcome;
}

/** Follows the next links from a first page: every page's entries and totals. */
async function allPages(url: string, token: string) {
  const pages = [];
  let next: string | undefined = url;
  while (next !== undefined) {
    const page = searchOf(await get(next, token));
    pages.push(page);
    const link = page.link?.find((l) => l.relation === "next")?.url;
    next = link === undefined ? undefined : new URL(link).pathname.replace("/fhir/R4", "") + new URL(link).search;
  }
  return pages;
}

/** Adds an existing user to another clinic with a role. */
async function joinClinic(user: TestUser, clinicId: string, role: string, fullName: string) {
  await t.handle.db
    .insert(clinicMembers)
    .values({ clinicId, userId: user.id, fullName, email: user.email, clinicRole: role, isProvider: false });
}

/** Two bookable clinics (A, B), a STAFF member of both, and a service in each. */
async function twoClinics() {
  const a = await bookableClinic(t.handle.db);
  const b = await bookableClinic(t.handle.db);
  await joinClinic(a.staff, b.clinicId, "STAFF", "Staff Of Both");
  const serviceA = await addService(t.handle.db, a.clinicId, { name: "Checkup A", providerId: a.provider.id });
  const serviceB = await addService(t.handle.db, b.clinicId, { name: "Checkup B", providerId: b.provider.id });
  return { a, b, both: a.staff, serviceA, serviceB };
}

/** Books over /v1 (as STAFF of the clinic); answers the /v1 id. */
async function book(token: string, clinicId: string, serviceId: string, start: string, patientUserId?: string) {
  const response = await request(t.app, {
    method: "POST",
    url: `/v1/appointments?clinic_id=${clinicId}`,
    bearer: token,
    body: {
      service_id: serviceId,
      start,
      patient: { name: "Pat Patient" },
      ...(patientUserId ? { patient_user_id: patientUserId } : {}),
    },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<{ id: string }>().id;
}

describe("FHIR R4 facade: which clinic a search answers", () => {
  it("a member's search without a clinic answers from each of their clinics, paged across them with one total", async () => {
    const { a, b, both } = await twoClinics();
    const inA = hex(a.clinicId) + hex(a.provider.id);
    const inB = hex(b.clinicId) + hex(b.provider.id);

    // A member of one clinic: that clinic (this was 400 "name the clinic" before).
    expect(idsOf(searchOf(await get("/Practitioner", a.admin.token)))).toEqual([inA]);
    // A member of both: both, and one total across the pages of _count=1.
    const all = searchOf(await get("/Practitioner", both.token));
    expect(all.total).toBe(2);
    expect(new Set(idsOf(all))).toEqual(new Set([inA, inB]));
    const pages = await allPages("/Practitioner?_count=1", both.token);
    expect(pages.map((p) => p.total)).toEqual([2, 2]);
    expect(pages.flatMap(idsOf)).toEqual(idsOf(all));

    // Narrowed by the clinic parameter, or by a reference whose id names its clinic.
    expect(idsOf(searchOf(await get(`/Practitioner?clinic=${b.clinicId}`, both.token)))).toEqual([inB]);
    expect(idsOf(searchOf(await get(`/PractitionerRole?practitioner=PractitionerRole/${inB}`, both.token)))).toEqual([
      inB,
    ]);
    expect(idsOf(searchOf(await get(`/Schedule?actor=Location/${a.clinicId}`, both.token)))).toEqual([inA]);
    expect(searchOf(await get("/HealthcareService", both.token)).total).toBe(2);
    expect(searchOf(await get(`/HealthcareService?organization=Organization/${b.clinicId}`, both.token)).total).toBe(1);
    // Parameters that name different clinics narrow to none.
    expect(searchOf(await get(`/Schedule?clinic=${a.clinicId}&actor=Location/${b.clinicId}`, both.token)).total).toBe(
      0,
    );
    // A clinic named that is not the caller's is 403, as on /v1 (§3).
    outcomeOf(await get(`/Practitioner?clinic=${b.clinicId}`, a.admin.token), 403, "FORBIDDEN");
    // A role that may not list providers anywhere sees none, without a clinic named.
    expect(searchOf(await get("/Practitioner", a.custom.token)).total).toBe(0);
  });

  it("Slot and Appointment searches without a clinic cover each clinic, by start, with paging", async () => {
    const { a, b, both, serviceA, serviceB } = await twoClinics();
    const window = "start=ge2027-03-15T09:00:00Z&start=lt2027-03-15T10:00:00Z";
    const slots = searchOf(await get(`/Slot?${window}`, both.token));
    // Two 30-minute slots in each clinic, ordered by start across the clinics.
    expect(slots.total).toBe(4);
    expect(slots.entries.map((s) => (s.resourceType === "Slot" ? s.start : ""))).toEqual([
      "2027-03-15T09:00:00.000Z",
      "2027-03-15T09:00:00.000Z",
      "2027-03-15T09:30:00.000Z",
      "2027-03-15T09:30:00.000Z",
    ]);
    expect(searchOf(await get(`/Slot?${window}&service-type=${serviceB}`, both.token)).total).toBe(2);

    const a1 = await book(both.token, a.clinicId, serviceA, "2027-03-15T11:00:00.000Z");
    const b1 = await book(both.token, b.clinicId, serviceB, "2027-03-15T10:00:00.000Z");
    const a2 = await book(both.token, a.clinicId, serviceA, "2027-03-16T09:00:00.000Z");
    const expected = [hex(b.clinicId) + hex(b1), hex(a.clinicId) + hex(a1), hex(a.clinicId) + hex(a2)];
    expect(idsOf(searchOf(await get("/Appointment", both.token)))).toEqual(expected);
    const pages = await allPages("/Appointment?_count=2", both.token);
    expect(pages.map((p) => [p.total, p.entries.length])).toEqual([
      [3, 2],
      [3, 1],
    ]);
    expect(pages.flatMap(idsOf)).toEqual(expected);
    expect(idsOf(searchOf(await get(`/Appointment?location=Location/${b.clinicId}`, both.token)))).toEqual([
      expected[0],
    ]);
    const practitionerA = `Practitioner/${hex(a.clinicId)}${hex(a.provider.id)}`;
    expect(idsOf(searchOf(await get(`/Appointment?practitioner=${practitionerA}`, both.token)))).toEqual(
      expected.slice(1),
    );
    expect(
      searchOf(await get(`/Appointment?clinic=${a.clinicId}&location=Location/${b.clinicId}`, both.token)).total,
    ).toBe(0);
    // Staff of A only: A's appointments, not B's.
    expect(idsOf(searchOf(await get("/Appointment", a.admin.token)))).toEqual(expected.slice(1));
  });

  it("a patient's search is their own appointments in every clinic; a global ADMIN's every clinic", async () => {
    const { a, b, both, serviceA, serviceB } = await twoClinics();
    const patient = await createUser(t.handle.db);
    const other = await createUser(t.handle.db);
    const mineA = await book(both.token, a.clinicId, serviceA, "2027-03-15T09:00:00.000Z", patient.id);
    const mineB = await book(both.token, b.clinicId, serviceB, "2027-03-15T10:00:00.000Z", patient.id);
    const theirs = await book(both.token, a.clinicId, serviceA, "2027-03-15T12:00:00.000Z", other.id);
    const mine = [hex(a.clinicId) + hex(mineA), hex(b.clinicId) + hex(mineB)];

    const own = searchOf(await get("/Appointment", patient.token));
    expect(idsOf(own)).toEqual(mine);
    expect(searchOf(await get(`/Appointment?clinic=${b.clinicId}`, patient.token)).total).toBe(1);
    expect(searchOf(await get(`/Appointment?patient=Patient/${other.id}`, patient.token)).total).toBe(0);
    // Their own Appointment reads by the id a search gave; another patient's is refused as on /v1.
    const read = await get(`/Appointment/${mine[1] ?? ""}`, patient.token);
    expect(read.statusCode, read.body).toBe(200);
    outcomeOf(await get(`/Appointment/${hex(a.clinicId)}${hex(theirs)}`, patient.token), 403, "FORBIDDEN");
    // Nothing of the clinics' own: a patient is no member.
    expect(searchOf(await get("/Practitioner", patient.token)).total).toBe(0);
    expect(searchOf(await get("/Organization", patient.token)).total).toBe(0);

    // A member of A who is also B's patient: A's appointments as staff, their own in B.
    const memberOfA = await addProvider(t.handle.db, a.clinicId, "Second Provider", { role: "STAFF" });
    const theirB = await book(both.token, b.clinicId, serviceB, "2027-03-16T10:00:00.000Z", memberOfA.id);
    const seen = idsOf(searchOf(await get("/Appointment", memberOfA.token)));
    expect(seen).toEqual([mine[0], hex(a.clinicId) + hex(theirs), hex(b.clinicId) + hex(theirB)]);

    // A global ADMIN sees every clinic: both of these among them. (On PostgreSQL the test files share
    // one database with many clinics: the appointments are looked up by identifier, without a clinic,
    // and the organizations followed page by page.)
    const admin = await newIdentity({ admin: true });
    for (const [clinicId, id] of [
      [b.clinicId, mineB],
      [a.clinicId, theirs],
    ] as const) {
      const found = idsOf(searchOf(await get(`/Appointment?identifier=${appointmentSystem}|${id}`, admin.token)));
      expect(found).toEqual([hex(clinicId) + hex(id)]);
    }
    const organizations = (await allPages("/Organization?_count=500", admin.token)).flatMap(idsOf);
    expect(organizations).toEqual(expect.arrayContaining([a.clinicId, b.clinicId]));
  });

  it("every Appointment carries its /v1 id as an identifier, and identifier= finds it (a patient only their own)", async () => {
    const { a, both, serviceA } = await twoClinics();
    const patient = await createUser(t.handle.db);
    const mine = await book(both.token, a.clinicId, serviceA, "2027-03-15T09:00:00.000Z", patient.id);
    const theirs = await book(both.token, a.clinicId, serviceA, "2027-03-15T10:00:00.000Z");
    const fhirId = hex(a.clinicId) + hex(mine);

    const byIdentifier = (id: string, token: string) =>
      get(`/Appointment?identifier=${encodeURIComponent(`${appointmentSystem}|${id}`)}`, token);
    const found = searchOf(await byIdentifier(mine, both.token));
    expect(idsOf(found)).toEqual([fhirId]);
    const appointment = found.entries[0] as Appointment;
    expect(appointment.identifier).toEqual([{ system: appointmentSystem, value: mine }]);
    // Without a clinic for the staff member; a bare id token matches too; another system's does not.
    expect(idsOf(searchOf(await get(`/Appointment?identifier=${mine}`, both.token)))).toEqual([fhirId]);
    expect(searchOf(await get(`/Appointment?identifier=urn:other|${mine}`, both.token)).total).toBe(0);
    outcomeOf(await get(`/Appointment?identifier=${appointmentSystem}|nope`, both.token), 400, "VALIDATION_FAILED");
    // Combined with the other filters.
    expect(searchOf(await get(`/Appointment?identifier=${mine}&status=cancelled`, both.token)).total).toBe(0);

    // A patient finds their own, not another's (their own search is by patient, in every clinic).
    expect(idsOf(searchOf(await byIdentifier(mine, patient.token)))).toEqual([fhirId]);
    expect(searchOf(await byIdentifier(theirs, patient.token)).total).toBe(0);
    // A member of another clinic finds nothing (and is told nothing).
    const stranger = await bookableClinic(t.handle.db);
    expect(searchOf(await byIdentifier(mine, stranger.staff.token)).total).toBe(0);
  });

  it("authentication is judged first: no token is 401 whatever the parameters, path or body; metadata is open", async () => {
    const { a } = await twoClinics();
    const cases: { method: "GET" | "POST" | "PATCH"; url: string; body?: string; type?: string }[] = [
      { method: "GET", url: "/Practitioner" },
      { method: "GET", url: "/Appointment?bogus=1&_count=x" },
      { method: "GET", url: `/Appointment/${"0".repeat(64)}` },
      { method: "GET", url: "/Nothing/here" },
      { method: "POST", url: "/Appointment/$book", body: "{not json", type: "application/fhir+json" },
      { method: "POST", url: "/Appointment/$hold", body: '{"resourceType":"Parameters","parameter":"x"}' },
      { method: "PATCH", url: "/Appointment/x", body: "[null]", type: "application/json-patch+json" },
    ];
    for (const token of [undefined, "not-a-jwt"]) {
      for (const c of cases) {
        const response = await t.app.inject({
          method: c.method,
          url: `/fhir/R4${c.url}`,
          headers: {
            ...(token ? { authorization: `Bearer ${token}` } : {}),
            ...(c.body === undefined ? {} : { "content-type": c.type ?? "application/fhir+json" }),
          },
          ...(c.body === undefined ? {} : { payload: c.body }),
        });
        const outcome = outcomeOf(response, 401, "UNAUTHENTICATED");
        expect(outcome.issue[0]?.code).toBe("login");
        expect(response.headers["www-authenticate"]).toMatch(/^Bearer/);
      }
    }
    expect((await get("/metadata")).statusCode).toBe(200);
    // With a token, the same bad parameter is 400, told once.
    const bad = outcomeOf(await get("/Appointment?bogus=1", a.staff.token), 400, "VALIDATION_FAILED");
    expect(bad.issue[0]?.diagnostics).toBe("bogus: unknown search parameter of Appointment; see /fhir/R4/metadata");
  });
});
