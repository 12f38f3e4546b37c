-- An appointment as the API shows it (clinic_appointments_json, the shape's one home), or null when
-- the clinic has no such appointment. The answer of every write function (clinic_book_appointment,
-- clinic_reschedule_appointment, clinic_set_status, clinic_book_series; a replayed key's too) and
-- the data of their events (clinic_expire_confirmation's too); clinic_series_json builds a series'
-- occurrences with it.
CREATE OR REPLACE FUNCTION clinic_appointment_json(p_clinic_id uuid, p_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
AS $function$
BEGIN
  RETURN (SELECT j.data FROM clinic_appointments_json(p_clinic_id, ARRAY[p_id]) j);
END $function$;
