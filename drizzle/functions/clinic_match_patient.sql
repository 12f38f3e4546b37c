-- Who "the patient" is in one clinic (§21, docs/patient-data.md#who-the-patient-is): the one
-- definition the erasure (clinic_erase_patient, X2) and the exports (modules/patientData/export.ts,
-- X1 and X3) share. The patient's accounts are the user id given plus the clinic's members with the
-- given e-mail (any case) or phone, and the accounts of the appointments and waitlist entries with
-- that e-mail or phone; their appointments, series and waitlist entries are the rows of
-- those accounts or with that e-mail (any case) or phone; a series also when one of its occurrences
-- is theirs. Their addresses are the ones given plus every one those rows hold (e-mails lower-cased):
-- the messages to them are found by these. p: user_id, email, phone — any of them (X1 and X2 give
-- one; X3 the caller's account id, e-mail and phone at once), absent or null when not given.
-- Answers {user_ids, appointment_ids, series_ids, waitlist_ids, emails, phones}; only reads.
CREATE OR REPLACE FUNCTION clinic_match_patient(p_clinic_id uuid, p jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
  v_user uuid := nullif(p->>'user_id', '')::uuid;
  v_email text := lower(nullif(p->>'email', ''));
  v_phone text := nullif(p->>'phone', '');
  v_users uuid[];
  v_ids uuid[];
  v_series uuid[];
  v_entries uuid[];
  v_emails text[];
  v_phones text[];
BEGIN
  -- The patient's accounts: the one named, or the members with that address.
  SELECT coalesce(array_agg(DISTINCT x), '{}') INTO v_users FROM (
    SELECT v_user AS x WHERE v_user IS NOT NULL
    UNION SELECT m.user_id FROM clinic_members m
    WHERE m.clinic_id = p_clinic_id AND ((v_email IS NOT NULL AND lower(m.email) = v_email) OR (v_phone IS NOT NULL AND m.phone_e164 = v_phone))) s;
  -- The accounts of the appointments and waitlist entries found by address are the patient's too
  -- (one step: their rows under other addresses join; their clinic_patients row goes with them).
  SELECT coalesce(array_agg(DISTINCT x), '{}') INTO v_users FROM (
    SELECT unnest(v_users) AS x
    UNION SELECT a.patient_user_id FROM appointments a
    WHERE a.clinic_id = p_clinic_id AND a.patient_user_id IS NOT NULL
      AND ((v_email IS NOT NULL AND lower(a.patient_email) = v_email) OR (v_phone IS NOT NULL AND a.patient_phone_e164 = v_phone))
    UNION SELECT w.patient_user_id FROM waitlist_entries w
    WHERE w.clinic_id = p_clinic_id AND w.patient_user_id IS NOT NULL
      AND ((v_email IS NOT NULL AND lower(w.patient_email) = v_email) OR (v_phone IS NOT NULL AND w.patient_phone_e164 = v_phone))) s;
  SELECT coalesce(array_agg(a.id ORDER BY a.starts_at, a.id), '{}') INTO v_ids FROM appointments a
  WHERE a.clinic_id = p_clinic_id AND (a.patient_user_id = ANY (v_users)
    OR (v_email IS NOT NULL AND lower(a.patient_email) = v_email) OR (v_phone IS NOT NULL AND a.patient_phone_e164 = v_phone));
  SELECT coalesce(array_agg(r.id ORDER BY r.starts_at, r.id), '{}') INTO v_series FROM appointment_series r
  WHERE r.clinic_id = p_clinic_id AND (r.patient_user_id = ANY (v_users) OR r.id IN (SELECT a.series_id FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.id = ANY (v_ids))
    OR (v_email IS NOT NULL AND lower(r.patient_email) = v_email) OR (v_phone IS NOT NULL AND r.patient_phone_e164 = v_phone));
  SELECT coalesce(array_agg(w.id ORDER BY w.created_at, w.id), '{}') INTO v_entries FROM waitlist_entries w
  WHERE w.clinic_id = p_clinic_id AND (w.patient_user_id = ANY (v_users)
    OR (v_email IS NOT NULL AND lower(w.patient_email) = v_email) OR (v_phone IS NOT NULL AND w.patient_phone_e164 = v_phone));
  -- Every address those rows hold, and the ones given.
  SELECT coalesce(array_agg(DISTINCT lower(x)) FILTER (WHERE x IS NOT NULL), '{}') INTO v_emails FROM (
    SELECT v_email AS x UNION SELECT a.patient_email FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.id = ANY (v_ids)
    UNION SELECT r.patient_email FROM appointment_series r WHERE r.clinic_id = p_clinic_id AND r.id = ANY (v_series)
    UNION SELECT w.patient_email FROM waitlist_entries w WHERE w.clinic_id = p_clinic_id AND w.id = ANY (v_entries)) s;
  SELECT coalesce(array_agg(DISTINCT x) FILTER (WHERE x IS NOT NULL), '{}') INTO v_phones FROM (
    SELECT v_phone AS x UNION SELECT a.patient_phone_e164 FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.id = ANY (v_ids)
    UNION SELECT r.patient_phone_e164 FROM appointment_series r WHERE r.clinic_id = p_clinic_id AND r.id = ANY (v_series)
    UNION SELECT w.patient_phone_e164 FROM waitlist_entries w WHERE w.clinic_id = p_clinic_id AND w.id = ANY (v_entries)) s;
  RETURN jsonb_build_object('user_ids', to_jsonb(v_users), 'appointment_ids', to_jsonb(v_ids), 'series_ids', to_jsonb(v_series),
    'waitlist_ids', to_jsonb(v_entries), 'emails', to_jsonb(v_emails), 'phones', to_jsonb(v_phones));
END $function$;
