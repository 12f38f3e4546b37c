// Fuzzing the FHIR facade (CONTRACT §16, issue 36 item 9): seeded random searches, reads,
// operation bodies, PATCHes, paths, content types and headers against every route. Whatever
// arrives, the answer is never a 500, always application/fhir+json, every error an
// OperationOutcome with our code that tells each problem once, every success a valid resource;
// and without a valid token, 401 before anything else is judged. A failure names its seed and
// request, so it replays exactly.
import { beforeAll, describe, expect, it } from "vitest";
import type { Appointment, Bundle, OperationOutcome } from "fhir/r4.js";
import { domainCodes } from "@clinic/api";
import { addService, bookableClinic, createUser } from "@clinic/api/testing";
import { useTestApp } from "./helpers.ts";
import { assertValidFhir } from "./fhirValidator.ts";

const now = new Date("2027-03-15T08:00:00.000Z");
// Booking writes are not held to 30 a minute here, so that the fuzzer reaches the booking rules.
const t = useTestApp({
  now: () => now,
  config: {
    allowedOrigins: [],
    rateLimit: { max: 100_000, windowMs: 60_000 },
    logLevel: "silent",
    bookingRateLimit: 100_000,
  },
});
const hex = (uuid: string) => uuid.replaceAll("-", "");
const fhirJson = "application/fhir+json; charset=utf-8";

/** mulberry32: a small seeded generator, so a failing case replays from its seed. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => {
    const item = items[int(items.length)];
    if (item === undefined) throw new Error("pick from nothing");
    return item;
  };
  /** A v4 UUID from the seed (so that ids of nothing replay too). */
  const uuid = () => {
    const digits = Array.from({ length: 32 }, () => int(16).toString(16));
    digits[12] = "4";
    digits[16] = pick(["8", "9", "a", "b"]);
    const h = digits.join("");
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  };
  return { next, int, pick, uuid, chance: (p: number) => next() < p };
}
type Random = ReturnType<typeof generator>;

interface World {
  staff: string;
  patient: string;
  patientId: string;
  clinicId: string;
  otherClinicId: string;
  serviceId: string;
  practitionerId: string;
  ids: string[];
  proposed: Appointment[];
  booked: Appointment[];
}
let world: World | undefined;

const types = [
  "Organization",
  "Location",
  "Practitioner",
  "PractitionerRole",
  "HealthcareService",
  "Schedule",
  "Slot",
  "Appointment",
] as const;
const paramNames = [
  "_id",
  "name",
  "clinic",
  "active",
  "organization",
  "practitioner",
  "actor",
  "service-type",
  "schedule",
  "start",
  "status",
  "date",
  "patient",
  "location",
  "identifier",
  "_count",
  "_offset",
  "_format",
  "gender",
  "_sort",
  "clinic[x]",
  "",
];
const partNames = [
  "start",
  "end",
  "service-type",
  "specialty",
  "practitioner",
  "location",
  "clinic",
  "_count",
  "appointment",
  "appointment-reference",
  "appointment-resource",
  "appt-resource",
  "patient",
  "x",
];
const valueKeys = [
  "valueString",
  "valueDateTime",
  "valueInstant",
  "valueCode",
  "valueUri",
  "valueId",
  "valueInteger",
  "valueReference",
  "valueCoding",
  "valueCodeableConcept",
  "valueBoolean",
  "resource",
];

/** Odd text: ids of ours and of nothing, references, dates, numbers, encodings, long and empty. */
function text(r: Random, w: World): string {
  const id = () => r.pick(w.ids);
  const choices = [
    () => id(),
    () => `${r.pick([...types, "Patient", "Slot", "Nothing"])}/${id()}`,
    () => `http://localhost/fhir/R4/Appointment/${id()}/_history/1`,
    () =>
      `${r.pick(["ge", "gt", "lt", "le", "eq", "", "sa"])}${r.pick([
        "2027-03-15T09:00:00Z",
        "2027-03-15T09:00:00+01:00",
        "2027-03-15",
        "0000-01-01T00:00:00Z",
        "9999-12-31T23:59:59.999Z",
        "2027-02-30T00:00:00Z",
        "2027-03-15T25:00:00Z",
        "-2027-03-15T00:00:00Z",
      ])}`,
    () =>
      r.pick(["", " ", ",", ",,", "|", "||", "urn:clinic-scheduling:service|", "urn:clinic-scheduling:appointment|"]) +
      id(),
    () => r.pick(["true", "false", "free", "busy", "booked", "pending", "proposed", "cancelled", "noshow", "held"]),
    () => r.pick(["0", "-1", "1e3", "500", "501", "9007199254740993", "99999999999999999999", "NaN", "0x10", "1.5"]),
    () => r.pick(["%", "%E0%A4%A", "%00", "\u0000", "ü😀", "<x/>", "'; drop table clinics; --", "../..", "a/b/c"]),
    () => "x".repeat(r.pick([65, 500, 5000])),
    () => r.uuid(),
    () => r.pick(["0".repeat(64), "f".repeat(64), "A".repeat(64), "-".repeat(64), ".".repeat(64)]),
    () => `${hex(w.clinicId)}${hex(r.uuid())}`,
    () => `${hex(w.otherClinicId)}${hex(r.uuid())}`,
  ];
  return r.pick(choices)();
}

/** Any JSON value, a few levels deep. */
function json(r: Random, w: World, depth = 0): unknown {
  const leaf = [
    () => null,
    () => r.pick([true, false]),
    () => r.pick([0, -1, 1.5, 2 ** 53 + 2, 1e308, -0]),
    () => text(r, w),
  ];
  if (depth > 2 || r.chance(0.5)) return r.pick(leaf)();
  if (r.chance(0.5)) return Array.from({ length: r.int(3) }, () => json(r, w, depth + 1));
  const object: Record<string, unknown> = {};
  for (let i = r.int(4); i > 0; i--) {
    object[r.pick(["resourceType", "reference", "status", "id", "name", "parameter", "participant", "slot", "x"])] =
      json(r, w, depth + 1);
  }
  return object;
}

/** A copy of `value` with one element somewhere inside replaced, removed or retyped. */
function mutate(r: Random, w: World, value: unknown, depth = 0): unknown {
  if (Array.isArray(value)) {
    const items: unknown[] = value;
    if (items.length === 0 || r.chance(0.2)) return r.chance(0.5) ? json(r, w) : [...items, json(r, w)];
    const at = r.int(items.length);
    return items.map((item, i) => (i === at ? mutate(r, w, item, depth + 1) : item));
  }
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value);
    if (entries.length === 0 || depth > 6 || r.chance(0.25)) return r.chance(0.5) ? json(r, w) : undefined;
    const at = r.int(entries.length);
    const copy: Record<string, unknown> = {};
    entries.forEach(([key, item], i) => {
      if (i !== at) copy[key] = item;
      else if (!r.chance(0.3)) copy[key] = mutate(r, w, item, depth + 1);
    });
    return copy;
  }
  return r.chance(0.5) ? json(r, w) : text(r, w);
}

function parametersBody(r: Random, w: World): unknown {
  const proposal = r.pick(w.proposed);
  const parts = Array.from({ length: r.int(5) }, () => {
    const key = r.pick(valueKeys);
    const value =
      key === "resource"
        ? r.chance(0.5)
          ? mutate(r, w, r.pick([...w.proposed, ...w.booked]))
          : r.pick([...w.proposed, ...w.booked])
        : key === "valueReference"
          ? { reference: r.chance(0.8) ? text(r, w) : json(r, w), ...(r.chance(0.5) ? { display: "Pat" } : {}) }
          : key === "valueCoding"
            ? { system: r.pick(["urn:clinic-scheduling:service", "x"]), code: text(r, w) }
            : r.chance(0.8)
              ? text(r, w)
              : json(r, w);
    return { name: r.chance(0.95) ? r.pick(partNames) : json(r, w), [key]: value };
  });
  const body = { resourceType: "Parameters", parameter: parts };
  if (r.chance(0.2)) {
    body.parameter.push({
      name: "appointment-reference",
      valueReference: { reference: `Appointment/${proposal.id ?? ""}` },
    });
  }
  return r.chance(0.2) ? mutate(r, w, body) : body;
}

/** Searches that are valid as they stand: the fuzzer changes, drops or adds one parameter. */
function searchTemplates(w: World): [string, [string, string][]][] {
  const day = ["ge2027-03-15T00:00:00Z", "lt2027-03-17T00:00:00Z"];
  return [
    ["Organization", [["name", "Clinic"]]],
    ["Location", [["_id", w.clinicId]]],
    [
      "Practitioner",
      [
        ["clinic", w.clinicId],
        ["active", "true"],
        ["name", "anna"],
      ],
    ],
    [
      "PractitionerRole",
      [
        ["organization", `Organization/${w.clinicId}`],
        ["practitioner", `Practitioner/${w.practitionerId}`],
      ],
    ],
    [
      "HealthcareService",
      [
        ["organization", w.clinicId],
        ["active", "true"],
      ],
    ],
    [
      "Schedule",
      [
        ["actor", `PractitionerRole/${w.practitionerId}`],
        ["service-type", w.serviceId],
      ],
    ],
    [
      "Slot",
      [
        ["schedule", `Schedule/${w.practitionerId}`],
        ["service-type", `urn:clinic-scheduling:service|${w.serviceId}`],
        ["start", day[0] ?? ""],
        ["start", day[1] ?? ""],
        ["_count", "3"],
      ],
    ],
    [
      "Appointment",
      [
        ["date", day[0] ?? ""],
        ["status", "booked,arrived"],
        ["practitioner", `Practitioner/${w.practitionerId}`],
        ["_count", "2"],
        ["_offset", "1"],
      ],
    ],
    ["Appointment", [["identifier", `urn:clinic-scheduling:appointment|${w.ids.at(-1) ?? ""}`]]],
    [
      "Appointment",
      [
        ["patient", `Patient/${w.patientId}`],
        ["location", `Location/${w.clinicId}`],
      ],
    ],
  ];
}

function templateSearch(r: Random, w: World): string {
  const [type, params] = r.pick(searchTemplates(w));
  const changed = params.map(([name, value]): [string, string] => [name, value]);
  const at = r.int(changed.length + 1);
  const what = r.int(3);
  if (at === changed.length || what === 0) changed.push([r.pick(paramNames), text(r, w)]);
  else if (what === 1) changed.splice(at, 1);
  else {
    const [name] = changed[at] ?? ["x"];
    changed[at] = [name, text(r, w)];
  }
  const query = changed.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join("&");
  return `/${type}?${query}`;
}

/** Operation bodies that are valid as they stand (some book, hold or find): the fuzzer changes one element. */
function validBody(r: Random, w: World): unknown {
  const proposal = r.pick(w.proposed);
  const patient = { actor: { reference: `Patient/${w.patientId}`, display: "Pat" }, status: "accepted" };
  const withPatient = { ...proposal, participant: [...proposal.participant, patient] };
  return r.pick([
    {
      resourceType: "Parameters",
      parameter: [
        { name: "start", valueDateTime: "2027-03-15T09:00:00Z" },
        { name: "end", valueDateTime: "2027-03-15T12:00:00Z" },
        { name: "service-type", valueCoding: { system: "urn:clinic-scheduling:service", code: w.serviceId } },
        { name: "practitioner", valueReference: { reference: `PractitionerRole/${w.practitionerId}` } },
        { name: "_count", valueInteger: 2 },
      ],
    },
    withPatient,
    { resourceType: "Parameters", parameter: [{ name: "appointment-resource", resource: withPatient }] },
    { resourceType: "Parameters", parameter: [{ name: "appt-resource", resource: proposal }] },
    { resourceType: "Parameters", parameter: [{ name: "appointment", resource: proposal }] },
    {
      resourceType: "Parameters",
      parameter: [
        { name: "appointment-reference", valueReference: { reference: `Appointment/${proposal.id ?? ""}` } },
        { name: "patient", valueReference: patient.actor },
      ],
    },
  ]);
}

function patchBody(r: Random, w: World): unknown {
  const ops = Array.from({ length: r.int(3) + (r.chance(0.8) ? 1 : 0) }, () => ({
    op: r.pick(["replace", "add", "remove", "test", "move", "copy", "", 1]),
    path: r.pick(["/status", "/start", "/participant/0", "", "status", "/status/x", 5]),
    value: r.chance(0.7) ? text(r, w) : json(r, w),
  }));
  return r.chance(0.3) ? mutate(r, w, ops) : r.chance(0.05) ? json(r, w) : ops;
}

interface Case {
  method: "GET" | "POST" | "PATCH" | "HEAD";
  url: string;
  headers: Record<string, string>;
  payload?: string;
  authenticated: boolean;
  badUrl: boolean;
}

function oneCase(r: Random, w: World): Case {
  const auth = r.next();
  const token = auth < 0.85 ? w.staff : auth < 0.92 ? w.patient : auth < 0.96 ? undefined : "not.a.token";
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  if (r.chance(0.2)) headers["if-match"] = r.pick([`W/"${text(r, w)}"`, text(r, w), 'W/"1"', "*"]);
  if (r.chance(0.2)) headers["idempotency-key"] = r.pick(["k", "x".repeat(300), text(r, w)]);
  const authenticated = token === w.staff || token === w.patient;
  const kind = r.int(8);
  let method: Case["method"] = "GET";
  let url: string;
  let badUrl = false;
  let payload: string | undefined;
  if (kind === 0) {
    const query = Array.from({ length: r.int(5) }, () => {
      const name = r.pick(paramNames);
      const value = text(r, w);
      return r.chance(0.9) ? `${encodeURIComponent(name)}=${encodeURIComponent(value)}` : `${name}=${value}`;
    }).join("&");
    url = `/${r.chance(0.95) ? r.pick(types) : r.pick(["Patient", "Nothing", "metadata", ""])}${query ? `?${query}` : ""}`;
  } else if (kind <= 2) {
    url = templateSearch(r, w);
  } else if (kind === 3) {
    const id = text(r, w);
    badUrl = r.chance(0.1);
    url = `/${r.pick(types)}/${badUrl ? "%E0%A4%A" : encodeURIComponent(id)}`;
    if (r.chance(0.1)) method = "HEAD";
  } else if (kind <= 6) {
    method = "POST";
    url = `/Appointment/$${r.pick(["find", "hold", "book", "book", "hold", "find", "nothing"])}`;
    const body =
      kind === 4
        ? parametersBody(r, w)
        : kind === 5
          ? r.chance(0.15)
            ? validBody(r, w)
            : mutate(r, w, validBody(r, w))
          : r.chance(0.5)
            ? mutate(r, w, r.pick([...w.proposed, ...w.booked]))
            : json(r, w);
    payload = r.chance(0.05) ? r.pick(["{", "", "[", "\u0000", "null", '{"resourceType":']) : JSON.stringify(body);
  } else {
    method = "PATCH";
    badUrl = r.chance(0.05);
    url = `/Appointment/${badUrl ? "%E0%A4%A" : encodeURIComponent(r.pick([...w.ids, text(r, w)]))}`;
    payload = r.chance(0.05) ? r.pick(["[", "", "{}", "[1,2"]) : JSON.stringify(patchBody(r, w));
  }
  if (payload !== undefined) {
    headers["content-type"] = r.pick([
      "application/fhir+json",
      "application/fhir+json",
      "application/json",
      method === "PATCH" ? "application/json-patch+json" : "application/fhir+json",
      "application/json-patch+json",
      "text/plain",
      "application/xml",
      "application/x-www-form-urlencoded",
    ]);
  }
  return {
    method,
    url: `/fhir/R4${url}`,
    headers,
    ...(payload === undefined ? {} : { payload }),
    authenticated,
    badUrl,
  };
}

const knownCodes = new Set<string>(domainCodes);

/** The facade's promise for any request: checked on one answer. */
function checkAnswer(c: Case, label: string, status: number, type: unknown, body: string) {
  expect(status, label).toBeLessThan(500);
  expect(type, label).toBe(fhirJson);
  if (c.method === "HEAD") return;
  const resource = JSON.parse(body) as { resourceType?: string };
  if (status >= 400) {
    expect(resource.resourceType, label).toBe("OperationOutcome");
    const outcome = resource as OperationOutcome;
    expect(knownCodes.has(outcome.issue[0]?.details?.text ?? ""), label).toBe(true);
    const parts = (outcome.issue[0]?.diagnostics ?? "").split("; ");
    expect(parts, label).toEqual([...new Set(parts)]);
  }
  assertValidFhir(resource);
  const isMetadata = c.url.split("?")[0] === "/fhir/R4/metadata";
  if (!c.authenticated && !c.badUrl && !isMetadata) expect(status, label).toBe(401);
  if (c.authenticated) expect(status, label).not.toBe(401);
}

describe("FHIR R4 facade under random input", () => {
  beforeAll(async () => {
    const c = await bookableClinic(t.handle.db);
    const other = await bookableClinic(t.handle.db);
    const service = await addService(t.handle.db, c.clinicId, { name: "Checkup", providerId: c.provider.id });
    const patient = await createUser(t.handle.db);
    const headers = { authorization: `Bearer ${c.staff.token}`, "content-type": "application/fhir+json" };
    const found = await t.app.inject({
      method: "POST",
      url: "/fhir/R4/Appointment/$find",
      headers,
      payload: JSON.stringify({
        resourceType: "Parameters",
        parameter: [
          { name: "start", valueDateTime: "2027-03-15T09:00:00Z" },
          { name: "end", valueDateTime: "2027-03-16T17:00:00Z" },
          { name: "service-type", valueCode: service },
          { name: "location", valueReference: { reference: `Location/${c.clinicId}` } },
        ],
      }),
    });
    const proposed = (found.json<Bundle>().entry ?? []).map((e) => e.resource as Appointment);
    const booked: Appointment[] = [];
    for (const proposal of proposed.slice(0, 3)) {
      const answer = await t.app.inject({
        method: "POST",
        url: "/fhir/R4/Appointment/$book",
        headers,
        payload: JSON.stringify({
          ...proposal,
          participant: [
            ...proposal.participant,
            { actor: { reference: `Patient/${patient.id}`, display: "Pat" }, status: "accepted" },
          ],
        }),
      });
      booked.push(answer.json<Appointment>());
    }
    const pid = hex(c.clinicId) + hex(c.provider.id);
    world = {
      staff: c.staff.token,
      patient: patient.token,
      patientId: patient.id,
      clinicId: c.clinicId,
      otherClinicId: other.clinicId,
      serviceId: service,
      practitionerId: pid,
      ids: [
        c.clinicId,
        other.clinicId,
        pid,
        hex(c.clinicId) + hex(service),
        hex(other.clinicId) + hex(other.provider.id),
        service,
        patient.id,
        ...proposed.slice(3, 8).flatMap((p) => (p.id ? [p.id] : [])),
        ...booked.flatMap((b) => [b.id ?? "", b.identifier?.[0]?.value ?? ""]),
      ],
      proposed: proposed.slice(3),
      booked,
    };
    expect(booked.map((b) => b.status)).toEqual(["booked", "booked", "booked"]);
  });

  it("known causes: a malformed %-encoding in the path, $book without participant", async () => {
    const w = world;
    if (!w) throw new Error("no world");
    const badPath = await t.app.inject({
      method: "GET",
      url: "/fhir/R4/Appointment/%E0%A4%A",
      headers: { authorization: `Bearer ${w.staff}` },
    });
    expect(badPath.statusCode).toBe(400);
    expect(badPath.headers["content-type"]).toBe(fhirJson);
    expect(badPath.json<OperationOutcome>()).toMatchObject({
      resourceType: "OperationOutcome",
      issue: [{ code: "invalid", details: { text: "VALIDATION_FAILED" } }],
    });
    const [proposal] = w.proposed;
    const noParticipant = await t.app.inject({
      method: "POST",
      url: "/fhir/R4/Appointment/$book",
      headers: { authorization: `Bearer ${w.staff}`, "content-type": "application/fhir+json" },
      payload: JSON.stringify({ ...proposal, participant: undefined }),
    });
    expect(noParticipant.statusCode, noParticipant.body).toBe(400);
    expect(noParticipant.json<OperationOutcome>().issue[0]?.diagnostics).toMatch(/participant/);
  });

  for (const seed of [36, 9, 2027]) {
    it(`seed ${String(seed)}: searches, reads, operations and PATCHes never answer 500`, async () => {
      const w = world;
      if (!w) throw new Error("no world");
      const r = generator(seed);
      for (let i = 0; i < 220; i++) {
        const c = oneCase(r, w);
        const label = `seed ${String(seed)} case ${String(i)}: ${c.method} ${c.url.slice(0, 300)} ${JSON.stringify(c.headers)} ${(c.payload ?? "").slice(0, 600)}`;
        const response = await t.app.inject({
          method: c.method,
          url: c.url,
          headers: c.headers,
          ...(c.payload === undefined ? {} : { payload: c.payload }),
        });
        checkAnswer(c, label, response.statusCode, response.headers["content-type"], response.body);
      }
    });
  }
});
