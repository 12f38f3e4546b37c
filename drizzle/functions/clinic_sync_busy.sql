-- Makes an appointment's shared time what the appointment now is, after a change that frees or
-- moves it. §14 resources: a canceled or deleted appointment's resource_bookings go (their kinds'
-- versions bumped); otherwise they take its held_until (a booked hold's goes). §14 one person, many
-- clinics: its provider_busy row is rewritten (none if canceled), an expired hold in the way is
-- deleted, and the providers' versions are bumped in every clinic of theirs, in (clinic, provider)
-- order, so two clinics' writers never wait in a circle; a provider of one clinic costs one read.
-- Called by clinic_set_status (a decline), clinic_release_hold, clinic_expire_confirmation,
-- clinic_reschedule_appointment (the former provider) and syncProviderBusy
-- (modules/booking/busy.ts: a cancel, a waitlist offer taken back).
CREATE OR REPLACE FUNCTION clinic_sync_busy(p_clinic_id uuid, p_appointment_id uuid, p_users uuid[], p_now timestamp with time zone)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_shared uuid[];
  v_a record;
  v_pairs jsonb;
  v_pair jsonb;
  v_kinds text[];
  v_kind text;
BEGIN
  -- Resources: held while the appointment occupies time (a booked hold's held_until goes).
  SELECT a.status, a.held_until INTO v_a FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.id = p_appointment_id;
  IF NOT FOUND OR v_a.status = 'canceled' THEN
    WITH gone AS (
      DELETE FROM resource_bookings r WHERE r.clinic_id = p_clinic_id AND r.appointment_id = p_appointment_id RETURNING r.resource_id)
    SELECT array_agg(DISTINCT s.kind ORDER BY s.kind) INTO v_kinds
    FROM resources s WHERE s.clinic_id = p_clinic_id AND s.id IN (SELECT resource_id FROM gone);
    FOREACH v_kind IN ARRAY coalesce(v_kinds, '{}') LOOP
      INSERT INTO availability_versions AS v (clinic_id, scope_id, version) VALUES (p_clinic_id, clinic_kind_scope(p_clinic_id, v_kind), clinic_version_clock())
      ON CONFLICT (clinic_id, scope_id) DO UPDATE SET version = greatest(v.version + 1, excluded.version);
    END LOOP;
  ELSE
    UPDATE resource_bookings r SET held_until = v_a.held_until
    WHERE r.clinic_id = p_clinic_id AND r.appointment_id = p_appointment_id AND r.held_until IS DISTINCT FROM v_a.held_until;
  END IF;
  SELECT coalesce(array_agg(s.user_id ORDER BY s.user_id), '{}') INTO v_shared FROM shared_providers s WHERE s.user_id = ANY (p_users);
  IF cardinality(v_shared) = 0 THEN
    RETURN;
  END IF;
  DELETE FROM provider_busy b WHERE b.user_id = ANY (v_shared) AND b.clinic_id = p_clinic_id AND b.appointment_id = p_appointment_id;
  SELECT a.provider_id, a.occupied_start, a.occupied_end, a.session_key, a.held_until, a.status INTO v_a
  FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.id = p_appointment_id;
  IF FOUND AND v_a.status <> 'canceled' AND v_a.provider_id = ANY (v_shared) THEN
    -- Another clinic's expired hold in the way occupies nothing (its own clinic deletes its row later).
    DELETE FROM provider_busy b
    WHERE b.user_id = v_a.provider_id AND b.held_until IS NOT NULL AND b.held_until <= p_now
      AND b.occupied_start < v_a.occupied_end AND b.occupied_end > v_a.occupied_start;
    INSERT INTO provider_busy (user_id, clinic_id, appointment_id, occupied_start, occupied_end, session_key, held_until)
    VALUES (v_a.provider_id, p_clinic_id, p_appointment_id, v_a.occupied_start, v_a.occupied_end, v_a.session_key, v_a.held_until);
  END IF;
  -- Every clinic of these providers must see the change in its cached availability: their
  -- versions there are bumped, in one order (clinic, then provider), so that two clinics' writers
  -- never wait for each other in a circle.
  SELECT coalesce(jsonb_agg(jsonb_build_object('clinic', c, 'user', s.user_id) ORDER BY c, s.user_id), '[]'::jsonb) INTO v_pairs
  FROM shared_providers s, unnest(s.clinic_ids) AS c WHERE s.user_id = ANY (v_shared);
  FOR v_pair IN SELECT x FROM jsonb_array_elements(v_pairs) AS x LOOP
    INSERT INTO availability_versions AS v (clinic_id, scope_id, version) VALUES ((v_pair->>'clinic')::uuid, (v_pair->>'user')::uuid, clinic_version_clock())
    ON CONFLICT (clinic_id, scope_id) DO UPDATE SET version = greatest(v.version + 1, excluded.version);
  END LOOP;
END $function$;
