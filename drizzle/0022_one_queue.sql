-- One queue (issue 37, docs/jobs.md). A job used to be written to the clinic's outbox and moved
-- by a forwarder into pg-boss's table, where a worker fetched it: two queues, five statements to
-- move each job. From here a job is one row of `jobs`, written in the transaction of its change on
-- the clinic's shard and consumed from there (claimed by lease, deleted when done, retried with
-- backoff, kept as failed after its last attempt). The outbox's rows and pg-boss's unfinished
-- jobs move here; pg-boss's schema goes.
CREATE TABLE "jobs" (
	"clinic_id" uuid NOT NULL,
	"job_id" uuid NOT NULL,
	"queue" text NOT NULL,
	"data" jsonb NOT NULL,
	"run_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"leased_until" timestamp (3) with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"lease_id" uuid,
	"last_error" text,
	"failed_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "jobs_pkey" PRIMARY KEY("clinic_id","job_id"),
	CONSTRAINT "jobs_attempts_check" CHECK ("jobs"."attempts" >= 0)
);
--> statement-breakpoint
-- Room on each page for a claim's new row version beside the old one (a HOT update: no index entry).
ALTER TABLE "jobs" SET (fillfactor = 70);
--> statement-breakpoint
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "jobs_clinic_due_idx" ON "jobs" USING btree ("clinic_id","run_at") WHERE "jobs"."failed_at" is null;--> statement-breakpoint
CREATE INDEX "jobs_due_idx" ON "jobs" USING btree (("run_at" at time zone 'UTC')) WHERE "jobs"."failed_at" is null;--> statement-breakpoint
CREATE INDEX "jobs_failed_idx" ON "jobs" USING btree ("queue") WHERE "jobs"."failed_at" is not null;
--> statement-breakpoint
INSERT INTO "jobs" ("clinic_id", "job_id", "queue", "data", "run_at", "created_at")
SELECT "clinic_id", "job_id", "queue", "data", coalesce("start_after", "created_at"), "created_at" FROM "outbox";
--> statement-breakpoint
DO $$
BEGIN
  -- pg-boss's jobs not yet done (a database that ran the service before this migration); every job
  -- of this service names its clinic.
  IF to_regclass('pgboss.job') IS NOT NULL THEN
    EXECUTE $q$
      INSERT INTO jobs (clinic_id, job_id, queue, data, run_at, attempts, created_at)
      SELECT (j.data->>'clinicId')::uuid, j.id, j.name, j.data, j.start_after, j.retry_count, j.created_on
      FROM pgboss.job j
      WHERE j.state IN ('created', 'retry', 'active')
        AND j.data->>'clinicId' IN (SELECT c.id::text FROM clinics c)
      ON CONFLICT DO NOTHING
    $q$;
  END IF;
END
$$;
--> statement-breakpoint
DROP TABLE "outbox" CASCADE;
--> statement-breakpoint
DROP SCHEMA IF EXISTS "pgboss" CASCADE;
