-- A patient's own appointments, indexed only where there is a patient user (issue 49): a staff
-- booking for a patient by name wrote a B-tree entry with a null key that no query reads. Every
-- reader names the patient (patient_user_id = …), which implies the predicate. Rebuilt in place:
-- the table's writes wait while the index builds.
DROP INDEX "appointments_patient_start_idx";--> statement-breakpoint
CREATE INDEX "appointments_patient_start_idx" ON "appointments" USING btree ("patient_user_id","starts_at","id") WHERE "appointments"."patient_user_id" is not null;
