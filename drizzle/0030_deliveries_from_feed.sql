-- Webhook deliveries from the event feed (issue 49, docs/events.md#webhooks): a booking's
-- transaction no longer writes a delivery row and a job per webhook. Each webhook reads its
-- clinic's gap-free feed from its own cursor (feed_seq), leased by one worker at a time
-- (feed_leased_until, feed_lease_id; feed_claimed_seq: the end of the events that lease took).
-- A webhook that exists now starts at its clinic's current end: the events recorded before this
-- migration already have their deliveries and jobs, which the webhook-delivery queue still runs.
ALTER TABLE "webhooks" ADD COLUMN "feed_seq" bigint;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "feed_leased_until" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "feed_lease_id" uuid;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "feed_claimed_seq" bigint;--> statement-breakpoint
UPDATE "webhooks" w SET "feed_seq" = ec."last_seq" FROM "event_counters" ec WHERE ec."clinic_id" = w."clinic_id";--> statement-breakpoint
UPDATE "webhooks" SET "feed_seq" = 0 WHERE "feed_seq" IS NULL;--> statement-breakpoint
ALTER TABLE "webhooks" ALTER COLUMN "feed_seq" SET NOT NULL;--> statement-breakpoint
-- The booking's planner of deliveries is gone (its file with it); so is its checksum, when the
-- function files' table exists already (a new database creates it after the migrations).
DROP FUNCTION IF EXISTS clinic_plan_deliveries(uuid, uuid[], text[]);--> statement-breakpoint
DO $$ BEGIN
  IF to_regclass('schema_functions') IS NOT NULL THEN
    DELETE FROM schema_functions WHERE name = 'clinic_plan_deliveries';
  END IF;
END $$;
