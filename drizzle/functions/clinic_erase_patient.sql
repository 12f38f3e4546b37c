-- X2 (§21, docs/patient-data.md#erasure): erases a patient from one clinic in one transaction on the
-- clinic's shard. It first locks the clinic's row FOR UPDATE: every write that adds a row of the
-- clinic (a booking, a waitlist entry, a message) checks its foreign key with a key-share lock of
-- that row, so none that could carry the patient's values commits while the erasure runs — the ones
-- under way finish first and are erased, the ones after wait and are new. Then it matches the
-- patient by user id, or e-mail (case-insensitive) or phone on appointments, series, waitlist
-- entries, messages and memberships (clinic_match_patient, the one definition the exports share);
-- gathers the personal values those rows hold; cancels the future appointments without a message
-- (clinic.quiet_messages), each with its event; removes the values everywhere
-- (clinic_scrub_patient); and records `patient.erased` in the audit trail and as an event, without
-- the erased values. Idempotent: a second call matches nothing, erases nothing and
-- records nothing, and answers the same pseudonym (computed by the caller from the identifier).
-- p: user_id | email | phone, pseudonym, reason, actor_email, now, manage_key.
CREATE OR REPLACE FUNCTION clinic_erase_patient(p_clinic_id uuid, p jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_user uuid := nullif(p->>'user_id', '')::uuid;
  v_email text := lower(nullif(p->>'email', ''));
  v_phone text := nullif(p->>'phone', '');
  v_now timestamptz := (p->>'now')::timestamptz;
  v_pseudonym text := p->>'pseudonym';
  v_users uuid[];
  v_ids uuid[];
  v_series uuid[];
  v_entries uuid[];
  v_emails text[];
  v_phones text[];
  v_names text[];
  v_values text[];
  v_future record;
  v_erased jsonb;
  v_match jsonb;
  v_matched_by text := CASE WHEN v_user IS NOT NULL THEN 'patient_user_id' WHEN v_email IS NOT NULL THEN 'email' ELSE 'phone_e164' END;
BEGIN
  PERFORM 1 FROM clinics c WHERE c.id = p_clinic_id FOR UPDATE;
  -- Who the patient is: their accounts, rows and addresses, by the one definition the exports share.
  v_match := clinic_match_patient(p_clinic_id, p);
  v_users := ARRAY(SELECT jsonb_array_elements_text(v_match->'user_ids')::uuid);
  v_ids := ARRAY(SELECT jsonb_array_elements_text(v_match->'appointment_ids')::uuid);
  v_series := ARRAY(SELECT jsonb_array_elements_text(v_match->'series_ids')::uuid);
  v_entries := ARRAY(SELECT jsonb_array_elements_text(v_match->'waitlist_ids')::uuid);
  -- Every value those rows hold: names (replaced by the pseudonym where a copy is about them) and
  -- addresses, notes and answers (removed wherever a copy holds them).
  v_emails := ARRAY(SELECT jsonb_array_elements_text(v_match->'emails'));
  v_phones := ARRAY(SELECT jsonb_array_elements_text(v_match->'phones'));
  SELECT coalesce(array_agg(DISTINCT lower(x)) FILTER (WHERE x IS NOT NULL AND x NOT LIKE 'erased-%'), '{}') INTO v_names FROM (
    SELECT a.patient_name AS x FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.id = ANY (v_ids)
    UNION SELECT r.patient_name FROM appointment_series r WHERE r.clinic_id = p_clinic_id AND r.id = ANY (v_series)
    UNION SELECT w.patient_name FROM waitlist_entries w WHERE w.clinic_id = p_clinic_id AND w.id = ANY (v_entries)) s;
  SELECT coalesce(array_agg(DISTINCT lower(x)) FILTER (WHERE x IS NOT NULL AND x <> ''), '{}') INTO v_values FROM (
    SELECT a.notes AS x FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.id = ANY (v_ids)
    UNION SELECT r.notes FROM appointment_series r WHERE r.clinic_id = p_clinic_id AND r.id = ANY (v_series)
    -- Free answers (text, e-mail, phone, date, number); the options of a choice are the clinic's words.
    UNION SELECT CASE WHEN jsonb_typeof(e->'value') = 'string' THEN e->>'value' ELSE NULL END
    FROM appointments a, jsonb_array_elements(a.answers) AS e
    WHERE a.clinic_id = p_clinic_id AND a.id = ANY (v_ids) AND e->>'type' NOT IN ('choice', 'multi_choice', 'boolean')) s;
  v_values := v_values || v_emails || v_phones;

  IF cardinality(v_ids) + cardinality(v_series) + cardinality(v_entries) = 0
     AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.clinic_id = p_clinic_id AND lower(m."to") = ANY (v_emails)) THEN
    RETURN jsonb_build_object('pseudonym', v_pseudonym, 'erased', jsonb_build_object('appointments', 0, 'messages', 0,
      'waitlist_entries', 0, 'events', 0, 'deliveries', 0, 'audit_entries', 0));
  END IF;

  v_erased := clinic_scrub_patient(p_clinic_id, jsonb_build_object('appointment_ids', to_jsonb(v_ids), 'series_ids', to_jsonb(v_series),
    'waitlist_ids', to_jsonb(v_entries), 'user_ids', to_jsonb(v_users), 'emails', to_jsonb(v_emails), 'values', to_jsonb(v_values),
    'names', to_jsonb(v_names), 'pseudonym', v_pseudonym, 'now', v_now, 'manage_key', p->>'manage_key'));

  -- The future appointments end, told to nobody: canceled (a hold too), their time freed.
  PERFORM set_config('clinic.quiet_messages', 'on', true);
  FOR v_future IN
    SELECT a.id, a.provider_id, a.status FROM appointments a
    WHERE a.clinic_id = p_clinic_id AND a.id = ANY (v_ids) AND a.starts_at > v_now AND a.status IN ('held', 'pending', 'booked')
    ORDER BY a.starts_at, a.id
    FOR UPDATE
  LOOP
    UPDATE appointments a SET status = 'canceled', canceled_at = v_now, held_until = NULL,
      status_history = a.status_history || jsonb_build_array(clinic_status_entry('canceled', v_now, NULL, 'patient_erased'))
    WHERE a.clinic_id = p_clinic_id AND a.id = v_future.id;
    PERFORM clinic_sync_busy(p_clinic_id, v_future.id, ARRAY[v_future.provider_id], v_now);
    PERFORM clinic_bookings_changed(p_clinic_id, ARRAY[v_future.provider_id]);
    IF v_future.status <> 'held' THEN
      PERFORM clinic_record_event(p_clinic_id, 'appointment.canceled', clinic_appointment_json(p_clinic_id, v_future.id));
    END IF;
  END LOOP;
  PERFORM set_config('clinic.quiet_messages', 'off', true);

  INSERT INTO audit_log (clinic_id, action, resource_type, resource_id, user_email, details)
  VALUES (p_clinic_id, 'PATIENT_ERASED', 'patient', md5(p_clinic_id::text || ':' || v_pseudonym)::uuid, p->>'actor_email',
          jsonb_build_object('pseudonym', v_pseudonym, 'reason', p->>'reason', 'matched_by', v_matched_by, 'erased', v_erased));
  PERFORM clinic_record_event(p_clinic_id, 'patient.erased',
    jsonb_build_object('pseudonym', v_pseudonym, 'reason', p->>'reason', 'erased', v_erased));
  RETURN jsonb_build_object('pseudonym', v_pseudonym, 'erased', v_erased);
END $function$;
