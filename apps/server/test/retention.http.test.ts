// Retention over HTTP (CONTRACT §21, docs/patient-data.md#retention): `retention_days` on the
// Clinic resource (C4 takes null or 30–3650; OpenAPI shows it); setting it runs the clinic's job at
// once in the workers, which pseudonymizes the appointments that ended longer ago, leaves one
// RETENTION_APPLIED audit entry with the counts, and counts the rows in /metrics.
import { describe, expect, it } from "vitest";
import { addService, bookableClinic } from "@clinic/api/testing";
import { problemOf, request, useTestApp } from "./helpers.ts";

const metricsToken = "metrics-token-retention-0123";
// The service's clock: bookings are made on 1 March, the retention job then runs on 15 June.
let now = new Date("2027-03-01T08:00:00.000Z");
const t = useTestApp(
  {
    now: () => now,
    workers: true,
    config: {
      allowedOrigins: [],
      rateLimit: { max: 100_000, windowMs: 60_000 },
      logLevel: "silent",
      metricsToken,
      jobPollIntervalMs: 100,
    },
  },
  { ownDatabase: "clinic_retention_http" },
);

/** The value of one sample of the Prometheus text (summed over matching label sets), or undefined. */
function sampleOf(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  let found: number | undefined;
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    const given = new Map([...(match[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1] ?? "", m[2] ?? ""]));
    if (Object.entries(labels).every(([k, v]) => given.get(k) === v)) found = (found ?? 0) + Number(match[3]);
  }
  return found;
}

const scrape = async () => {
  const response = await t.app.inject({
    method: "GET",
    url: "/metrics",
    headers: { authorization: `Bearer ${metricsToken}` },
  });
  expect(response.statusCode).toBe(200);
  return response.body;
};

describe("retention over HTTP (§21)", () => {
  it("takes retention_days on the clinic, runs the job at once, records the run and counts it in /metrics", async () => {
    const c = await bookableClinic(t.handle.db);
    const service = await addService(t.handle.db, c.clinicId, { providerId: c.provider.id });
    const clinic = await request(t.app, { method: "GET", url: `/v1/clinics/${c.clinicId}`, token: c.staff.token });
    expect(clinic.json<{ retention_days: number | null }>().retention_days).toBeNull();

    const booked = await request(t.app, {
      method: "POST",
      url: `/v1/appointments?clinic_id=${c.clinicId}`,
      token: c.staff.token,
      body: {
        service_id: service,
        start: "2027-03-15T09:00:00Z",
        patient: { name: "Rita Retained", email: "rita.retained@example.test", phone_e164: "+4930555777" },
        notes: "retained note",
      },
    });
    expect(booked.statusCode).toBe(201);
    const id = booked.json<{ id: string }>().id;
    const before = await scrape();
    const pseudonymizedBefore = sampleOf(before, "clinic_retention_pseudonymized_total", { kind: "appointments" });
    expect(pseudonymizedBefore).toBeDefined();

    now = new Date("2027-06-15T12:00:00.000Z");
    const patch = (value: unknown) =>
      request(t.app, {
        method: "PATCH",
        url: `/v1/clinics/${c.clinicId}`,
        token: c.admin.token,
        body: { retention_days: value },
      });
    for (const bad of [29, 3651, 45.5, "60"]) {
      const refused = await patch(bad);
      expect(refused.statusCode, String(bad)).toBe(400);
      expect(problemOf(refused).code).toBe("VALIDATION_FAILED");
    }
    const set = await patch(60);
    expect(set.statusCode).toBe(200);
    expect(set.json<{ retention_days: number }>().retention_days).toBe(60);

    // The workers run the clinic's job at once: one audit entry for the run.
    const audits = async () =>
      (
        await request(t.app, {
          method: "GET",
          url: `/v1/audit_log?clinic_id=${c.clinicId}&resource_type=clinic`,
          token: c.admin.token,
        })
      ).json<{
        entries: { action: string; resource_id: string; user_email: string; details: Record<string, unknown> }[];
      }>().entries;
    for (let i = 0; i < 300 && (await audits()).length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    const entries = await audits();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      action: "RETENTION_APPLIED",
      resource_id: c.clinicId,
      user_email: "system",
      details: {
        retention_days: 60,
        cutoff: "2027-04-16T12:00:00.000Z",
        counts: { appointments: 1, waitlist_entries: 0 },
        complete: true,
      },
    });
    const counts = entries[0]?.details.counts as Record<string, number>;
    expect(counts.messages).toBeGreaterThanOrEqual(1);
    expect(counts.events).toBeGreaterThanOrEqual(1);

    const read = await request(t.app, {
      method: "GET",
      url: `/v1/appointments/${id}?clinic_id=${c.clinicId}`,
      token: c.staff.token,
    });
    expect(read.json()).toMatchObject({
      patient: { email: null, phone_e164: null },
      notes: null,
      status: "booked",
      start: "2027-03-15T09:00:00.000Z",
    });
    expect(read.json<{ patient: { name: string } }>().patient.name).toMatch(/^erased-[0-9a-f]{8}$/);
    expect(read.body).not.toContain("Rita");
    expect(read.body).not.toContain("retained note");

    const after = await scrape();
    expect(sampleOf(after, "clinic_retention_pseudonymized_total", { kind: "appointments" })).toBe(
      (pseudonymizedBefore ?? 0) + 1,
    );
    expect(sampleOf(after, "clinic_retention_pseudonymized_total", { kind: "events" })).toBeGreaterThanOrEqual(
      counts.events ?? 1,
    );
    expect(sampleOf(after, "clinic_retention_runs_total", { outcome: "complete" })).toBeGreaterThanOrEqual(1);
    expect(sampleOf(after, "clinic_retention_last_run_timestamp_seconds")).toBe(now.getTime() / 1000);
    // The job stays queued for tomorrow: the queue's gauges know its queue.
    expect(sampleOf(after, "jobs_due", { queue: "patient-retention" })).toBe(0);
    expect(sampleOf(after, "jobs_failed", { queue: "patient-retention" })).toBe(0);

    const cleared = await patch(null);
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json<{ retention_days: number | null }>().retention_days).toBeNull();

    const doc = (await t.app.inject({ method: "GET", url: "/v1/openapi.json" })).json<{
      paths: Record<
        string,
        Record<
          string,
          { requestBody?: { content: { "application/json": { schema: { properties: Record<string, unknown> } } } } }
        >
      >;
    }>();
    expect(
      JSON.stringify(
        doc.paths["/v1/clinics/{clinic_id}"]?.patch?.requestBody?.content["application/json"].schema.properties
          .retention_days,
      ),
    ).toMatch(/"minimum":30.*"maximum":3650|"maximum":3650.*"minimum":30/);
  });
});
