-- Booking rules and calendar exceptions (docs/availability.md#booking-rules): service rules,
-- appointments that keep the buffers they were booked with, and date overrides.
CREATE TABLE "date_override_periods" (
	"clinic_id" uuid NOT NULL,
	"override_id" uuid NOT NULL,
	"opens_min" smallint NOT NULL,
	"closes_min" smallint NOT NULL,
	CONSTRAINT "date_override_periods_pkey" PRIMARY KEY("clinic_id","override_id","opens_min"),
	CONSTRAINT "date_override_periods_time_range" CHECK ("date_override_periods"."opens_min" >= 0 and "date_override_periods"."closes_min" <= 1440 and "date_override_periods"."closes_min" > "date_override_periods"."opens_min")
);
--> statement-breakpoint
CREATE TABLE "date_overrides" (
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"scope" text NOT NULL,
	"provider_id" uuid,
	"date" date NOT NULL,
	"reason" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "date_overrides_pkey" PRIMARY KEY("clinic_id","id"),
	CONSTRAINT "date_overrides_owner_date_key" UNIQUE NULLS NOT DISTINCT("clinic_id","provider_id","date"),
	CONSTRAINT "date_overrides_scope_owner" CHECK (("date_overrides"."scope" = 'clinic') = ("date_overrides"."provider_id" is null)),
	CONSTRAINT "date_overrides_scope_check" CHECK ("date_overrides"."scope" in ('clinic', 'provider')),
	CONSTRAINT "date_overrides_reason_length" CHECK ("date_overrides"."reason" is null or char_length("date_overrides"."reason") <= 500)
);
--> statement-breakpoint
ALTER TABLE "appointments" ADD COLUMN "buffer_before_min" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "appointments" ADD COLUMN "buffer_after_min" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "appointments" ADD COLUMN "occupied_start" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "appointments" ADD COLUMN "occupied_end" timestamp (3) with time zone;--> statement-breakpoint
-- Appointments booked so far had no buffers: they occupy exactly their own time.
UPDATE "appointments" SET "occupied_start" = "starts_at", "occupied_end" = "ends_at";--> statement-breakpoint
ALTER TABLE "appointments" ALTER COLUMN "occupied_start" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "appointments" ALTER COLUMN "occupied_end" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "appointments" ADD COLUMN "rescheduled_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "services" ADD COLUMN "buffer_before_min" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "services" ADD COLUMN "buffer_after_min" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "services" ADD COLUMN "slot_step_min" integer;--> statement-breakpoint
ALTER TABLE "services" ADD COLUMN "min_notice_min" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "services" ADD COLUMN "booking_horizon_days" integer;--> statement-breakpoint
ALTER TABLE "date_override_periods" ADD CONSTRAINT "date_override_periods_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "date_override_periods" ADD CONSTRAINT "date_override_periods_override_fk" FOREIGN KEY ("clinic_id","override_id") REFERENCES "public"."date_overrides"("clinic_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "date_overrides" ADD CONSTRAINT "date_overrides_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "date_overrides" ADD CONSTRAINT "date_overrides_provider_fk" FOREIGN KEY ("clinic_id","provider_id") REFERENCES "public"."clinic_members"("clinic_id","user_id") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_occupied_consistent" CHECK ("appointments"."occupied_start" = "appointments"."starts_at" - "appointments"."buffer_before_min" * interval '1 minute' and "appointments"."occupied_end" = "appointments"."ends_at" + "appointments"."buffer_after_min" * interval '1 minute');--> statement-breakpoint
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_buffers_range" CHECK ("appointments"."buffer_before_min" between 0 and 240 and "appointments"."buffer_after_min" between 0 and 240);--> statement-breakpoint
ALTER TABLE "services" ADD CONSTRAINT "services_buffers_range" CHECK ("services"."buffer_before_min" between 0 and 240 and "services"."buffer_after_min" between 0 and 240);--> statement-breakpoint
ALTER TABLE "services" ADD CONSTRAINT "services_slot_step_range" CHECK ("services"."slot_step_min" is null or "services"."slot_step_min" between 5 and 1440);--> statement-breakpoint
ALTER TABLE "services" ADD CONSTRAINT "services_min_notice_range" CHECK ("services"."min_notice_min" between 0 and 525600);--> statement-breakpoint
ALTER TABLE "services" ADD CONSTRAINT "services_booking_horizon_range" CHECK ("services"."booking_horizon_days" is null or "services"."booking_horizon_days" between 1 and 730);--> statement-breakpoint
-- The double-booking guard moves to the occupied range (the appointment with its buffers).
ALTER TABLE "appointments" DROP CONSTRAINT "appointments_no_double_booking";--> statement-breakpoint
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_no_double_booking" EXCLUDE USING gist (
  "clinic_id" WITH =,
  "provider_id" WITH =,
  tstzrange("occupied_start", "occupied_end") WITH &&
) WHERE ("status" = 'booked');--> statement-breakpoint
-- The periods of one date override never overlap, also under concurrent writers.
ALTER TABLE "date_override_periods" ADD CONSTRAINT "date_override_periods_no_overlap" EXCLUDE USING gist (
  "clinic_id" WITH =,
  "override_id" WITH =,
  int4range("opens_min", "closes_min") WITH &&
);
