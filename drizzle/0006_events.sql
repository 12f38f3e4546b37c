-- Events out (docs/events.md): the gap-free event feed, webhooks and their deliveries, calendar
-- feeds, appointment reminders, and the iCalendar revision of appointments.
CREATE TABLE "appointment_reminders" (
	"clinic_id" uuid NOT NULL,
	"appointment_id" uuid NOT NULL,
	"offset_min" integer NOT NULL,
	"starts_at" timestamp (3) with time zone NOT NULL,
	"job_id" uuid NOT NULL,
	"status" text DEFAULT 'planned' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "appointment_reminders_pkey" PRIMARY KEY("clinic_id","appointment_id","offset_min","starts_at"),
	CONSTRAINT "appointment_reminders_status_check" CHECK ("appointment_reminders"."status" in ('planned', 'sent', 'dropped'))
);
--> statement-breakpoint
CREATE TABLE "calendar_feeds" (
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"provider_id" uuid,
	"include_patient_names" boolean DEFAULT false NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "calendar_feeds_pkey" PRIMARY KEY("clinic_id","id"),
	CONSTRAINT "calendar_feeds_token_key" UNIQUE("clinic_id","token_hash")
);
--> statement-breakpoint
CREATE TABLE "event_counters" (
	"clinic_id" uuid PRIMARY KEY NOT NULL,
	"last_seq" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "events" (
	"clinic_id" uuid NOT NULL,
	"seq" bigint NOT NULL,
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"type" text NOT NULL,
	"occurred_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"data" jsonb NOT NULL,
	CONSTRAINT "events_pkey" PRIMARY KEY("clinic_id","seq"),
	CONSTRAINT "events_clinic_id_key" UNIQUE("clinic_id","id")
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"webhook_id" uuid NOT NULL,
	"event_id" uuid NOT NULL,
	"event_type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_status_code" integer,
	"last_error" text,
	"next_attempt_at" timestamp (3) with time zone,
	"job_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY("clinic_id","id"),
	CONSTRAINT "webhook_deliveries_event_key" UNIQUE("clinic_id","webhook_id","event_id"),
	CONSTRAINT "webhook_deliveries_status_check" CHECK ("webhook_deliveries"."status" in ('pending', 'succeeded', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "webhooks" (
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"url" text NOT NULL,
	"event_types" text[] NOT NULL,
	"description" text,
	"active" boolean DEFAULT true NOT NULL,
	"secret" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "webhooks_pkey" PRIMARY KEY("clinic_id","id"),
	CONSTRAINT "webhooks_url_length" CHECK (char_length("webhooks"."url") between 8 and 2048),
	CONSTRAINT "webhooks_description_length" CHECK ("webhooks"."description" is null or char_length("webhooks"."description") <= 500)
);
--> statement-breakpoint
ALTER TABLE "appointments" ADD COLUMN "revision" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "clinics" ADD COLUMN "reminder_offsets_min" integer[] DEFAULT '{1440}'::integer[] NOT NULL;--> statement-breakpoint
ALTER TABLE "appointment_reminders" ADD CONSTRAINT "appointment_reminders_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_feeds" ADD CONSTRAINT "calendar_feeds_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_feeds" ADD CONSTRAINT "calendar_feeds_provider_fk" FOREIGN KEY ("clinic_id","provider_id") REFERENCES "public"."clinic_members"("clinic_id","user_id") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "event_counters" ADD CONSTRAINT "event_counters_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_fk" FOREIGN KEY ("clinic_id","webhook_id") REFERENCES "public"."webhooks"("clinic_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "events_clinic_type_seq_idx" ON "events" USING btree ("clinic_id","type","seq");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_webhook_created_idx" ON "webhook_deliveries" USING btree ("clinic_id","webhook_id","created_at","id");--> statement-breakpoint
ALTER TABLE "clinics" ADD CONSTRAINT "clinics_reminder_offsets" CHECK (cardinality("clinics"."reminder_offsets_min") <= 5 and 5 <= all("clinics"."reminder_offsets_min") and 20160 >= all("clinics"."reminder_offsets_min"));