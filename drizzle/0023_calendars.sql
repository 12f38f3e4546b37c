-- Providers' own calendars (CONTRACT §18, issue 38, docs/calendars.md): the calendars (kind, URL
-- shown without secrets, the encrypted URL and credentials, status of the last sync), the busy time
-- read from them (one copy in each clinic of the provider, so a clinic's read stays on its shard),
-- and what write-back has put into them.
CREATE TABLE "calendar_busy" (
	"clinic_id" uuid NOT NULL,
	"provider_id" uuid NOT NULL,
	"calendar_clinic_id" uuid NOT NULL,
	"calendar_id" uuid NOT NULL,
	"starts_at" timestamp (3) with time zone NOT NULL,
	"ends_at" timestamp (3) with time zone NOT NULL,
	"stale" boolean DEFAULT false NOT NULL,
	CONSTRAINT "calendar_busy_pkey" PRIMARY KEY("clinic_id","calendar_id","starts_at"),
	CONSTRAINT "calendar_busy_range_check" CHECK ("calendar_busy"."starts_at" < "calendar_busy"."ends_at")
);
--> statement-breakpoint
CREATE TABLE "calendar_writes" (
	"clinic_id" uuid NOT NULL,
	"calendar_id" uuid NOT NULL,
	"appointment_id" uuid NOT NULL,
	"href" text NOT NULL,
	"etag" text,
	"revision" integer NOT NULL,
	"written_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "calendar_writes_pkey" PRIMARY KEY("clinic_id","appointment_id","calendar_id")
);
--> statement-breakpoint
CREATE TABLE "calendars" (
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"provider_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"shown_url" text NOT NULL,
	"secret" text NOT NULL,
	"name" text,
	"write_back" boolean DEFAULT false NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"last_synced_at" timestamp (3) with time zone,
	"last_error" text,
	"busy_count" integer DEFAULT 0 NOT NULL,
	"busy_digest" text,
	"busy_clinic_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"sync_state" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "calendars_pkey" PRIMARY KEY("clinic_id","id"),
	CONSTRAINT "calendars_kind_check" CHECK ("calendars"."kind" in ('ics', 'caldav')),
	CONSTRAINT "calendars_status_check" CHECK ("calendars"."status" in ('pending', 'ok', 'error', 'stale')),
	CONSTRAINT "calendars_write_back_check" CHECK (not "calendars"."write_back" or "calendars"."kind" = 'caldav'),
	CONSTRAINT "calendars_name_length" CHECK ("calendars"."name" is null or char_length("calendars"."name") between 1 and 200),
	CONSTRAINT "calendars_shown_url_length" CHECK (char_length("calendars"."shown_url") between 8 and 2048)
);
--> statement-breakpoint
ALTER TABLE "calendar_busy" ADD CONSTRAINT "calendar_busy_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_writes" ADD CONSTRAINT "calendar_writes_calendar_fk" FOREIGN KEY ("clinic_id","calendar_id") REFERENCES "public"."calendars"("clinic_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendars" ADD CONSTRAINT "calendars_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendars" ADD CONSTRAINT "calendars_provider_fk" FOREIGN KEY ("clinic_id","provider_id") REFERENCES "public"."clinic_members"("clinic_id","user_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "calendar_busy_provider_idx" ON "calendar_busy" USING btree ("clinic_id","provider_id","ends_at");--> statement-breakpoint
CREATE INDEX "calendars_provider_idx" ON "calendars" USING btree ("clinic_id","provider_id");