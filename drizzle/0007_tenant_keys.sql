-- Tenant keys for scale-out (docs/scale-out.md). A distributed database (Citus) keeps each clinic's
-- rows on one node only if every primary key, unique constraint and foreign key between tenant
-- tables includes clinic_id; ids stay globally unique UUIDs, so the API does not change.
-- Rows are kept: only constraints are replaced.
--
-- 1. Primary keys (clinic_id, id). services' (clinic_id, id) unique constraint becomes its
--    primary key; the appointments foreign key that used it is re-pointed.
ALTER TABLE "appointments" DROP CONSTRAINT "appointments_service_fk";--> statement-breakpoint
ALTER TABLE "services" DROP CONSTRAINT "services_clinic_id_key";--> statement-breakpoint
ALTER TABLE "services" DROP CONSTRAINT "services_pkey", ADD CONSTRAINT "services_pkey" PRIMARY KEY ("clinic_id", "id");--> statement-breakpoint
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_service_fk" FOREIGN KEY ("clinic_id", "service_id") REFERENCES "public"."services"("clinic_id", "id");--> statement-breakpoint
ALTER TABLE "appointments" DROP CONSTRAINT "appointments_pkey", ADD CONSTRAINT "appointments_pkey" PRIMARY KEY ("clinic_id", "id");--> statement-breakpoint
ALTER TABLE "clinic_members" DROP CONSTRAINT "clinic_members_pkey", ADD CONSTRAINT "clinic_members_pkey" PRIMARY KEY ("clinic_id", "id");--> statement-breakpoint
ALTER TABLE "closures" DROP CONSTRAINT "closures_pkey", ADD CONSTRAINT "closures_pkey" PRIMARY KEY ("clinic_id", "id");--> statement-breakpoint
ALTER TABLE "work_hours" DROP CONSTRAINT "work_hours_pkey", ADD CONSTRAINT "work_hours_pkey" PRIMARY KEY ("clinic_id", "id");--> statement-breakpoint
ALTER TABLE "audit_log" DROP CONSTRAINT "audit_log_pkey", ADD CONSTRAINT "audit_log_pkey" PRIMARY KEY ("clinic_id", "id");--> statement-breakpoint
-- 2. No ON UPDATE CASCADE: Citus refuses it on a foreign key that includes the distribution
--    column, and on plain PostgreSQL the same schema must behave the same. The one place that
--    changed a user id (an invitation claimed by its person's first token) now moves the rows
--    itself (packages/api/src/modules/identity/users.ts).
ALTER TABLE "appointments" DROP CONSTRAINT "appointments_provider_fk", ADD CONSTRAINT "appointments_provider_fk" FOREIGN KEY ("clinic_id", "provider_id") REFERENCES "public"."clinic_members"("clinic_id", "user_id");--> statement-breakpoint
ALTER TABLE "services" DROP CONSTRAINT "services_provider_fk", ADD CONSTRAINT "services_provider_fk" FOREIGN KEY ("clinic_id", "provider_id") REFERENCES "public"."clinic_members"("clinic_id", "user_id");--> statement-breakpoint
ALTER TABLE "work_hours" DROP CONSTRAINT "work_hours_provider_fk", ADD CONSTRAINT "work_hours_provider_fk" FOREIGN KEY ("clinic_id", "provider_id") REFERENCES "public"."clinic_members"("clinic_id", "user_id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "closures" DROP CONSTRAINT "closures_provider_fk", ADD CONSTRAINT "closures_provider_fk" FOREIGN KEY ("clinic_id", "provider_id") REFERENCES "public"."clinic_members"("clinic_id", "user_id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "date_overrides" DROP CONSTRAINT "date_overrides_provider_fk", ADD CONSTRAINT "date_overrides_provider_fk" FOREIGN KEY ("clinic_id", "provider_id") REFERENCES "public"."clinic_members"("clinic_id", "user_id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "calendar_feeds" DROP CONSTRAINT "calendar_feeds_provider_fk", ADD CONSTRAINT "calendar_feeds_provider_fk" FOREIGN KEY ("clinic_id", "provider_id") REFERENCES "public"."clinic_members"("clinic_id", "user_id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "clinic_members" DROP CONSTRAINT "clinic_members_user_fk", ADD CONSTRAINT "clinic_members_user_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade;--> statement-breakpoint
ALTER TABLE "clinic_patients" DROP CONSTRAINT "clinic_patients_user_fk", ADD CONSTRAINT "clinic_patients_user_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade;
