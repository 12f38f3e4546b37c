-- The hot paths' functions never scan a table whole: every statement of them looks rows up by their
-- clinic, for which an index exists, and on PostgreSQL each connection plans them once (0014), for
-- whatever the tables held then.
--
-- The read starts with every availability_versions row of the clinic. A table of one row per
-- clinic and provider is small, so its plan was a sequential scan; but every booking updates a
-- row of it, and until a vacuum the scan read every dead version of every clinic's rows too
-- (2.4 ms a call on a database never vacuumed, 0.14 ms within 30 s of bookings after a vacuum; by
-- the primary key's index 0.07 ms). And a connection that first planned the write while the
-- appointments were few kept scanning them as they grew: on a freshly migrated database the
-- bookings row of the bench cost PostgreSQL 4.8-5.1 ms a booking, 3.0 ms with this
-- (docs/performance.md, "Where the time goes").
ALTER FUNCTION clinic_schedule_context(uuid, jsonb) SET enable_seqscan = off;
--> statement-breakpoint
ALTER FUNCTION clinic_book_appointment(uuid, jsonb) SET enable_seqscan = off;
--> statement-breakpoint
ALTER FUNCTION clinic_reschedule_appointment(uuid, jsonb) SET enable_seqscan = off;
--> statement-breakpoint
ALTER FUNCTION clinic_set_status(uuid, jsonb) SET enable_seqscan = off;
--> statement-breakpoint
ALTER FUNCTION clinic_release_hold(uuid, jsonb) SET enable_seqscan = off;
--> statement-breakpoint
ALTER FUNCTION clinic_expire_confirmation(uuid, jsonb) SET enable_seqscan = off;
--> statement-breakpoint
ALTER FUNCTION clinic_book_series(uuid, jsonb) SET enable_seqscan = off;
