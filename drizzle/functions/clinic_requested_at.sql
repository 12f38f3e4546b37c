-- When a pending appointment was requested: its last `pending` entry (the clock of the request).
CREATE OR REPLACE FUNCTION clinic_requested_at(p_history jsonb)
 RETURNS timestamp with time zone
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
  SELECT max((e->>'at')::timestamptz) FROM jsonb_array_elements(p_history) AS e WHERE e->>'status' = 'pending'
$function$;
