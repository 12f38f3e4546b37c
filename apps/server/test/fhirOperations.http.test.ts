// The facade's Appointment writes (CONTRACT §16, docs/fhir.md#operations): $find → $hold → $book
// and PATCH of status, on our holds, bookings and transitions; Idempotency-Key and If-Match; bad
// input answered with an OperationOutcome and nothing changed.
import { describe, expect, it } from "vitest";
import type { LightMyRequestResponse } from "fastify";
import type { Appointment, Bundle, OperationOutcome, Parameters } from "fhir/r4.js";
import { addService, bookableClinic, createUser } from "@clinic/api/testing";
import { useTestApp } from "./helpers.ts";
import { assertValidFhir } from "./fhirValidator.ts";

// A Monday, an hour before the fixtures' hours open (09:00–17:00 UTC, Monday to Friday).
const now = new Date("2027-03-15T08:00:00.000Z");
const t = useTestApp({ now: () => now });
const hex = (uuid: string) => uuid.replaceAll("-", "");

async function fhirClinic() {
  const c = await bookableClinic(t.handle.db);
  const service = await addService(t.handle.db, c.clinicId, { name: "Checkup", providerId: c.provider.id });
  return { ...c, service, practitioner: `Practitioner/${hex(c.clinicId)}${hex(c.provider.id)}` };
}

function send(
  method: "GET" | "POST" | "PATCH",
  url: string,
  token: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method,
    url: `/fhir/R4${url}`,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined
        ? {}
        : { "content-type": method === "PATCH" ? "application/json-patch+json" : "application/fhir+json" }),
      ...headers,
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

function appointmentOf(response: LightMyRequestResponse, status = 200): Appointment {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers["content-type"]).toBe("application/fhir+json; charset=utf-8");
  const appointment = response.json<Appointment>();
  assertValidFhir(appointment);
  expect(appointment.resourceType).toBe("Appointment");
  expect(response.headers.etag).toBe(`W/"${appointment.meta?.versionId ?? ""}"`);
  return appointment;
}

/** A 200 (or `status`) searchset Bundle of exactly one valid Appointment: IHE's answer to $hold and $book. */
function bundleOf(response: LightMyRequestResponse, status = 200): Appointment {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers["content-type"]).toBe("application/fhir+json; charset=utf-8");
  const bundle = response.json<Bundle>();
  assertValidFhir(bundle);
  expect(bundle).toMatchObject({ resourceType: "Bundle", type: "searchset", total: 1 });
  const [entry] = bundle.entry ?? [];
  const appointment = entry?.resource;
  if (appointment?.resourceType !== "Appointment") throw new Error("no Appointment in the Bundle");
  assertValidFhir(appointment);
  expect(entry?.fullUrl).toMatch(new RegExp(`/fhir/R4/Appointment/${appointment.id ?? ""}$`));
  return appointment;
}

function outcomeOf(response: LightMyRequestResponse, status: number, code: string): OperationOutcome {
  expect(response.statusCode, response.body).toBe(status);
  const outcome = response.json<OperationOutcome>();
  assertValidFhir(outcome);
  expect(outcome.issue[0]?.details?.text).toBe(code);
  return outcome;
}

const findParameters = (
  c: Awaited<ReturnType<typeof fhirClinic>>,
  extra: Parameters["parameter"] = [],
): Parameters => ({
  resourceType: "Parameters",
  parameter: [
    { name: "start", valueDateTime: "2027-03-15T09:00:00Z" },
    { name: "end", valueDateTime: "2027-03-15T11:00:00Z" },
    { name: "service-type", valueCoding: { system: "urn:clinic-scheduling:service", code: c.service } },
    { name: "practitioner", valueReference: { reference: c.practitioner } },
    ...extra,
  ],
});

async function find(c: Awaited<ReturnType<typeof fhirClinic>>): Promise<Appointment[]> {
  const response = await send("POST", "/Appointment/$find", c.staff.token, findParameters(c));
  expect(response.statusCode, response.body).toBe(200);
  const bundle = response.json<Bundle>();
  assertValidFhir(bundle);
  return (bundle.entry ?? []).map((e) => {
    assertValidFhir(e.resource);
    return e.resource as Appointment;
  });
}

const withPatient = (proposed: Appointment, name = "Pat Patient", patientId?: string): Appointment => ({
  ...proposed,
  participant: [
    ...proposed.participant,
    { actor: { ...(patientId ? { reference: `Patient/${patientId}` } : {}), display: name }, status: "accepted" },
  ],
});

describe("FHIR R4 facade: $find, $hold, $book and PATCH", () => {
  it("$find proposes one Appointment per free slot; $book books one, idempotently with Idempotency-Key", async () => {
    const c = await fhirClinic();
    const proposed = await find(c);
    expect(proposed.map((a) => [a.status, a.start])).toEqual([
      ["proposed", "2027-03-15T09:00:00.000Z"],
      ["proposed", "2027-03-15T09:30:00.000Z"],
      ["proposed", "2027-03-15T10:00:00.000Z"],
      ["proposed", "2027-03-15T10:30:00.000Z"],
    ]);
    const first = proposed[0];
    if (!first) throw new Error("nothing proposed");
    const patient = await createUser(t.handle.db);
    const body = withPatient(first, "Pat Patient", patient.id);
    const key = { "idempotency-key": `fhir-${c.clinicId}` };
    const booked = appointmentOf(await send("POST", "/Appointment/$book", c.staff.token, body, key));
    expect(booked).toMatchObject({ status: "booked", start: "2027-03-15T09:00:00.000Z" });
    expect(booked.participant).toContainEqual({
      actor: { reference: `Patient/${patient.id}`, display: "Pat Patient" },
      status: "accepted",
    });
    const again = appointmentOf(await send("POST", "/Appointment/$book", c.staff.token, body, key));
    expect(again.id).toBe(booked.id);
    outcomeOf(
      await send("POST", "/Appointment/$book", c.staff.token, withPatient(first, "Someone Else"), key),
      409,
      "IDEMPOTENCY_KEY_REUSED",
    );
    // The slot is taken now: $find no longer proposes it, and booking it again is 409.
    expect((await find(c)).map((a) => a.start)).not.toContain("2027-03-15T09:00:00.000Z");
    outcomeOf(await send("POST", "/Appointment/$book", c.staff.token, withPatient(first)), 409, "SLOT_UNAVAILABLE");
    const read = appointmentOf(await send("GET", `/Appointment/${booked.id ?? ""}`, c.staff.token));
    expect(read.meta?.versionId).toBe(booked.meta?.versionId);
  });

  it("$hold makes our hold (pending, held_until); $book of the held Appointment books that hold", async () => {
    const c = await fhirClinic();
    const [, second] = await find(c);
    if (!second) throw new Error("nothing proposed");
    const held = appointmentOf(
      await send("POST", "/Appointment/$hold", c.staff.token, {
        resourceType: "Parameters",
        parameter: [{ name: "appointment", resource: second }],
      }),
      201,
    );
    expect(held.status).toBe("pending");
    // With an Idempotency-Key a retry of $hold answers the same hold.
    const key = { "idempotency-key": "fhir-hold-1" };
    const [third] = (await find(c)).filter((a) => a.start !== second.start);
    if (!third) throw new Error("nothing else proposed");
    const once = appointmentOf(await send("POST", "/Appointment/$hold", c.staff.token, third, key), 201);
    const twice = appointmentOf(await send("POST", "/Appointment/$hold", c.staff.token, third, key), 201);
    expect(twice.id).toBe(once.id);
    expect(held.extension?.[0]).toMatchObject({
      url: "urn:clinic-scheduling:fhir:StructureDefinition/held-until",
      valueInstant: "2027-03-15T08:10:00.000Z",
    });
    expect((await find(c)).map((a) => a.start)).not.toContain(second.start);
    const booked = appointmentOf(await send("POST", "/Appointment/$book", c.staff.token, withPatient(held)));
    expect(booked).toMatchObject({ id: held.id, status: "booked", start: second.start });
    expect(booked.extension).toBeUndefined();
  });

  it("IHE ITI Scheduling parts: appointment-reference, appointment-resource and appt-resource answer a Bundle", async () => {
    const c = await fhirClinic();
    const [first, second, third, fourth] = await find(c);
    if (!first?.id || !second || !third || !fourth) throw new Error("nothing proposed");
    // A proposed Appointment's id is its Slot's: it reads back while the slot is free.
    expect(first.id).toBe(first.slot?.[0]?.reference?.replace("Slot/", ""));
    const proposal = appointmentOf(await send("GET", `/Appointment/${first.id}`, c.staff.token));
    expect(proposal).toMatchObject({ id: first.id, status: "proposed", start: first.start });

    const parameters = (...parameter: NonNullable<Parameters["parameter"]>): Parameters => ({
      resourceType: "Parameters",
      parameter,
    });
    const held = bundleOf(
      await send(
        "POST",
        "/Appointment/$hold",
        c.staff.token,
        parameters({ name: "appointment-reference", valueReference: { reference: `Appointment/${first.id}` } }),
      ),
      201,
    );
    expect(held).toMatchObject({ status: "pending", start: first.start });
    expect(held.identifier?.[0]?.value).toBeTruthy();
    // Held now: the proposal is gone.
    outcomeOf(await send("GET", `/Appointment/${first.id}`, c.staff.token), 404, "NOT_FOUND");

    // $book of the held Appointment by reference (an absolute URL), the patient as a part.
    const patient = await createUser(t.handle.db);
    const booked = bundleOf(
      await send(
        "POST",
        "/Appointment/$book",
        c.staff.token,
        parameters(
          {
            name: "appointment-reference",
            valueReference: { reference: `http://localhost/fhir/R4/Appointment/${held.id ?? ""}` },
          },
          { name: "patient", valueReference: { reference: `Patient/${patient.id}`, display: "Pat Patient" } },
        ),
      ),
    );
    expect(booked).toMatchObject({ id: held.id, status: "booked", start: first.start });
    expect(booked.participant).toContainEqual({
      actor: { reference: `Patient/${patient.id}`, display: "Pat Patient" },
      status: "accepted",
    });

    // The Appointment itself, under IHE's name and under Argonaut's.
    const viaResource = bundleOf(
      await send(
        "POST",
        "/Appointment/$book",
        c.staff.token,
        parameters({ name: "appointment-resource", resource: withPatient(second) }),
      ),
    );
    expect(viaResource).toMatchObject({ status: "booked", start: second.start });
    const heldViaArgonaut = bundleOf(
      await send("POST", "/Appointment/$hold", c.staff.token, parameters({ name: "appt-resource", resource: third })),
      201,
    );
    expect(heldViaArgonaut).toMatchObject({ status: "pending", start: third.start });
    const viaArgonaut = bundleOf(
      await send(
        "POST",
        "/Appointment/$book",
        c.staff.token,
        parameters({ name: "appt-resource", resource: withPatient(heldViaArgonaut) }),
      ),
    );
    expect(viaArgonaut).toMatchObject({ id: heldViaArgonaut.id, status: "booked" });
    // v1.2's forms keep their answer: the Appointment itself.
    const legacy = appointmentOf(
      await send(
        "POST",
        "/Appointment/$book",
        c.staff.token,
        parameters({ name: "appointment", resource: withPatient(fourth) }),
      ),
    );
    expect(legacy.status).toBe("booked");

    // Refused: two ways at once, a reference of another type or not ours, a booked one to hold,
    // a proposal by reference without a patient.
    const refused = [
      parameters(
        { name: "appointment-reference", valueReference: { reference: `Appointment/${first.id}` } },
        { name: "appointment-resource", resource: first },
      ),
      parameters({ name: "appointment-reference", valueReference: { reference: `Slot/${first.id}` } }),
      parameters({ name: "appointment-reference", valueReference: { reference: "Appointment/not-ours" } }),
      parameters({ name: "appointment-reference", valueString: `Appointment/${booked.id ?? ""}` }),
    ];
    for (const body of refused) {
      outcomeOf(await send("POST", "/Appointment/$hold", c.staff.token, body), 400, "VALIDATION_FAILED");
    }
    const [fifth] = await find(c);
    outcomeOf(
      await send(
        "POST",
        "/Appointment/$book",
        c.staff.token,
        parameters({ name: "appointment-reference", valueReference: { reference: `Appointment/${fifth?.id ?? ""}` } }),
      ),
      400,
      "VALIDATION_FAILED",
    );
  });

  it("PATCH /status: §13 transitions and cancel; If-Match against meta.versionId (412 when stale)", async () => {
    const c = await fhirClinic();
    const [first, second] = await find(c);
    if (!first || !second) throw new Error("nothing proposed");
    const booked = appointmentOf(await send("POST", "/Appointment/$book", c.staff.token, withPatient(first)));
    const url = `/Appointment/${booked.id ?? ""}`;
    const patch = (status: string, ifMatch?: string) =>
      send("PATCH", url, c.staff.token, [{ op: "replace", path: "/status", value: status }], {
        ...(ifMatch ? { "if-match": ifMatch } : {}),
      });
    const arrived = appointmentOf(await patch("arrived", `W/"${booked.meta?.versionId ?? ""}"`));
    expect(arrived.status).toBe("arrived");
    const stale = outcomeOf(await patch("booked", `W/"${booked.meta?.versionId ?? ""}"`), 412, "STALE_UPDATED_AT");
    expect(stale.issue[0]?.code).toBe("conflict");
    outcomeOf(await patch("cancelled"), 409, "INVALID_TRANSITION");
    const fulfilled = appointmentOf(await patch("fulfilled", `W/"${arrived.meta?.versionId ?? ""}"`));
    expect(fulfilled.status).toBe("fulfilled");

    const other = appointmentOf(await send("POST", "/Appointment/$book", c.staff.token, withPatient(second)));
    const otherUrl = `/Appointment/${other.id ?? ""}`;
    const cancelStale = await send(
      "PATCH",
      otherUrl,
      c.staff.token,
      [{ op: "replace", path: "/status", value: "cancelled" }],
      {
        "if-match": 'W/"1"',
      },
    );
    outcomeOf(cancelStale, 412, "STALE_UPDATED_AT");
    const cancelled = appointmentOf(
      await send("PATCH", otherUrl, c.staff.token, [{ op: "replace", path: "/status", value: "cancelled" }], {
        "if-match": `W/"${other.meta?.versionId ?? ""}"`,
      }),
    );
    expect(cancelled.status).toBe("cancelled");
  });

  it("bad input is an OperationOutcome and changes nothing", async () => {
    const c = await fhirClinic();
    const [first] = await find(c);
    if (!first) throw new Error("nothing proposed");
    const booked = appointmentOf(await send("POST", "/Appointment/$book", c.staff.token, withPatient(first)));
    const url = `/Appointment/${booked.id ?? ""}`;
    const version = booked.meta?.versionId;
    const bad = [
      send("PATCH", url, c.staff.token, [{ op: "replace", path: "/start", value: "2027-03-15T10:00:00Z" }]),
      send("PATCH", url, c.staff.token, [
        { op: "replace", path: "/status", value: "arrived" },
        { op: "remove", path: "/comment" },
      ]),
      send("PATCH", url, c.staff.token, [{ op: "replace", path: "/status", value: "lost" }]),
      send("PATCH", url, c.staff.token, { status: "arrived" }),
      send("PATCH", url, c.staff.token, [{ op: "replace", path: "/status", value: "arrived" }], {
        "if-match": "yesterday",
      }),
      send("POST", "/Appointment/$find", c.staff.token, { resourceType: "Parameters", parameter: [] }),
      send("POST", "/Appointment/$find", c.staff.token, {
        resourceType: "Parameters",
        parameter: (findParameters(c).parameter ?? []).filter((p) => p.name !== "service-type"),
      }),
      send(
        "POST",
        "/Appointment/$find",
        c.staff.token,
        findParameters(c, [{ name: "location", valueReference: { reference: "Patient/x" } }]),
      ),
      send("POST", "/Appointment/$book", c.staff.token, { resourceType: "Parameters", parameter: [] }),
      send("POST", "/Appointment/$book", c.staff.token, first),
      send("POST", "/Appointment/$book", c.staff.token, withPatient({ ...first, slot: [{ reference: "Slot/nope" }] })),
      send("POST", "/Appointment/$hold", c.staff.token, { ...first, status: "booked" }),
      // Wrong shapes and types where the operations read (each was a TypeError answered 500).
      send("POST", "/Appointment/$book", c.staff.token, { ...first, participant: undefined }),
      send("POST", "/Appointment/$book", c.staff.token, { ...withPatient(first), participant: [null] }),
      send("POST", "/Appointment/$book", c.staff.token, { ...withPatient(first), participant: "me" }),
      send("POST", "/Appointment/$book", c.staff.token, {
        ...first,
        participant: [{ actor: { reference: 42, display: "Pat" } }],
      }),
      send("POST", "/Appointment/$book", c.staff.token, { ...withPatient(first), status: "pending", id: 7 }),
      send("POST", "/Appointment/$book", c.staff.token, {
        ...withPatient(first),
        status: "pending",
        id: booked.id,
        serviceType: [{ coding: "x" }],
      }),
      send("POST", "/Appointment/$hold", c.staff.token, { ...first, slot: [{ reference: 5 }] }),
      send("POST", "/Appointment/$hold", c.staff.token, { ...first, slot: {} }),
      send("POST", "/Appointment/$hold", c.staff.token, { ...first, status: undefined }),
      send("POST", "/Appointment/$find", c.staff.token, { resourceType: "Parameters", parameter: "x" }),
      send("POST", "/Appointment/$find", c.staff.token, { resourceType: "Parameters", parameter: [null, 1] }),
      send("POST", "/Appointment/$find", c.staff.token, {
        resourceType: "Parameters",
        parameter: [{ name: "start", valueDateTime: 5 }],
      }),
      send("POST", "/Appointment/$find", c.staff.token, findParameters(c, [{ name: "clinic", valueString: "x" }])),
      send("POST", "/Appointment/$find", c.staff.token, {
        resourceType: "Parameters",
        parameter: [
          { name: "start", valueDateTime: "0000-01-01T00:00:00Z" },
          { name: "end", valueDateTime: "0000-01-02T00:00:00Z" },
        ],
      }),
      send("POST", "/Appointment/$hold", c.staff.token, {
        resourceType: "Parameters",
        parameter: [{ name: "appointment-resource", resource: { resourceType: "Appointment", status: 1 } }],
      }),
      send("POST", "/Appointment/$hold", c.staff.token, {
        resourceType: "Parameters",
        parameter: [{ name: "appointment-reference", valueReference: { reference: { id: 1 } } }],
      }),
      send("POST", "/Appointment/$book", c.staff.token, "just a string"),
      send("POST", "/Appointment/$book", c.staff.token, [first]),
      send("PATCH", url, c.staff.token, [null]),
      send("PATCH", url, c.staff.token, [[{ op: "replace" }]]),
      send("PATCH", url, c.staff.token, [{ op: "replace", path: "/status", value: "arrived" }], {
        "if-match": 'W/"999999999999999"',
      }),
    ];
    for (const response of await Promise.all(bad)) {
      const outcome = outcomeOf(response, 400, "VALIDATION_FAILED");
      expect(response.headers["content-type"]).toBe("application/fhir+json; charset=utf-8");
      expect(outcome.issue[0]?.diagnostics).not.toMatch(/internal error/);
    }
    const read = appointmentOf(await send("GET", url, c.staff.token));
    expect(read.meta?.versionId).toBe(version);
    expect(read.status).toBe("booked");
    // Nothing else was booked or held either.
    expect((await find(c)).map((a) => a.start)).toEqual([
      "2027-03-15T09:30:00.000Z",
      "2027-03-15T10:00:00.000Z",
      "2027-03-15T10:30:00.000Z",
    ]);
  });
});
