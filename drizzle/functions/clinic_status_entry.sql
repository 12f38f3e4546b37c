-- An entry of an appointment's status_history.
CREATE OR REPLACE FUNCTION clinic_status_entry(p_status text, p_at timestamp with time zone, p_by uuid, p_reason text)
 RETURNS jsonb
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
  SELECT jsonb_build_object('status', p_status, 'at', clinic_iso_instant(p_at), 'by_user_id', p_by, 'reason', p_reason)
$function$;
