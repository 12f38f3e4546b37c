-- Queues the writers of one provider's start in a clinic (docs/front-desk.md): a transaction-level
-- advisory lock of (clinic, provider, start), held until the commit, or until the subtransaction
-- that took it is rolled back. Taken by clinic_book_appointment (per candidate, right before its
-- insert) and clinic_reschedule_appointment (before its move), so that racers for one slot meet the
-- exclusion constraints one at a time instead of waiting for each other's uncommitted rows there
-- (a cycle; on Citus a livelock). The constraints still decide.
CREATE OR REPLACE FUNCTION clinic_queue_slot(p_clinic_id uuid, p_provider uuid, p_start timestamp with time zone)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended(
    'clinic-slot:' || p_clinic_id::text || ':' || p_provider::text || ':' || clinic_iso_instant(p_start), 0));
END $function$;
