-- Patient self-service (docs/patients.md): clinic settings for online booking, the patient an
-- appointment is for, a per-clinic patient row that serialises one patient's bookings, and
-- rate-limit counters shared by every server process.
CREATE TABLE "rate_limit_counters" (
	"key" text NOT NULL,
	"window_start" timestamp (3) with time zone NOT NULL,
	"hits" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "rate_limit_counters_pkey" PRIMARY KEY("key","window_start")
);
--> statement-breakpoint
CREATE TABLE "clinic_patients" (
	"clinic_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"first_booked_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"last_booked_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "clinic_patients_pkey" PRIMARY KEY("clinic_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "appointments" ADD COLUMN "patient_user_id" uuid;--> statement-breakpoint
ALTER TABLE "clinics" ADD COLUMN "online_booking" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "clinics" ADD COLUMN "patient_cancel_cutoff_min" integer DEFAULT 1440 NOT NULL;--> statement-breakpoint
ALTER TABLE "clinics" ADD COLUMN "max_open_bookings_per_patient" integer DEFAULT 3 NOT NULL;--> statement-breakpoint
ALTER TABLE "clinic_patients" ADD CONSTRAINT "clinic_patients_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "clinic_patients" ADD CONSTRAINT "clinic_patients_user_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
CREATE INDEX "rate_limit_counters_window_idx" ON "rate_limit_counters" USING btree ("window_start");--> statement-breakpoint
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_patient_user_fk" FOREIGN KEY ("patient_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "appointments_patient_start_idx" ON "appointments" USING btree ("patient_user_id","starts_at","id");--> statement-breakpoint
ALTER TABLE "clinics" ADD CONSTRAINT "clinics_patient_cancel_cutoff_range" CHECK ("clinics"."patient_cancel_cutoff_min" between 0 and 10080);--> statement-breakpoint
ALTER TABLE "clinics" ADD CONSTRAINT "clinics_max_open_bookings_range" CHECK ("clinics"."max_open_bookings_per_patient" between 1 and 100);