-- Guest holds cannot hoard a clinic's time (CONTRACT §15 v1.3, docs/manage-links.md#guest-holds): a
-- clinic keeps at most 3 unconfirmed guest holds per client address and 1 per e-mail address, and
-- at most its guest_holds_max of them in all. A guest's hold records the keyed hash of the address
-- it came from (never the address itself), by which it is counted. The write that counts them is
-- the function clinic_book_guest_hold (drizzle/functions/clinic_book_guest_hold.sql).
ALTER TABLE "appointments" ADD COLUMN "guest_address_hash" text;--> statement-breakpoint
ALTER TABLE "clinics" ADD COLUMN "guest_holds_max" integer DEFAULT 20 NOT NULL;--> statement-breakpoint
CREATE INDEX "appointments_guest_holds_idx" ON "appointments" USING btree ("clinic_id","held_until") WHERE "appointments"."status" = 'held' and "appointments"."guest_address_hash" is not null;--> statement-breakpoint
ALTER TABLE "clinics" ADD CONSTRAINT "clinics_guest_holds_max_range" CHECK ("clinics"."guest_holds_max" between 0 and 1000);
