-- The database clock in milliseconds (the transaction's start), from which availability versions
-- are numbered: a new version row starts at it and a bump takes greatest(version + 1, it). So a
-- version never names two states of its scope, even after a restore or failover that lost commits:
-- a change made after it is numbered above everything handed out before (unless the new server's
-- clock is behind by more than the failover took; docs/performance.md#versions-that-never-repeat).
-- §6 coherence and §17 ETags compare versions for equality. Called by clinic_bookings_changed,
-- clinic_claim_busy, clinic_sync_busy and invalidateAvailability
-- (modules/availability/versions.ts), always as a value computed before the write: the inserted
-- value, which reaches an upsert's update as `excluded`, or a variable of an UPDATE (Citus takes
-- only immutable functions in an UPDATE's or ON CONFLICT DO UPDATE's SET).
CREATE OR REPLACE FUNCTION clinic_version_clock()
 RETURNS bigint
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
  SELECT (extract(epoch FROM now()) * 1000)::bigint
$function$;
