-- Reminders derived, not planned (issue 49, docs/events.md#reminders). A booking used to write one
-- appointment_reminders row and one appointment-reminder job per offset of its clinic, in its own
-- transaction. From here it writes only its appointment's reminders_after (the moment it became
-- booked at its current start); each clinic's one recurring job (queue reminder-sweep) finds the
-- reminders that fall due by the appointments' start index (clinic_due_reminders) and records each
-- once, and appointment_reminders keeps only the reminders sent: the key that makes "once" true.
ALTER TABLE "appointments" ADD COLUMN "reminders_after" timestamp (3) with time zone;--> statement-breakpoint
-- Booked appointments count their reminders from their booking or their last move.
UPDATE "appointments" SET "reminders_after" = greatest("created_at", "rescheduled_at") WHERE "status" = 'booked';--> statement-breakpoint
-- Each clinic with reminders gets its sweep, due now; it looks back to the earliest reminder still
-- planned (one whose job had not yet run: the sweep sends it) or a minute. Its id is derived from
-- the clinic's as reminderSweepJobId (modules/booking/reminders.ts) derives it.
INSERT INTO "jobs" ("clinic_id", "job_id", "queue", "data")
SELECT c."id",
       (substr(h.x, 1, 8) || '-' || substr(h.x, 9, 4) || '-5' || substr(h.x, 14, 3) || '-8' || substr(h.x, 18, 3) || '-' || substr(h.x, 21, 12))::uuid,
       'reminder-sweep',
       jsonb_build_object('clinicId', c."id", 'from',
         to_char(least(now() - interval '1 minute', p.first_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
FROM "clinics" c
-- The hash from a subquery over the clinics themselves: Citus pushes no FROM-less subquery down to
-- a distributed database's shards (an upgrade of one failed with a LATERAL (SELECT …) here).
JOIN (SELECT "id", encode(sha256(convert_to('reminder-sweep:' || lower("id"::text), 'UTF8')), 'hex') AS x FROM "clinics") h
  ON h."id" = c."id"
LEFT JOIN (
  SELECT r."clinic_id", min(r."starts_at" - make_interval(mins => r."offset_min")) AS first_at
  FROM "appointment_reminders" r WHERE r."status" = 'planned' GROUP BY r."clinic_id"
) p ON p."clinic_id" = c."id"
WHERE cardinality(c."reminder_offsets_min") > 0;--> statement-breakpoint
DELETE FROM "jobs" WHERE "queue" = 'appointment-reminder';--> statement-breakpoint
DELETE FROM "appointment_reminders" WHERE "status" <> 'sent';--> statement-breakpoint
ALTER TABLE "appointment_reminders" DROP CONSTRAINT "appointment_reminders_status_check";--> statement-breakpoint
ALTER TABLE "appointment_reminders" ADD COLUMN "sent_at" timestamp (3) with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
UPDATE "appointment_reminders" SET "sent_at" = "updated_at";--> statement-breakpoint
ALTER TABLE "appointment_reminders" DROP COLUMN "job_id";--> statement-breakpoint
ALTER TABLE "appointment_reminders" DROP COLUMN "status";--> statement-breakpoint
ALTER TABLE "appointment_reminders" DROP COLUMN "created_at";--> statement-breakpoint
ALTER TABLE "appointment_reminders" DROP COLUMN "updated_at";--> statement-breakpoint
-- The planner and the dropper of the planned reminders go with them (their files are gone).
DROP FUNCTION IF EXISTS clinic_plan_reminders(uuid, uuid, timestamptz, timestamptz);--> statement-breakpoint
DROP FUNCTION IF EXISTS clinic_drop_reminders(uuid, uuid);--> statement-breakpoint
DO $$
BEGIN
  IF to_regclass('schema_functions') IS NOT NULL THEN
    DELETE FROM schema_functions WHERE name IN ('clinic_plan_reminders', 'clinic_drop_reminders');
  END IF;
END
$$;
