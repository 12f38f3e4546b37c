-- The booking path (docs/performance.md#the-booking-path): one read of what the check of one start
-- needs, then one write that does the whole booking. Both run where the clinic's rows are (on Citus
-- they are distributed functions, co-located by their first argument). An instant in the JSON they
-- answer is written as JavaScript writes it (ISO 8601, milliseconds, Z).
CREATE OR REPLACE FUNCTION clinic_iso_instant(p_at timestamp with time zone)
 RETURNS text
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
  SELECT to_char(p_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$function$;
