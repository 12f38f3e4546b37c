CREATE TABLE "appointments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"service_id" uuid NOT NULL,
	"provider_id" uuid NOT NULL,
	"starts_at" timestamp (3) with time zone NOT NULL,
	"ends_at" timestamp (3) with time zone NOT NULL,
	"status" text DEFAULT 'booked' NOT NULL,
	"patient_name" text NOT NULL,
	"patient_email" text,
	"patient_phone_e164" text,
	"notes" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"canceled_at" timestamp (3) with time zone,
	CONSTRAINT "appointments_status_check" CHECK ("appointments"."status" in ('booked', 'canceled')),
	CONSTRAINT "appointments_time_range" CHECK ("appointments"."ends_at" > "appointments"."starts_at"),
	CONSTRAINT "appointments_canceled_consistent" CHECK (("appointments"."status" = 'canceled') = ("appointments"."canceled_at" is not null))
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"clinic_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"status_code" integer NOT NULL,
	"response" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY("clinic_id","user_id","key"),
	CONSTRAINT "idempotency_keys_key_length" CHECK (char_length("idempotency_keys"."key") between 1 and 255)
);
--> statement-breakpoint
CREATE TABLE "availability_versions" (
	"clinic_id" uuid NOT NULL,
	"scope_id" uuid NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "availability_versions_pkey" PRIMARY KEY("clinic_id","scope_id")
);
--> statement-breakpoint
CREATE TABLE "clinic_members" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"full_name" text NOT NULL,
	"clinic_role" text DEFAULT 'STAFF' NOT NULL,
	"is_provider" boolean DEFAULT false NOT NULL,
	"status" text DEFAULT 'approved' NOT NULL,
	"notes" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "clinic_members_clinic_user_key" UNIQUE("clinic_id","user_id"),
	CONSTRAINT "clinic_members_status_check" CHECK ("clinic_members"."status" in ('approved', 'pending', 'suspended')),
	CONSTRAINT "clinic_members_full_name_length" CHECK (char_length("clinic_members"."full_name") between 1 and 200),
	CONSTRAINT "clinic_members_role_length" CHECK (char_length("clinic_members"."clinic_role") between 1 and 64)
);
--> statement-breakpoint
CREATE TABLE "clinics" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"timezone" text DEFAULT 'UTC' NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "clinics_name_length" CHECK (char_length("clinics"."name") between 1 and 200)
);
--> statement-breakpoint
CREATE TABLE "closures" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"scope" text NOT NULL,
	"provider_id" uuid,
	"starts_at" timestamp (3) with time zone NOT NULL,
	"ends_at" timestamp (3) with time zone NOT NULL,
	"reason" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "closures_scope_owner" CHECK (("closures"."scope" = 'clinic') = ("closures"."provider_id" is null)),
	CONSTRAINT "closures_scope_check" CHECK ("closures"."scope" in ('clinic', 'provider')),
	CONSTRAINT "closures_time_range" CHECK ("closures"."ends_at" > "closures"."starts_at"),
	CONSTRAINT "closures_reason_length" CHECK ("closures"."reason" is null or char_length("closures"."reason") <= 500)
);
--> statement-breakpoint
CREATE TABLE "work_hours" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"scope" text NOT NULL,
	"provider_id" uuid,
	"weekday" smallint NOT NULL,
	"opens_min" smallint NOT NULL,
	"closes_min" smallint NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "work_hours_scope_owner" CHECK (("work_hours"."scope" = 'clinic') = ("work_hours"."provider_id" is null)),
	CONSTRAINT "work_hours_scope_check" CHECK ("work_hours"."scope" in ('clinic', 'provider')),
	CONSTRAINT "work_hours_weekday_range" CHECK ("work_hours"."weekday" between 1 and 7),
	CONSTRAINT "work_hours_time_range" CHECK ("work_hours"."opens_min" >= 0 and "work_hours"."closes_min" <= 1440 and "work_hours"."closes_min" > "work_hours"."opens_min")
);
--> statement-breakpoint
CREATE TABLE "audit_log" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"action" text NOT NULL,
	"resource_type" text NOT NULL,
	"resource_id" uuid NOT NULL,
	"user_email" text NOT NULL,
	"details" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "audit_log_action_check" CHECK ("audit_log"."action" in ('SERVICE_CREATED', 'SERVICE_UPDATED', 'SERVICE_DELETED'))
);
--> statement-breakpoint
CREATE TABLE "services" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"name" text NOT NULL,
	"duration_min" integer NOT NULL,
	"price" numeric(10, 2),
	"provider_id" uuid,
	"is_active" boolean DEFAULT true NOT NULL,
	"deleted_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "services_clinic_id_key" UNIQUE("clinic_id","id"),
	CONSTRAINT "services_duration_range" CHECK ("services"."duration_min" between 1 and 1440),
	CONSTRAINT "services_price_non_negative" CHECK ("services"."price" is null or "services"."price" >= 0),
	CONSTRAINT "services_name_length" CHECK (char_length("services"."name") between 1 and 200)
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"email" text NOT NULL,
	"phone_e164" text,
	"last_login_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_service_fk" FOREIGN KEY ("clinic_id","service_id") REFERENCES "public"."services"("clinic_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_provider_fk" FOREIGN KEY ("clinic_id","provider_id") REFERENCES "public"."clinic_members"("clinic_id","user_id") ON DELETE no action ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "availability_versions" ADD CONSTRAINT "availability_versions_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "clinic_members" ADD CONSTRAINT "clinic_members_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "clinic_members" ADD CONSTRAINT "clinic_members_user_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "closures" ADD CONSTRAINT "closures_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "closures" ADD CONSTRAINT "closures_provider_fk" FOREIGN KEY ("clinic_id","provider_id") REFERENCES "public"."clinic_members"("clinic_id","user_id") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "work_hours" ADD CONSTRAINT "work_hours_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_hours" ADD CONSTRAINT "work_hours_provider_fk" FOREIGN KEY ("clinic_id","provider_id") REFERENCES "public"."clinic_members"("clinic_id","user_id") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "services" ADD CONSTRAINT "services_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "services" ADD CONSTRAINT "services_provider_fk" FOREIGN KEY ("clinic_id","provider_id") REFERENCES "public"."clinic_members"("clinic_id","user_id") ON DELETE no action ON UPDATE cascade;--> statement-breakpoint
CREATE INDEX "appointments_clinic_start_idx" ON "appointments" USING btree ("clinic_id","starts_at","id");--> statement-breakpoint
CREATE INDEX "appointments_clinic_provider_start_idx" ON "appointments" USING btree ("clinic_id","provider_id","starts_at");--> statement-breakpoint
CREATE INDEX "clinic_members_clinic_name_idx" ON "clinic_members" USING btree ("clinic_id","full_name","id");--> statement-breakpoint
CREATE INDEX "closures_clinic_owner_idx" ON "closures" USING btree ("clinic_id","provider_id","starts_at");--> statement-breakpoint
CREATE INDEX "work_hours_clinic_owner_idx" ON "work_hours" USING btree ("clinic_id","provider_id","weekday","opens_min");--> statement-breakpoint
CREATE INDEX "audit_log_clinic_created_idx" ON "audit_log" USING btree ("clinic_id","created_at","id");--> statement-breakpoint
CREATE INDEX "audit_log_clinic_resource_idx" ON "audit_log" USING btree ("clinic_id","resource_type","resource_id");--> statement-breakpoint
CREATE INDEX "services_clinic_name_idx" ON "services" USING btree ("clinic_id","name","id");--> statement-breakpoint
CREATE INDEX "services_clinic_provider_idx" ON "services" USING btree ("clinic_id","provider_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_key" ON "users" USING btree (lower("email"));