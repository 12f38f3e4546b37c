// On Citus (docs/scale-out.md, docs/fhir.md#which-clinic), a FHIR search without a clinic runs
// clinic by clinic: every statement it makes on distributed tables is a one-task router plan,
// except the two reads that are multi-shard by nature and already are on /v1 — the caller's
// clinic list (GET /v1/clinics) and a patient's own appointments (GET /v1/me/appointments). The
// test records what the facade's searches run and asks Citus to plan each statement. It runs
// when DATABASE_URL is a Citus database (skipped on PGlite and plain PostgreSQL).
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { createTokenVerifier } from "@clinic/api";
import { addService, bookableClinic, createUser, testSecret } from "@clinic/api/testing";
import { type DbHandle, clinicMembers, executePositional, hasCitus, openDatabase } from "@clinic/db";
import { buildApp } from "../src/app.ts";

const databaseUrl = inject("databaseUrl");
const now = new Date("2027-03-15T08:00:00.000Z");

interface Statement {
  text: string;
  parameters: unknown[];
  path: string;
}

describe.skipIf(!databaseUrl)("FHIR searches on Citus", () => {
  let handle: DbHandle;
  let app: FastifyInstance;
  let citus = false;
  const statements: Statement[] = [];
  let path = "";
  beforeAll(async () => {
    handle = await openDatabase({
      url: databaseUrl,
      poolMax: 4,
      onQuery: (text, parameters) => statements.push({ text, parameters, path }),
    });
    citus = await hasCitus(handle.db);
    app = await buildApp({
      config: { allowedOrigins: [], rateLimit: { max: 100_000, windowMs: 60_000 }, logLevel: "silent" },
      database: handle,
      verifier: createTokenVerifier({ secret: testSecret }),
      logger: false,
      now: () => now,
    });
  });
  afterAll(async () => {
    await app.close();
    await handle.close();
  });

  it("query each clinic on its own shard (EXPLAIN: Task Count 1), the clinic list and a patient's own aside", async (context) => {
    if (!citus) context.skip();
    const a = await bookableClinic(handle.db);
    const b = await bookableClinic(handle.db);
    await handle.db.insert(clinicMembers).values({
      clinicId: b.clinicId,
      userId: a.staff.id,
      fullName: "Staff Of Both",
      email: a.staff.email,
      clinicRole: "STAFF",
    });
    const serviceA = await addService(handle.db, a.clinicId, { providerId: a.provider.id });
    await addService(handle.db, b.clinicId, { providerId: b.provider.id });
    const patient = await createUser(handle.db);
    const get = async (label: string, url: string, token: string) => {
      path = label;
      const response = await app.inject({ method: "GET", url, headers: { authorization: `Bearer ${token}` } });
      path = "";
      expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
    };
    path = "setup";
    const booked = await app.inject({
      method: "POST",
      url: `/v1/appointments?clinic_id=${a.clinicId}`,
      headers: { authorization: `Bearer ${a.staff.token}` },
      payload: {
        service_id: serviceA,
        start: "2027-03-15T09:00:00.000Z",
        patient: { name: "Pat" },
        patient_user_id: patient.id,
      },
    });
    expect(booked.statusCode, booked.body).toBe(201);
    const bookedId = booked.json<{ id: string }>().id;

    // What is multi-shard by nature, recorded through /v1 itself.
    await get("v1", "/v1/clinics", a.staff.token);
    await get("v1", "/v1/me/appointments", a.staff.token);
    await get("v1", "/v1/me/appointments", patient.token);
    await get("v1", `/v1/me/appointments/${bookedId}`, patient.token);
    const byNature = new Set(statements.filter((s) => s.path === "v1").map((s) => s.text));

    const searches = [
      "/fhir/R4/Practitioner",
      "/fhir/R4/PractitionerRole",
      "/fhir/R4/HealthcareService",
      "/fhir/R4/Schedule",
      "/fhir/R4/Slot?start=ge2027-03-15T09:00:00Z&start=lt2027-03-15T10:00:00Z",
      "/fhir/R4/Appointment",
      `/fhir/R4/Appointment?identifier=urn:clinic-scheduling:appointment|${bookedId}`,
    ];
    for (const url of searches) await get(url, url, a.staff.token);
    await get("patient", "/fhir/R4/Appointment", patient.token);
    await get("patient", `/fhir/R4/Appointment?identifier=${bookedId}`, patient.token);

    const planned: { path: string; statement: string; tasks: number[] }[] = [];
    for (const s of statements.filter((x) => x.path.startsWith("/fhir") || x.path === "patient")) {
      if (!/^\s*(select|insert|update|delete|with)\b/i.test(s.text)) continue;
      const rows = await executePositional(handle.db, `explain ${s.text}`, s.parameters);
      const plan = rows.map((r) => String(r["QUERY PLAN"])).join("\n");
      if (!plan.includes("Citus") || byNature.has(s.text)) continue;
      const tasks = [...plan.matchAll(/Task Count: (\d+)/g)].map((m) => Number(m[1]));
      planned.push({ path: s.path, statement: s.text.replace(/\s+/g, " "), tasks });
    }
    // Every search ran per-clinic statements on distributed tables, each on one shard.
    for (const url of searches) expect(planned.filter((p) => p.path === url).length, url).toBeGreaterThan(0);
    expect(planned.filter((p) => p.tasks.length === 0 || p.tasks.some((n) => n !== 1))).toEqual([]);
    // Both clinics were asked, each by its own id.
    const practitioners = statements.filter((s) => s.path === "/fhir/R4/Practitioner");
    for (const clinicId of [a.clinicId, b.clinicId]) {
      expect(
        practitioners.some((s) => s.parameters.includes(clinicId)),
        clinicId,
      ).toBe(true);
    }
  }, 120_000);
});
