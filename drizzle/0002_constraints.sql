-- What drizzle-kit cannot express: exclusion constraints and expression GIN indexes.
-- Work hours of one clinic, scope, owner and weekday never overlap (half-open ranges, so
-- 09:00-12:00 and 12:00-13:00 coexist). The clinic scope has provider_id NULL; coalesce it so
-- clinic periods are compared with each other too.
ALTER TABLE "work_hours" ADD CONSTRAINT "work_hours_no_overlap" EXCLUDE USING gist (
  "clinic_id" WITH =,
  "scope" WITH =,
  (coalesce("provider_id", '00000000-0000-0000-0000-000000000000'::uuid)) WITH =,
  "weekday" WITH =,
  int4range("opens_min", "closes_min") WITH &&
);--> statement-breakpoint
-- One provider is never booked twice at the same time (canceled appointments do not count).
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_no_double_booking" EXCLUDE USING gist (
  "clinic_id" WITH =,
  "provider_id" WITH =,
  tstzrange("starts_at", "ends_at") WITH &&
) WHERE ("status" = 'booked');--> statement-breakpoint
-- Fuzzy service search (pg_trgm on the accent-folded, lower-cased name).
CREATE INDEX "services_name_trgm_idx" ON "services" USING gin (search_text("name") gin_trgm_ops);
