-- Member name and contact details belong to the membership (docs/providers-services.md): copy the
-- e-mail and phone each membership showed so far from its user, then stop reading them from there.
ALTER TABLE "clinic_members" ADD COLUMN "email" text;--> statement-breakpoint
ALTER TABLE "clinic_members" ADD COLUMN "phone_e164" text;--> statement-breakpoint
UPDATE "clinic_members" AS m SET "email" = u."email", "phone_e164" = u."phone_e164" FROM "users" AS u WHERE u."id" = m."user_id";--> statement-breakpoint
ALTER TABLE "clinic_members" ALTER COLUMN "email" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "clinic_members" ADD CONSTRAINT "clinic_members_email_length" CHECK (char_length("clinic_members"."email") between 3 and 320);--> statement-breakpoint
-- A user invited by id (M1 with user_id) may have no known e-mail until their first sign-in.
ALTER TABLE "users" ALTER COLUMN "email" DROP NOT NULL;--> statement-breakpoint
-- Who booked an appointment: a role below STAFF may cancel only its own bookings.
ALTER TABLE "appointments" ADD COLUMN "booked_by_user_id" uuid;--> statement-breakpoint
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_booked_by_fk" FOREIGN KEY ("booked_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
