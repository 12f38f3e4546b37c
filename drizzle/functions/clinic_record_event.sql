-- Records one event of the SQL writers in the transaction of its change (§10): clinic_record_events
-- with one (p_appointment: the event as its appointment's snapshot, p_data its own keys or null).
-- Called by clinic_book_appointment, clinic_book_series, clinic_reschedule_appointment,
-- clinic_set_status and clinic_expire_confirmation, after their change.
CREATE OR REPLACE FUNCTION clinic_record_event(p_clinic_id uuid, p_type text, p_data jsonb,
                                               p_appointment appointment_snapshot DEFAULT NULL)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM clinic_record_events(p_clinic_id, p_type, ARRAY[p_data], ARRAY[p_appointment]);
END $function$;
