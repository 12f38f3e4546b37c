-- An entry of an appointment's status_history (§13: {status, at, by_user_id, reason}, oldest first,
-- one appended by each change). Called by clinic_book_appointment, clinic_set_status,
-- clinic_expire_confirmation and cancelAppointment (modules/booking/cancel.ts: B4, U3, L3, R3).
-- STABLE, as clinic_iso_instant is, so that PostgreSQL inlines it.
CREATE OR REPLACE FUNCTION clinic_status_entry(p_status text, p_at timestamp with time zone, p_by uuid, p_reason text)
 RETURNS jsonb
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
  SELECT jsonb_build_object('status', p_status, 'at', clinic_iso_instant(p_at), 'by_user_id', p_by, 'reason', p_reason)
$function$;
