// GET /metrics: 404 without METRICS_TOKEN, 401 without the right bearer, and with it a Prometheus
// text exposition (parsed here) that counts what the requests before it did.
import { describe, expect, it } from "vitest";
import { addService, bookableClinic } from "@clinic/api/testing";
import { problemOf, request, useTestApp } from "./helpers.ts";

const metricsToken = "metrics-token-0123456789";
const t = useTestApp({
  config: { allowedOrigins: [], rateLimit: { max: 100_000, windowMs: 60_000 }, logLevel: "silent", metricsToken },
  now: () => new Date("2027-03-01T00:00:00Z"),
});
const unset = useTestApp();

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (format 0.0.4). */
function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split("\n")) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type?.[1] && type[2]) types.set(type[1], type[2]);
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    expect(match, `not a sample line: ${line}`).not.toBeNull();
    if (!match?.[1] || !match[3]) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      if (pair[1]) labels[pair[1]] = pair[2] ?? "";
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return { samples, types };
}

const scrape = async () => {
  const response = await t.app.inject({
    method: "GET",
    url: "/metrics",
    headers: { authorization: `Bearer ${metricsToken}` },
  });
  expect(response.statusCode).toBe(200);
  expect(response.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(response.body);
};
const valueOf = (samples: Sample[], name: string, labels: Record<string, string>) =>
  samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);

describe("/metrics", () => {
  it("is 404 without METRICS_TOKEN, and 401 without the right bearer", async () => {
    expect(problemOf(await unset.app.inject({ method: "GET", url: "/metrics" }))).toMatchObject({ status: 404 });
    expect(problemOf(await t.app.inject({ method: "GET", url: "/metrics" }))).toMatchObject({
      status: 401,
      code: "UNAUTHENTICATED",
    });
    expect(
      problemOf(
        await t.app.inject({
          method: "GET",
          url: "/metrics",
          headers: { authorization: "Bearer metrics-token-0123456780" },
        }),
      ),
    ).toMatchObject({ status: 401 });
  });

  it("counts requests by route pattern, bookings by outcome, cache hits and misses; shows the pool, the database and webhook deliveries", async () => {
    const before = (await scrape()).samples;
    const c = await bookableClinic(t.handle.db);
    const service = await addService(t.handle.db, c.clinicId, { providerId: c.provider.id });
    const book = () =>
      request(t.app, {
        method: "POST",
        url: `/v1/appointments?clinic_id=${c.clinicId}`,
        token: c.staff.token,
        body: { service_id: service, start: "2027-03-15T09:00:00Z", patient: { name: "P" } },
      });
    expect((await book()).statusCode).toBe(201);
    expect((await book()).statusCode).toBe(409);
    const availability = `/v1/availability?clinic_id=${c.clinicId}&service_id=${service}&from=2027-03-16&to=2027-03-16`;
    for (let i = 0; i < 3; i++)
      expect((await request(t.app, { method: "GET", url: availability, token: c.staff.token })).statusCode).toBe(200);
    const appointment = (
      await request(t.app, { method: "GET", url: `/v1/appointments?clinic_id=${c.clinicId}`, token: c.staff.token })
    ).json<{ appointments: { id: string }[] }>().appointments[0];
    expect(
      (
        await request(t.app, {
          method: "GET",
          url: `/v1/appointments/${appointment?.id ?? ""}?clinic_id=${c.clinicId}`,
          token: c.staff.token,
        })
      ).statusCode,
    ).toBe(200);

    const { samples, types } = await scrape();
    const delta = (name: string, labels: Record<string, string>) =>
      valueOf(samples, name, labels) - valueOf(before, name, labels);
    expect(types.get("http_request_duration_seconds")).toBe("histogram");
    expect(types.get("bookings_total")).toBe("counter");
    // The route pattern, never the request's own ids.
    expect(
      delta("http_request_duration_seconds_count", { method: "POST", route: "/v1/appointments", status: "201" }),
    ).toBe(1);
    expect(
      delta("http_request_duration_seconds_count", { method: "GET", route: "/v1/appointments/:id", status: "200" }),
    ).toBe(1);
    expect(
      samples.some(
        (s) =>
          s.labels.route?.includes(c.clinicId) === true || s.labels.route?.includes(appointment?.id ?? "-") === true,
      ),
    ).toBe(false);
    expect(delta("bookings_total", { procedure: "appointments.book", outcome: "ok" })).toBe(1);
    expect(delta("bookings_total", { procedure: "appointments.book", outcome: "SLOT_UNAVAILABLE" })).toBe(1);
    // Three asks of one range: computed once, then answered from the cache twice.
    expect(delta("availability_cache_requests_total", { result: "miss" })).toBeGreaterThanOrEqual(1);
    expect(delta("availability_cache_requests_total", { result: "hit" })).toBeGreaterThanOrEqual(2);
    expect(valueOf(samples, "db_up", {})).toBe(1);
    expect(valueOf(samples, "db_pool_max_connections", {})).toBeGreaterThanOrEqual(1);
    expect(samples.some((s) => s.name === "webhook_deliveries" && s.labels.status === "pending")).toBe(true);
    expect(samples.some((s) => s.name === "webhook_oldest_pending_delivery_age_seconds")).toBe(true);
    expect(samples.some((s) => s.name === "process_resident_memory_bytes")).toBe(true);
  });
});
