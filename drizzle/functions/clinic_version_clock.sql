-- A version never names two states of its scope. Versions counted up from 1, so after a restore
-- or a failover that lost commits (asynchronous replication) the next changes handed out again the
-- numbers the lost ones had had, and a process that had kept an availability answer (or a
-- service's candidates and hours, 0015) under such a number served it for the new state. Now a new
-- row starts at the database clock's milliseconds and a bump takes the greater of the next number
-- and the clock, so a change made after the loss is numbered above everything handed out before it
-- (as long as the new server's clock is not behind the old one's by more than the failover took:
-- docs/performance.md#versions-that-never-repeat). The clock goes in as the inserted value and
-- reaches the update as `excluded` (Citus takes no function but immutable ones in DO UPDATE SET).
CREATE OR REPLACE FUNCTION clinic_version_clock()
 RETURNS bigint
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
  SELECT (extract(epoch FROM now()) * 1000)::bigint
$function$;
