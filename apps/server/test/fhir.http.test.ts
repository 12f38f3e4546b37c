// The FHIR R4 facade's reads and searches (CONTRACT §16, docs/fhir.md): every resource served is
// validated against the R4 base definitions by an independent validator; errors are
// OperationOutcomes with our §2 code; the clinic scoping is the procedures'.
import { describe, expect, it } from "vitest";
import type { LightMyRequestResponse } from "fastify";
import type { Bundle, FhirResource, OperationOutcome } from "fhir/r4.js";
import { addService, bookableClinic, clinicFixture, createUser } from "@clinic/api/testing";
import { request, useTestApp } from "./helpers.ts";
import { assertValidFhir } from "./fhirValidator.ts";

// A Monday; the fixtures' hours are Monday to Friday 09:00–17:00 UTC.
const now = new Date("2027-03-15T08:00:00.000Z");
const t = useTestApp({ now: () => now });
const hex = (uuid: string) => uuid.replaceAll("-", "");

async function fhirClinic() {
  const c = await bookableClinic(t.handle.db);
  const service = await addService(t.handle.db, c.clinicId, {
    name: "Checkup",
    providerId: c.provider.id,
    durationMin: 30,
  });
  return { ...c, service };
}

function get(url: string, token?: string): Promise<LightMyRequestResponse> {
  return request(t.app, { method: "GET", url: `/fhir/R4${url}`, ...(token ? { bearer: token } : {}) });
}

/** A 200 FHIR answer: its content type, a valid resource, and (for non-Bundles) an ETag of its version. */
function resourceOf(response: LightMyRequestResponse): FhirResource {
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers["content-type"]).toBe("application/fhir+json; charset=utf-8");
  const resource = response.json<FhirResource>();
  assertValidFhir(resource);
  if (resource.resourceType !== "Bundle" && resource.resourceType !== "CapabilityStatement") {
    expect(resource.meta?.versionId).toBeTruthy();
    expect(resource.meta?.lastUpdated).toBeTruthy();
    expect(response.headers.etag).toBe(`W/"${resource.meta?.versionId ?? ""}"`);
  }
  return resource;
}

function searchOf(response: LightMyRequestResponse): Bundle & { entries: FhirResource[] } {
  const bundle = resourceOf(response);
  if (bundle.resourceType !== "Bundle") throw new Error("not a Bundle");
  expect(bundle.type).toBe("searchset");
  const entries = (bundle.entry ?? []).map((e) => {
    if (!e.resource) throw new Error("entry without a resource");
    assertValidFhir(e.resource);
    expect(e.fullUrl).toMatch(new RegExp(`/fhir/R4/${e.resource.resourceType}/${e.resource.id ?? ""}$`));
    return e.resource;
  });
  return { ...bundle, entries };
}

function outcomeOf(response: LightMyRequestResponse, status: number, code: string): OperationOutcome {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers["content-type"]).toBe("application/fhir+json; charset=utf-8");
  const outcome = response.json<OperationOutcome>();
  assertValidFhir(outcome);
  expect(outcome.resourceType).toBe("OperationOutcome");
  expect(outcome.issue[0]?.details?.text).toBe(code);
  // One problem is told once (§16 v1.3): no part of the diagnostics is repeated.
  const parts = (outcome.issue[0]?.diagnostics ?? "").split("; ");
  expect(parts, outcome.issue[0]?.diagnostics).toEqual([...new Set(parts)]);
  return outcome;
}

describe("FHIR R4 facade: metadata, reads and searches", () => {
  it("the validator is real: it refuses a resource that breaks the R4 definitions", () => {
    expect(() => {
      assertValidFhir({ resourceType: "Appointment", status: "held", participant: [] });
    }).toThrow(/invalid FHIR/);
    expect(() => {
      assertValidFhir({ resourceType: "Slot", id: "x".repeat(65), schedule: {}, status: "free", start: "s", end: "e" });
    }).toThrow(/invalid FHIR/);
  });

  it("metadata is a valid CapabilityStatement of what is served, without a token", async () => {
    const cs = resourceOf(await get("/metadata"));
    if (cs.resourceType !== "CapabilityStatement") throw new Error("not a CapabilityStatement");
    expect(cs.fhirVersion).toBe("4.0.1");
    const types = cs.rest?.[0]?.resource?.map((r) => r.type).sort();
    expect(types).toEqual(
      [
        "Appointment",
        "HealthcareService",
        "Location",
        "Organization",
        "Practitioner",
        "PractitionerRole",
        "Questionnaire",
        "QuestionnaireResponse",
        "Schedule",
        "Slot",
      ].sort(),
    );
    const slot = cs.rest?.[0]?.resource?.find((r) => r.type === "Slot");
    expect(slot?.searchParam?.map((p) => p.name)).toEqual(
      expect.arrayContaining(["schedule", "start", "status", "service-type", "_count"]),
    );
  });

  it("reads and searches Organization, Location, Practitioner, PractitionerRole, HealthcareService, Schedule", async () => {
    const c = await fhirClinic();
    const token = c.staff.token;
    const org = resourceOf(await get(`/Organization/${c.clinicId}`, token));
    expect(org).toMatchObject({ resourceType: "Organization", id: c.clinicId });
    resourceOf(await get(`/Location/${c.clinicId}`, token));
    const orgs = searchOf(await get(`/Organization`, token));
    expect(orgs.entries.map((e) => e.id)).toEqual([c.clinicId]);
    expect(orgs.total).toBe(1);

    const pid = hex(c.clinicId) + hex(c.provider.id);
    const practitioner = resourceOf(await get(`/Practitioner/${pid}`, token));
    expect(practitioner).toMatchObject({
      resourceType: "Practitioner",
      active: true,
      name: [{ text: "Anna Provider" }],
    });
    const role = resourceOf(await get(`/PractitionerRole/${pid}`, token));
    expect(role).toMatchObject({
      practitioner: { reference: `Practitioner/${pid}` },
      organization: { reference: `Organization/${c.clinicId}` },
    });
    const practitioners = searchOf(await get(`/Practitioner?clinic=${c.clinicId}&name=anna`, token));
    expect(practitioners.entries.map((e) => e.id)).toEqual([pid]);
    const roles = searchOf(await get(`/PractitionerRole?organization=Organization/${c.clinicId}`, token));
    expect(roles.entries.map((e) => e.id)).toEqual([pid]);

    const sid = hex(c.clinicId) + hex(c.service);
    const service = resourceOf(await get(`/HealthcareService/${sid}`, token));
    expect(service).toMatchObject({ name: "Checkup", active: true });
    const services = searchOf(await get(`/HealthcareService?organization=${c.clinicId}`, token));
    expect(services.entries.map((e) => e.id)).toEqual([sid]);

    const schedule = resourceOf(await get(`/Schedule/${pid}`, token));
    expect(schedule).toMatchObject({
      actor: [{ reference: `PractitionerRole/${pid}` }, { reference: `Location/${c.clinicId}` }],
      serviceType: [{ coding: [{ code: c.service }] }],
    });
    const schedules = searchOf(
      await get(
        `/Schedule?actor=PractitionerRole/${pid}&service-type=urn:clinic-scheduling:service|${c.service}`,
        token,
      ),
    );
    expect(schedules.entries.map((e) => e.id)).toEqual([pid]);
  });

  it("Slot: computed from availability, searched by schedule, service and start, read by id, paged with _count", async () => {
    const c = await fhirClinic();
    const token = c.staff.token;
    const pid = hex(c.clinicId) + hex(c.provider.id);
    const query = `schedule=Schedule/${pid}&service-type=${c.service}&status=free&start=ge2027-03-15T09:00:00Z&start=lt2027-03-15T11:00:00Z`;
    const all = searchOf(await get(`/Slot?${query}`, token));
    expect(all.total).toBe(4);
    expect(all.entries.map((e) => (e.resourceType === "Slot" ? e.start : ""))).toEqual([
      "2027-03-15T09:00:00.000Z",
      "2027-03-15T09:30:00.000Z",
      "2027-03-15T10:00:00.000Z",
      "2027-03-15T10:30:00.000Z",
    ]);
    const first = all.entries[0];
    if (first?.resourceType !== "Slot" || !first.id) throw new Error("no slot");
    expect(first.schedule.reference).toBe(`Schedule/${pid}`);
    expect(resourceOf(await get(`/Slot/${first.id}`, token))).toMatchObject({ id: first.id });

    // Paging: two pages of two, the next link carries the query.
    const page1 = searchOf(await get(`/Slot?${query}&_count=2`, token));
    expect(page1.total).toBe(4);
    expect(page1.entries).toHaveLength(2);
    const next = page1.link?.find((l) => l.relation === "next")?.url;
    if (!next) throw new Error("no next link");
    const page2 = searchOf(await get(new URL(next).pathname.replace("/fhir/R4", "") + new URL(next).search, token));
    expect(page2.entries.map((e) => e.id)).toEqual(all.entries.slice(2).map((e) => e.id));
    expect(page2.link?.some((l) => l.relation === "next")).toBe(false);

    // Booked over /v1, the slot is gone from the search and its read is 404.
    const booked = await request(t.app, {
      method: "POST",
      url: `/v1/appointments?clinic_id=${c.clinicId}`,
      bearer: token,
      body: { service_id: c.service, start: "2027-03-15T09:00:00.000Z", patient: { name: "Pat" } },
    });
    expect(booked.statusCode).toBe(201);
    expect(searchOf(await get(`/Slot?${query}`, token)).total).toBe(3);
    outcomeOf(await get(`/Slot/${first.id}`, token), 404, "NOT_FOUND");
  });

  it("Appointment: read and search by date, status, practitioner and patient; §16 status mapping, held_until", async () => {
    const c = await fhirClinic();
    const token = c.staff.token;
    const patient = await createUser(t.handle.db);
    const book = (start: string, extra: Record<string, unknown> = {}) =>
      request(t.app, {
        method: "POST",
        url: `/v1/appointments?clinic_id=${c.clinicId}`,
        bearer: token,
        body: { service_id: c.service, start, patient: { name: "Pat Patient" }, ...extra },
      });
    const a = (await book("2027-03-15T10:00:00.000Z", { patient_user_id: patient.id })).json<{ id: string }>();
    await book("2027-03-16T10:00:00.000Z");
    const hold = await request(t.app, {
      method: "POST",
      url: `/v1/appointments/hold?clinic_id=${c.clinicId}`,
      bearer: token,
      body: { service_id: c.service, start: "2027-03-15T11:00:00.000Z" },
    });
    expect(hold.statusCode).toBe(201);
    const holdId = hold.json<{ id: string }>().id;

    const aid = hex(c.clinicId) + hex(a.id);
    const read = resourceOf(await get(`/Appointment/${aid}`, token));
    expect(read).toMatchObject({
      resourceType: "Appointment",
      identifier: [{ system: "urn:clinic-scheduling:appointment", value: a.id }],
      status: "booked",
      start: "2027-03-15T10:00:00.000Z",
      end: "2027-03-15T10:30:00.000Z",
      participant: [
        { actor: { reference: `Practitioner/${hex(c.clinicId)}${hex(c.provider.id)}` } },
        { actor: { reference: `Location/${c.clinicId}` } },
        { actor: { reference: `Patient/${patient.id}` } },
      ],
    });

    const held = resourceOf(await get(`/Appointment/${hex(c.clinicId)}${hex(holdId)}`, token));
    expect(held).toMatchObject({
      status: "pending",
      extension: [{ url: "urn:clinic-scheduling:fhir:StructureDefinition/held-until" }],
    });

    const monday = searchOf(
      await get(`/Appointment?clinic=${c.clinicId}&date=ge2027-03-15T00:00:00Z&date=lt2027-03-16T00:00:00Z`, token),
    );
    expect(monday.entries.map((e) => e.id)).toEqual([aid]);
    const pending = searchOf(await get(`/Appointment?location=Location/${c.clinicId}&status=pending`, token));
    expect(pending.entries.map((e) => e.id)).toEqual([hex(c.clinicId) + hex(holdId)]);
    const byPatient = searchOf(await get(`/Appointment?clinic=${c.clinicId}&patient=Patient/${patient.id}`, token));
    expect(byPatient.entries.map((e) => e.id)).toEqual([aid]);
    const byPractitioner = searchOf(
      await get(`/Appointment?practitioner=Practitioner/${hex(c.clinicId)}${hex(c.provider.id)}&_count=1`, token),
    );
    expect(byPractitioner.total).toBe(2);
    expect(byPractitioner.entries).toHaveLength(1);
    expect(byPractitioner.link?.some((l) => l.relation === "next")).toBe(true);
  });

  it("errors are OperationOutcomes with our code: unknown parameter, malformed reference, auth, other clinics", async () => {
    const c = await fhirClinic();
    const other = await clinicFixture(t.handle.db);
    const token = c.staff.token;
    const unknown = outcomeOf(
      await get(`/Practitioner?clinic=${c.clinicId}&gender=female`, token),
      400,
      "VALIDATION_FAILED",
    );
    expect(unknown.issue[0]?.diagnostics).toContain("gender");
    outcomeOf(await get(`/Appointment?practitioner=Patient/abc`, token), 400, "VALIDATION_FAILED");
    outcomeOf(await get(`/Appointment?practitioner=Practitioner/not-ours`, token), 400, "VALIDATION_FAILED");
    outcomeOf(await get(`/Slot?clinic=${c.clinicId}&start=2027-03-15`, token), 400, "VALIDATION_FAILED");
    outcomeOf(await get(`/Practitioner?clinic=${c.clinicId}&_count=x`, token), 400, "VALIDATION_FAILED");
    outcomeOf(await get(`/Practitioner?clinic=${c.clinicId}`), 401, "UNAUTHENTICATED");
    outcomeOf(await get(`/Nothing`, token), 404, "NOT_FOUND");
    outcomeOf(await get(`/Appointment/123`, token), 404, "NOT_FOUND");
    // Another clinic's service addressed through this clinic: not found, like a missing one.
    const theirs = await addService(t.handle.db, other.clinicId, { name: "Theirs" });
    outcomeOf(await get(`/HealthcareService/${hex(c.clinicId)}${hex(theirs)}`, token), 404, "NOT_FOUND");
    // A clinic the caller is not a member of: 403, as on /v1 (CONTRACT §3), existing or not.
    outcomeOf(await get(`/HealthcareService/${hex(other.clinicId)}${hex(theirs)}`, token), 403, "FORBIDDEN");
    outcomeOf(await get(`/Practitioner?clinic=${other.clinicId}`, token), 403, "FORBIDDEN");
    // A member below STAFF may read the catalog but not the providers, nor others' appointments:
    // naming the clinic narrows what they may see there, their own appointments as a patient.
    searchOf(await get(`/HealthcareService?clinic=${c.clinicId}`, c.custom.token));
    outcomeOf(await get(`/Practitioner?clinic=${c.clinicId}`, c.custom.token), 403, "FORBIDDEN");
    const booked = await request(t.app, {
      method: "POST",
      url: `/v1/appointments?clinic_id=${c.clinicId}`,
      bearer: token,
      body: { service_id: c.service, start: "2027-03-15T09:00:00.000Z", patient: { name: "Someone" } },
    });
    expect(booked.statusCode).toBe(201);
    expect(searchOf(await get(`/Appointment?clinic=${c.clinicId}`, token)).total).toBe(1);
    expect(searchOf(await get(`/Appointment?clinic=${c.clinicId}`, c.custom.token)).total).toBe(0);
  });

  it("the validator refuses empty arrays, empty objects and nulls (FHIR JSON leaves such a property out)", () => {
    expect(() => {
      assertValidFhir({ resourceType: "Bundle", type: "searchset", total: 0, entry: [] });
    }).toThrow(/empty array, object or null at \$\.entry/);
    expect(() => {
      assertValidFhir({ resourceType: "Bundle", type: "searchset", total: 0, meta: {} });
    }).toThrow(/\$\.meta/);
    expect(() => {
      assertValidFhir({ resourceType: "Bundle", type: "searchset", total: 0, link: [{ relation: "self", url: null }] });
    }).toThrow(/\$\.link\[0\]\.url/);
  });

  it("a searchset without a match has no entry at all (not entry: [])", async () => {
    const c = await fhirClinic();
    const response = await get(`/Appointment?clinic=${c.clinicId}&status=cancelled`, c.staff.token);
    const bundle = searchOf(response);
    expect(bundle.total).toBe(0);
    expect(bundle.entry).toBeUndefined();
    expect(response.body).not.toMatch(/\[\]|\{\}/);
  });
});
