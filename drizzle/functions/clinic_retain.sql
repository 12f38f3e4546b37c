-- One batch of a clinic's retention run (§21, docs/patient-data.md#retention), in one short
-- transaction on the clinic's shard: the appointments named in p.groups that ended before p.cutoff
-- and still hold personal values lose them, patient by patient, in the way an erasure removes them
-- (clinic_scrub_patient with search false: only the copies ABOUT these rows — their messages,
-- events, deliveries, idempotency records and audit details — because the same patient may have
-- newer appointments whose copies hold the same address). A series goes with its last appointment:
-- once none of its appointments ends at or after the cutoff. The clinic's row is key-share locked
-- first, as every booking does: a batch waits for an erasure under way (which locks it FOR UPDATE)
-- and an erasure for the batch, so the two never interleave their updates of the same copies.
-- The caller (modules/patientData/retention.ts) picks the batch and computes each patient's
-- pseudonym (a keyed hash, in TypeScript); a row that no longer qualifies when locked is skipped,
-- so a batch run twice changes nothing the second time. Answers the summed counts.
-- p: cutoff, now, groups: [{pseudonym, manage_key, appointment_ids}]
CREATE OR REPLACE FUNCTION clinic_retain(p_clinic_id uuid, p jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_cutoff timestamptz := (p->>'cutoff')::timestamptz;
  v_group jsonb;
  v_ids uuid[];
  v_series uuid[];
  v_names text[];
  v_values text[];
  v_counts jsonb;
  v_total jsonb := jsonb_build_object('appointments', 0, 'messages', 0, 'waitlist_entries', 0, 'events', 0,
    'deliveries', 0, 'audit_entries', 0);
BEGIN
  PERFORM 1 FROM clinics c WHERE c.id = p_clinic_id FOR KEY SHARE;
  FOR v_group IN SELECT g FROM jsonb_array_elements(coalesce(p->'groups', '[]'::jsonb)) AS g LOOP
    -- The group's appointments that still qualify, locked (in id order: no two batches deadlock).
    SELECT coalesce(array_agg(x.id), '{}') INTO v_ids FROM (
      SELECT a.id FROM appointments a
      WHERE a.clinic_id = p_clinic_id
        AND a.id = ANY (ARRAY(SELECT jsonb_array_elements_text(coalesce(v_group->'appointment_ids', '[]'::jsonb))::uuid))
        AND a.ends_at < v_cutoff
        AND (a.patient_name NOT LIKE 'erased-%' OR a.patient_email IS NOT NULL OR a.patient_phone_e164 IS NOT NULL
          OR a.notes IS NOT NULL OR a.answers <> '[]'::jsonb OR a.patient_user_id IS NOT NULL OR a.guest_address_hash IS NOT NULL)
      ORDER BY a.id
      FOR UPDATE) x;
    CONTINUE WHEN cardinality(v_ids) = 0;
    -- Their series whose every appointment has ended before the cutoff.
    SELECT coalesce(array_agg(DISTINCT a.series_id), '{}') INTO v_series FROM appointments a
    WHERE a.clinic_id = p_clinic_id AND a.id = ANY (v_ids) AND a.series_id IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM appointments b
                      WHERE b.clinic_id = p_clinic_id AND b.series_id = a.series_id AND b.ends_at >= v_cutoff);
    -- Names (replaced by the pseudonym where a copy is about these rows) and the values removed
    -- from those copies: addresses, notes, free answers (the options of a choice are the clinic's).
    SELECT coalesce(array_agg(DISTINCT lower(x)) FILTER (WHERE x IS NOT NULL AND x NOT LIKE 'erased-%'), '{}') INTO v_names FROM (
      SELECT a.patient_name AS x FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.id = ANY (v_ids)
      UNION SELECT r.patient_name FROM appointment_series r WHERE r.clinic_id = p_clinic_id AND r.id = ANY (v_series)) s;
    SELECT coalesce(array_agg(DISTINCT lower(x)) FILTER (WHERE x IS NOT NULL AND x <> ''), '{}') INTO v_values FROM (
      SELECT a.patient_email AS x FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.id = ANY (v_ids)
      UNION SELECT a.patient_phone_e164 FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.id = ANY (v_ids)
      UNION SELECT a.notes FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.id = ANY (v_ids)
      UNION SELECT r.patient_email FROM appointment_series r WHERE r.clinic_id = p_clinic_id AND r.id = ANY (v_series)
      UNION SELECT r.patient_phone_e164 FROM appointment_series r WHERE r.clinic_id = p_clinic_id AND r.id = ANY (v_series)
      UNION SELECT r.notes FROM appointment_series r WHERE r.clinic_id = p_clinic_id AND r.id = ANY (v_series)
      UNION SELECT CASE WHEN jsonb_typeof(e->'value') = 'string' THEN e->>'value' ELSE NULL END
      FROM appointments a, jsonb_array_elements(a.answers) AS e
      WHERE a.clinic_id = p_clinic_id AND a.id = ANY (v_ids) AND e->>'type' NOT IN ('choice', 'multi_choice', 'boolean')) s;
    v_counts := clinic_scrub_patient(p_clinic_id, jsonb_build_object('appointment_ids', to_jsonb(v_ids),
      'series_ids', to_jsonb(v_series), 'waitlist_ids', '[]'::jsonb, 'user_ids', '[]'::jsonb, 'emails', '[]'::jsonb,
      'values', to_jsonb(v_values), 'names', to_jsonb(v_names), 'pseudonym', v_group->>'pseudonym', 'now', p->'now',
      'manage_key', v_group->>'manage_key', 'search', false));
    SELECT jsonb_object_agg(k, (v_total->>k)::bigint + coalesce((v_counts->>k)::bigint, 0)) INTO v_total
    FROM jsonb_object_keys(v_total) AS k;
  END LOOP;
  RETURN v_total;
END $function$;
