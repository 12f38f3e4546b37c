-- A shared provider's time (§14, one person, many clinics): claims the appointment's occupied range
-- in provider_busy before the appointment is written, so that the provider's appointments in all
-- their clinics never overlap, on Citus too (provider_busy is distributed by user).
-- The exclusion constraint provider_busy_no_overlap refuses an overlap (seats of one session
-- aside) with an exclusion_violation, which the caller turns into the next candidate or 409
-- SLOT_UNAVAILABLE "booked in another clinic". An expired hold's row in the way is deleted first.
-- Then the provider's version is bumped in every clinic of theirs, in clinic order (§6 coherence
-- across clinics). For a provider of one clinic it costs one read and does nothing.
-- p_wait_first (a booking's write after a lost race): the row is inserted with ON CONFLICT DO NOTHING
-- first, which waits for an uncommitted conflicting row's writer before the row is in the table, as
-- the appointment's own insert does then (docs/front-desk.md); refused, the plain insert names the
-- constraint.
-- Called by clinic_book_appointment (also when a hold is booked: the time is claimed anew, without
-- an end) and clinic_reschedule_appointment (at the new time).
CREATE OR REPLACE FUNCTION clinic_claim_busy(p_clinic_id uuid, p_appointment_id uuid, p_provider uuid, p_occupied_start timestamp with time zone, p_occupied_end timestamp with time zone, p_session uuid, p_held_until timestamp with time zone, p_now timestamp with time zone, p_wait_first boolean)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_clinics uuid[];
  v_clinic uuid;
  v_in boolean := false;
BEGIN
  SELECT s.clinic_ids INTO v_clinics FROM shared_providers s WHERE s.user_id = p_provider;
  IF v_clinics IS NULL THEN
    RETURN;
  END IF;
  DELETE FROM provider_busy b WHERE b.user_id = p_provider AND b.clinic_id = p_clinic_id AND b.appointment_id = p_appointment_id;
  DELETE FROM provider_busy b
  WHERE b.user_id = p_provider AND b.held_until IS NOT NULL AND b.held_until <= p_now
    AND b.occupied_start < p_occupied_end AND b.occupied_end > p_occupied_start;
  IF p_wait_first THEN
    INSERT INTO provider_busy (user_id, clinic_id, appointment_id, occupied_start, occupied_end, session_key, held_until)
    VALUES (p_provider, p_clinic_id, p_appointment_id, p_occupied_start, p_occupied_end, p_session, p_held_until)
    ON CONFLICT DO NOTHING;
    v_in := FOUND;
  END IF;
  IF NOT v_in THEN
    INSERT INTO provider_busy (user_id, clinic_id, appointment_id, occupied_start, occupied_end, session_key, held_until)
    VALUES (p_provider, p_clinic_id, p_appointment_id, p_occupied_start, p_occupied_end, p_session, p_held_until);
  END IF;
  FOREACH v_clinic IN ARRAY (SELECT array_agg(c ORDER BY c) FROM unnest(v_clinics) AS c) LOOP
    INSERT INTO availability_versions AS v (clinic_id, scope_id, version) VALUES (v_clinic, p_provider, clinic_version_clock())
    ON CONFLICT (clinic_id, scope_id) DO UPDATE SET version = greatest(v.version + 1, excluded.version);
  END LOOP;
END $function$;
