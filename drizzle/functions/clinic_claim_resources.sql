-- §14 resources: takes one resource of each kind the service needs for the appointment's occupied
-- range (p_wanted: [{kind, ids}], the free ones the read found, in name order): the first that is
-- active, not deleted, not closed and let in by the exclusion constraint
-- resource_bookings_no_overlap, each try in its own subtransaction; an expired hold's row in the
-- way is deleted first. A seat of a group session shares the session's resource of the kind.
-- The appointment's own rows go first (a move claims anew). Answers [{id, name, kind}], which the
-- appointment keeps as its resources; 409 SLOT_UNAVAILABLE (CL001, "no <kind> is free") when a
-- kind has none. p_wait_first (a booking's write after a lost race): each try inserts with ON
-- CONFLICT DO NOTHING first, which waits for an uncommitted conflicting row's writer before the row
-- is in the table (docs/front-desk.md); then, when nothing went in, the plain insert, which names
-- the constraint. Called by clinic_book_appointment (a new booking, or a hold booked: its resources
-- claimed anew, without an end) and clinic_reschedule_appointment (at the new time).
CREATE OR REPLACE FUNCTION clinic_claim_resources(p_clinic_id uuid, p_appointment_id uuid, p_wanted jsonb, p_occupied_start timestamp with time zone, p_occupied_end timestamp with time zone, p_session uuid, p_session_resources jsonb, p_held_until timestamp with time zone, p_now timestamp with time zone, p_wait_first boolean)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_kind jsonb;
  v_resource uuid;
  v_taken jsonb := '[]'::jsonb;
  v_got jsonb;
  v_shared jsonb;
  v_in boolean;
BEGIN
  DELETE FROM resource_bookings r WHERE r.clinic_id = p_clinic_id AND r.appointment_id = p_appointment_id;
  FOR v_kind IN SELECT x FROM jsonb_array_elements(coalesce(p_wanted, '[]'::jsonb)) AS x LOOP
    v_got := NULL;
    -- A seat of a group session shares the session's resource of the kind, if it has one.
    SELECT e INTO v_shared FROM jsonb_array_elements(coalesce(p_session_resources, '[]'::jsonb)) AS e
    WHERE e->>'kind' = v_kind->>'kind' LIMIT 1;
    IF p_session IS NOT NULL AND v_shared IS NOT NULL THEN
      INSERT INTO resource_bookings (clinic_id, resource_id, appointment_id, occupied_start, occupied_end, session_key, held_until)
      VALUES (p_clinic_id, (v_shared->>'id')::uuid, p_appointment_id, p_occupied_start, p_occupied_end, p_session, p_held_until);
      v_got := v_shared;
    ELSE
      FOR v_resource IN SELECT (x #>> '{}')::uuid FROM jsonb_array_elements(coalesce(v_kind->'ids', '[]'::jsonb)) AS x LOOP
        BEGIN
          -- An expired hold in the way holds nothing.
          DELETE FROM resource_bookings r
          WHERE r.clinic_id = p_clinic_id AND r.resource_id = v_resource AND r.held_until IS NOT NULL AND r.held_until <= p_now
            AND r.occupied_start < p_occupied_end AND r.occupied_end > p_occupied_start;
          -- Active, not deleted, of the kind and not closed then; a free one's row goes in by VALUES
          -- (on Citus an INSERT … SELECT … ON CONFLICT DO NOTHING reports a row it did not insert).
          CONTINUE WHEN NOT EXISTS (
            SELECT 1 FROM resources s WHERE s.clinic_id = p_clinic_id AND s.id = v_resource AND s.is_active
              AND s.deleted_at IS NULL AND s.kind = v_kind->>'kind'
              AND NOT EXISTS (SELECT 1 FROM resource_closures c WHERE c.clinic_id = p_clinic_id AND c.resource_id = v_resource
                                AND c.starts_at < p_occupied_end AND c.ends_at > p_occupied_start));
          v_in := false;
          IF p_wait_first THEN
            INSERT INTO resource_bookings (clinic_id, resource_id, appointment_id, occupied_start, occupied_end, session_key, held_until)
            VALUES (p_clinic_id, v_resource, p_appointment_id, p_occupied_start, p_occupied_end, p_session, p_held_until)
            ON CONFLICT DO NOTHING;
            v_in := FOUND;
          END IF;
          IF NOT v_in THEN
            INSERT INTO resource_bookings (clinic_id, resource_id, appointment_id, occupied_start, occupied_end, session_key, held_until)
            VALUES (p_clinic_id, v_resource, p_appointment_id, p_occupied_start, p_occupied_end, p_session, p_held_until);
          END IF;
          SELECT jsonb_build_object('id', s.id, 'name', s.name, 'kind', s.kind) INTO v_got
          FROM resources s WHERE s.clinic_id = p_clinic_id AND s.id = v_resource;
          EXIT;
        EXCEPTION WHEN exclusion_violation THEN
          NULL;
        END;
      END LOOP;
    END IF;
    IF v_got IS NULL THEN
      RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'SLOT_UNAVAILABLE',
        DETAIL = format('no %s is free at that time', v_kind->>'kind'), HINT = jsonb_build_object('kind', v_kind->>'kind')::text;
    END IF;
    v_taken := v_taken || jsonb_build_array(v_got);
  END LOOP;
  RETURN v_taken;
END $function$;
