-- An appointment as the API answers it to those who may see its answers (§19: staff, the provider,
-- the patient): clinic_appointment_json plus `answers`, or null when the clinic has no such
-- appointment. The answer of every write function (clinic_book_appointment,
-- clinic_reschedule_appointment, clinic_set_status; a replayed key's too) and of a series'
-- occurrences (clinic_series_json). Events, messages and webhook payloads take
-- clinic_appointment_json, which has no answers (docs/questions.md#who-sees-answers). Its twin is
-- toAppointment (modules/booking/appointments.ts); appointmentTwins.test.ts compares them.
CREATE OR REPLACE FUNCTION clinic_appointment_view(p_clinic_id uuid, p_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
  v_view jsonb;
  v_answers jsonb;
BEGIN
  -- Two statements: on Citus a function that reads cannot run inside a query of a shard.
  v_view := clinic_appointment_json(p_clinic_id, p_id);
  IF v_view IS NULL THEN
    RETURN NULL;
  END IF;
  SELECT a.answers INTO v_answers FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.id = p_id;
  RETURN v_view || jsonb_build_object('answers', v_answers);
END $function$;
