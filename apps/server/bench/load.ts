// The load generator of `pnpm bench`, in a process of its own (so that it does not share the
// server's event loop): runs one row with autocannon and prints its figures as JSON on stdout.
//   node --import tsx apps/server/bench/load.ts '<LoadSpec as JSON>'
import autocannon from "autocannon";

export interface LoadSpec {
  kind: "get" | "availability-miss" | "bookings";
  base: string;
  path?: string;
  token?: string;
  clinicId?: string;
  serviceIds?: string[];
  /** Bookings start at this week offset, so rows of several runs never collide. */
  weekOffset?: number;
  seconds: number;
  connections: number;
}

export interface LoadResult {
  reqPerSec: number;
  p50ms: number;
  p99ms: number;
  non2xx: number;
  total: number;
}

const spec = JSON.parse(process.argv[2] ?? "{}") as LoadSpec;
const headers: Record<string, string> = { "content-type": "application/json", ...(spec.token ? { authorization: `Bearer ${spec.token}` } : {}) };
const serviceIds = spec.serviceIds ?? [];
const first = serviceIds[0] ?? "";
const availability = (from: string, serviceId = first) => `/v1/availability?clinic_id=${spec.clinicId ?? ""}&service_id=${serviceId}&from=${from}&to=${from}`;

let miss = 0;
let booking = 0;
const requests: autocannon.Request[] =
  spec.kind === "availability-miss"
    ? [
        {
          setupRequest: (request) => {
            // A new date (and service) every request: nothing is cached yet.
            const day = new Date(Date.parse("2027-04-01T00:00:00Z") + (miss % 700) * 86_400_000).toISOString().slice(0, 10);
            const serviceId = serviceIds[Math.floor(miss / 700) % Math.max(serviceIds.length, 1)] ?? first;
            miss++;
            return { ...request, method: "GET", path: availability(day, serviceId) };
          },
        },
      ]
    : spec.kind === "bookings"
      ? [
          {
            setupRequest: (request) => {
              // Each request a distinct (provider, slot): 50 providers × 16 slots a weekday.
              const k = booking++;
              const serviceId = serviceIds[k % 50] ?? first;
              const slot = Math.floor(k / 50);
              const week = Math.floor(slot / 80) + (spec.weekOffset ?? 0);
              const dayInWeek = Math.floor((slot % 80) / 16);
              const date = new Date(Date.parse("2027-06-07T00:00:00Z") + (week * 7 + dayInWeek) * 86_400_000).toISOString().slice(0, 10);
              const minute = 540 + (slot % 16) * 30;
              const time = `${String(Math.floor(minute / 60)).padStart(2, "0")}:${String(minute % 60).padStart(2, "0")}`;
              return {
                ...request,
                method: "POST",
                path: `/v1/appointments?clinic_id=${spec.clinicId ?? ""}`,
                body: JSON.stringify({ service_id: serviceId, start: `${date}T${time}:00+02:00`, patient: { name: `Bench ${String(k)}` } }),
              };
            },
          },
        ]
      : [{ method: "GET", path: spec.path ?? "/" }];

const result = await autocannon({ url: spec.base, connections: spec.connections, duration: spec.seconds, headers, requests });
const out: LoadResult = {
  reqPerSec: Math.round(result.requests.average),
  p50ms: result.latency.p50,
  p99ms: result.latency.p99,
  non2xx: result.non2xx,
  total: result.requests.total,
};
process.stdout.write(`${JSON.stringify(out)}\n`);
