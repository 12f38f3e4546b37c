-- 0012, numbered by the clock.
CREATE OR REPLACE FUNCTION clinic_claim_busy(p_clinic_id uuid, p_appointment_id uuid, p_provider uuid, p_occupied_start timestamp with time zone, p_occupied_end timestamp with time zone, p_session uuid, p_held_until timestamp with time zone, p_now timestamp with time zone)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_clinics uuid[];
  v_clinic uuid;
BEGIN
  SELECT s.clinic_ids INTO v_clinics FROM shared_providers s WHERE s.user_id = p_provider;
  IF v_clinics IS NULL THEN
    RETURN;
  END IF;
  DELETE FROM provider_busy b WHERE b.user_id = p_provider AND b.clinic_id = p_clinic_id AND b.appointment_id = p_appointment_id;
  DELETE FROM provider_busy b
  WHERE b.user_id = p_provider AND b.held_until IS NOT NULL AND b.held_until <= p_now
    AND b.occupied_start < p_occupied_end AND b.occupied_end > p_occupied_start;
  INSERT INTO provider_busy (user_id, clinic_id, appointment_id, occupied_start, occupied_end, session_key, held_until)
  VALUES (p_provider, p_clinic_id, p_appointment_id, p_occupied_start, p_occupied_end, p_session, p_held_until);
  FOREACH v_clinic IN ARRAY (SELECT array_agg(c ORDER BY c) FROM unnest(v_clinics) AS c) LOOP
    INSERT INTO availability_versions AS v (clinic_id, scope_id, version) VALUES (v_clinic, p_provider, clinic_version_clock())
    ON CONFLICT (clinic_id, scope_id) DO UPDATE SET version = greatest(v.version + 1, excluded.version);
  END LOOP;
END $function$;
