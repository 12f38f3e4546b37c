-- An instant as the API writes it (§1: ISO 8601 UTC with milliseconds and Z, as JavaScript's
-- toISOString writes it), in every JSON the database functions answer or store (appointments,
-- series, status_history, jobs, the read's rows, refusals' details). Called by most clinic_
-- functions. STABLE, as its body (to_char) is, so that PostgreSQL inlines it: an IMMUTABLE
-- declaration over a STABLE body is never inlined (docs/performance.md#planning-once).
-- Copied to every node on Citus (it has no clinic argument).
CREATE OR REPLACE FUNCTION clinic_iso_instant(p_at timestamp with time zone)
 RETURNS text
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
  SELECT to_char(p_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$function$;
