-- A provider's daily limit (CONTRACT §8 v1.4, issue 46, docs/availability.md#a-providers-daily-limit):
-- at most this many appointments that occupy time start on one clinic-local date; null = no limit.
-- Data only: the rule is the slot engine's (explainStart), re-checked by the booking writes under the
-- provider's version row lock (docs/database-functions.md#adding-a-booking-rule).
ALTER TABLE "clinic_members" ADD COLUMN "max_daily_appointments" integer;--> statement-breakpoint
ALTER TABLE "clinic_members" ADD CONSTRAINT "clinic_members_max_daily_appointments_range" CHECK ("max_daily_appointments" is null or "max_daily_appointments" between 1 and 100);
