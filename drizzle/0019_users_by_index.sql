-- Every foreign key to users indexed by its column. Deleting a user (a first login that folds an
-- invited placeholder into the real identity deletes the placeholder: modules/identity/users.ts)
-- sets appointments.booked_by_user_id to null and deletes the user's memberships and patient rows;
-- each of these found its rows by a scan of every clinic's rows: 3.4 s per 1,000 users on the
-- bench's 170,000 appointments (docs/performance.md). The fold also lists the placeholder's
-- memberships by user_id. Costs a booking one more index entry.
CREATE INDEX "appointments_booked_by_idx" ON "appointments" USING btree ("booked_by_user_id");--> statement-breakpoint
CREATE INDEX "clinic_members_user_idx" ON "clinic_members" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "clinic_patients_user_idx" ON "clinic_patients" USING btree ("user_id");