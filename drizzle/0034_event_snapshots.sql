-- An appointment event keeps its appointment as a row-shaped snapshot, not as JSON
-- (docs/events.md#what-an-event-stores; issue 49: the JSON was about 970 of a booking's 3,450 bytes
-- of WAL, the snapshot about 360). `data` then holds only the event's own keys (previous_status,
-- previous_start, …) or null; clinic_event_data renders what E1 shows. Existing events keep their
-- JSON. The record functions take the snapshot as a new last argument: their old signatures are
-- dropped here, the new texts are in drizzle/functions/.
CREATE TYPE "appointment_snapshot" AS (
  "id" uuid, "service_id" uuid, "service_name" text, "provider_id" uuid, "provider_name" text,
  "starts_at" timestamptz(3), "ends_at" timestamptz(3), "status" text, "held_until" timestamptz(3),
  "status_history" jsonb, "patient_name" text, "patient_email" text, "patient_phone_e164" text, "notes" text,
  "buffer_before_min" integer, "buffer_after_min" integer, "created_at" timestamptz(3), "updated_at" timestamptz(3),
  "canceled_at" timestamptz(3), "rescheduled_at" timestamptz(3), "patient_user_id" uuid, "booked_by_user_id" uuid,
  "series_id" uuid, "resources" jsonb
);--> statement-breakpoint
DROP FUNCTION IF EXISTS clinic_record_event(uuid, text, jsonb);--> statement-breakpoint
DROP FUNCTION IF EXISTS clinic_record_events(uuid, text, jsonb[]);--> statement-breakpoint
ALTER TABLE "events" ALTER COLUMN "data" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "appointment" "appointment_snapshot";--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_data_present" CHECK ("events"."data" is not null or ("events"."appointment").id is not null);
