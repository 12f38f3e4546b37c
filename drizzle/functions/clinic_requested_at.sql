-- When a pending appointment was requested: the instant of its last `pending` entry in
-- status_history (§13). Its confirmation expires 48 hours after that, or at its start
-- (clinic_expire_confirmation); clinic_reschedule_appointment queues that expiry again for the new
-- start. STABLE, as its body is, so that PostgreSQL inlines it.
CREATE OR REPLACE FUNCTION clinic_requested_at(p_history jsonb)
 RETURNS timestamp with time zone
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
  SELECT max((e->>'at')::timestamptz) FROM jsonb_array_elements(p_history) AS e WHERE e->>'status' = 'pending'
$function$;
