// GET /metrics (docs/operations.md#metrics): Prometheus text format from prom-client, one registry
// per app. Request durations by route pattern, booking writes by outcome, availability cache
// lookups, the database pool, the job queue and webhook deliveries as the database holds them (so
// every process reports the same, whichever ran the jobs), and the retention runs this process did.
import { timingSafeEqual } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { ApiObserver, AvailabilityCache, RetentionRun } from "@clinic/api";
import { deliveryCountsByStatus, jobQueueState, oldestPendingDeliveryAgeS, queueNames } from "@clinic/api";
import type { DbHandle } from "@clinic/db";
import { problem, problemContentType } from "./problem.ts";

export interface Metrics {
  registry: Registry;
  observer: ApiObserver;
  /** Hears of each retention run of this process's workers (docs/patient-data.md#retention). */
  retentionRun: (run: RetentionRun) => void;
}

export function createMetrics(database: DbHandle, cache: AvailabilityCache, now: () => Date): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const bookings = new Counter({
    name: "bookings_total",
    help: "Booking writes (book, reschedule, patient cancel) by procedure and outcome (ok, or the contract error code)",
    labelNames: ["procedure", "outcome"] as const,
    registers: [registry],
  });

  let seen = { hits: 0, misses: 0 };
  new Counter({
    name: "availability_cache_requests_total",
    help: "Availability answers by whether the cache held them (hit) or they were computed (miss)",
    labelNames: ["result"] as const,
    registers: [registry],
    collect() {
      const { hits, misses } = cache.stats();
      this.inc({ result: "hit" }, hits - seen.hits);
      this.inc({ result: "miss" }, misses - seen.misses);
      seen = { hits, misses };
    },
  });
  new Gauge({
    name: "availability_cache_bytes",
    help: "Estimated heap held by the availability cache",
    registers: [registry],
    collect() {
      this.set(cache.stats().bytes);
    },
  });

  new Gauge({
    name: "db_pool_max_connections",
    help: "The size of the database connection pool (1 on the embedded database)",
    registers: [registry],
    collect() {
      this.set(database.poolMax);
    },
  });
  new Gauge({
    name: "db_up",
    help: "1 while the database answers, 0 while it is known to be away (requests are answered 503)",
    registers: [registry],
    collect() {
      this.set(database.health.isDown ? 0 : 1);
    },
  });

  // The job queue (docs/jobs.md#watching-it): one read per scrape, shared by its three gauges
  // (prom-client collects them together).
  let queueRead: { at: number; state: ReturnType<typeof jobQueueState> } | undefined;
  const queueState = () => {
    const at = Date.now();
    if (!queueRead || at - queueRead.at > 500) queueRead = { at, state: jobQueueState(database.db) };
    return queueRead.state;
  };
  const queueGauge = (
    name: string,
    help: string,
    value: (row: Awaited<ReturnType<typeof jobQueueState>>[number]) => number,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: ["queue"] as const,
      registers: [registry],
      async collect() {
        if (database.health.isDown) return;
        const state = await queueState();
        for (const queue of Object.values(queueNames)) {
          const row = state.find((r) => r.queue === queue);
          this.set({ queue }, row ? value(row) : 0);
        }
      },
    });
  queueGauge("jobs_due", "Jobs due to run and not running, by queue", (r) => r.due);
  queueGauge(
    "jobs_oldest_due_age_seconds",
    "How long the oldest due job has waited to run, by queue (0 when none is due): the backlog in time",
    (r) => r.oldestDueAgeS,
  );
  queueGauge("jobs_failed", "Jobs whose last attempt failed, kept for inspection, by queue", (r) => r.failed);

  new Gauge({
    name: "webhook_deliveries",
    help: "Webhook deliveries held by the database, by status (pending, succeeded, failed)",
    labelNames: ["status"] as const,
    registers: [registry],
    async collect() {
      // While the database is away these two keep their last values (db_up says why).
      if (database.health.isDown) return;
      for (const [status, count] of Object.entries(await deliveryCountsByStatus(database.db)))
        this.set({ status }, count);
    },
  });
  new Gauge({
    name: "webhook_oldest_pending_delivery_age_seconds",
    help: "Age of the oldest webhook delivery not yet delivered nor given up (0 when none)",
    registers: [registry],
    async collect() {
      if (database.health.isDown) return;
      this.set(await oldestPendingDeliveryAgeS(database.db, now()));
    },
  });

  // Retention (docs/patient-data.md#retention): what this process's runs pseudonymized. Counters of
  // the process, like bookings_total: sum them over the processes. Whether a clinic's run is late
  // shows, whichever process answers, in jobs_oldest_due_age_seconds{queue="patient-retention"}.
  const retentionRows = new Counter({
    name: "clinic_retention_pseudonymized_total",
    help: "Rows whose personal values the retention job removed, by kind (appointments, messages, events, deliveries, audit_entries, waitlist_entries)",
    labelNames: ["kind"] as const,
    registers: [registry],
  });
  const retentionRuns = new Counter({
    name: "clinic_retention_runs_total",
    help: "Retention runs of a clinic, by whether they finished (complete) or stopped at their time budget to go on (partial)",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const retentionLastRun = new Gauge({
    name: "clinic_retention_last_run_timestamp_seconds",
    help: "When this process last finished a clinic's retention run (Unix seconds; 0: not yet)",
    registers: [registry],
  });
  for (const kind of ["appointments", "messages", "events", "deliveries", "audit_entries", "waitlist_entries"])
    retentionRows.inc({ kind }, 0);
  for (const outcome of ["complete", "partial"]) retentionRuns.inc({ outcome }, 0);

  return {
    registry,
    retentionRun(run) {
      for (const [kind, count] of Object.entries(run.counts)) retentionRows.inc({ kind }, count);
      retentionRuns.inc({ outcome: run.complete ? "complete" : "partial" });
      retentionLastRun.set(now().getTime() / 1000);
    },
    observer: {
      bookingWrite(procedure, outcome) {
        bookings.inc({ procedure, outcome });
      },
    },
  };
}

/** Request durations by route pattern, and the /metrics route behind its token. */
export function registerMetricsRoutes(app: FastifyInstance, metrics: Metrics, token: string | undefined): void {
  const durations = new Histogram({
    name: "http_request_duration_seconds",
    help: "HTTP request durations by method, route pattern and status",
    labelNames: ["method", "route", "status"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [metrics.registry],
  });
  app.addHook("onResponse", (request, reply, done) => {
    // The pattern (/v1/appointments/:id), never the raw url: bounded label values.
    const route = request.routeOptions.url ?? "unmatched";
    durations.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    done();
  });

  const expected = token ? Buffer.from(`Bearer ${token}`) : undefined;
  app.get("/metrics", { config: { rateLimit: false } }, async (request, reply) => {
    const given = Buffer.from(request.headers.authorization ?? "");
    if (!expected)
      return reply
        .code(404)
        .type(problemContentType)
        .send(problem(404, "NOT_FOUND", "no route GET /metrics"));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return reply
        .code(401)
        .type(problemContentType)
        .send(problem(401, "UNAUTHENTICATED", "send Authorization: Bearer <METRICS_TOKEN>"));
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}
