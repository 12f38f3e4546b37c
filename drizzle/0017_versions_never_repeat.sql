-- A version never names two states of its scope. Versions counted up from 1, so after a restore
-- or a failover that lost commits (asynchronous replication) the next changes handed out again the
-- numbers the lost ones had had, and a process that had kept an availability answer (or a
-- service's candidates and hours, 0015) under such a number served it for the new state. Now a new
-- row starts at the database clock's milliseconds and a bump takes the greater of the next number
-- and the clock, so a change made after the loss is numbered above everything handed out before it
-- (as long as the new server's clock is not behind the old one's by more than the failover took:
-- docs/performance.md#versions-that-never-repeat). The clock goes in as the inserted value and
-- reaches the update as `excluded` (Citus takes no function but immutable ones in DO UPDATE SET).
CREATE OR REPLACE FUNCTION clinic_version_clock() RETURNS bigint
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT (extract(epoch FROM now()) * 1000)::bigint
$$;
--> statement-breakpoint
-- 0008, numbered by the clock.
CREATE OR REPLACE FUNCTION clinic_bookings_changed(p_clinic_id uuid, p_providers uuid[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_provider uuid;
BEGIN
  FOREACH v_provider IN ARRAY (SELECT array_agg(DISTINCT x ORDER BY x) FROM unnest(p_providers) AS x) LOOP
    INSERT INTO availability_versions AS v (clinic_id, scope_id, version) VALUES (p_clinic_id, v_provider, clinic_version_clock())
    ON CONFLICT (clinic_id, scope_id) DO UPDATE SET version = greatest(v.version + 1, excluded.version);
  END LOOP;
END $$;
--> statement-breakpoint
-- 0012, numbered by the clock.
CREATE OR REPLACE FUNCTION clinic_claim_busy(p_clinic_id uuid, p_appointment_id uuid, p_provider uuid, p_occupied_start timestamptz,
  p_occupied_end timestamptz, p_session uuid, p_held_until timestamptz, p_now timestamptz) RETURNS void
LANGUAGE plpgsql AS $$
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
END $$;
--> statement-breakpoint
-- 0013, numbered by the clock.
CREATE OR REPLACE FUNCTION clinic_sync_busy(p_clinic_id uuid, p_appointment_id uuid, p_users uuid[], p_now timestamptz) RETURNS void
LANGUAGE plpgsql AS $$
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
END $$;
