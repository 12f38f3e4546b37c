-- The read of a booking or an availability miss starts with every availability_versions row of the
-- clinic. A table of one row per clinic and provider is small, so its plan is a sequential scan;
-- but every booking updates a row of it, and until a vacuum the scan reads every dead version of
-- every clinic's rows too (2.4 ms a call on a database never vacuumed, 0.14 ms within 30 s of
-- bookings after a vacuum; by the primary key's index 0.07 ms: docs/performance.md). Every
-- statement of the read looks rows up by their clinic, for which an index exists: the read never
-- scans a table whole.
ALTER FUNCTION clinic_schedule_context(uuid, jsonb) SET enable_seqscan = off;
