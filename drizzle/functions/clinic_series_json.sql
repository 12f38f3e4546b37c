-- A series as the API shows it (§14 Series: R1, R2, R3; seriesOutput in modules/series/view.ts),
-- its occurrences by start, each as clinic_appointment_view (with answers); null when the clinic has no such
-- series. Called by clinic_book_series (its answer, and a replayed key's) and by getSeries
-- (modules/series/read.ts: R2, and R3's answer). One call per occurrence, in a loop: on Citus a
-- function that reads cannot run inside a query of a shard.
CREATE OR REPLACE FUNCTION clinic_series_json(p_clinic_id uuid, p_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
  v_series jsonb;
  v_occurrences jsonb := '[]'::jsonb;
  v_id uuid;
BEGIN
  SELECT jsonb_build_object(
      'id', r.id, 'clinic_id', r.clinic_id, 'service_id', r.service_id, 'provider_id', r.provider_id, 'rrule', r.rrule,
      'start', clinic_iso_instant(r.starts_at), 'mode', r.mode,
      'patient', jsonb_build_object('name', r.patient_name, 'email', r.patient_email, 'phone_e164', r.patient_phone_e164),
      'patient_user_id', r.patient_user_id, 'notes', r.notes, 'skipped', r.skipped, 'created_at', clinic_iso_instant(r.created_at))
    INTO v_series
  FROM appointment_series r WHERE r.clinic_id = p_clinic_id AND r.id = p_id;
  IF v_series IS NULL THEN
    RETURN NULL;
  END IF;
  -- One call per occurrence in a loop: on Citus a function that reads cannot run inside a query
  -- of a shard.
  FOR v_id IN SELECT a.id FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.series_id = p_id ORDER BY a.starts_at, a.id LOOP
    v_occurrences := v_occurrences || jsonb_build_array(clinic_appointment_view(p_clinic_id, v_id));
  END LOOP;
  RETURN v_series || jsonb_build_object('occurrences', v_occurrences);
END $function$;
