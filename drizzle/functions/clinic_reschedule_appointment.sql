-- The write of a move (§8 B5; U4, L4), called by rescheduleAppointment
-- (modules/booking/reschedule.ts) after the read and the engine found the new start free as if
-- this appointment did not exist. One transaction: it moves or nothing changes. In order: the key
-- claimed or replayed (§6); the row locked and its revision compared (a change since the read, or
-- a status but booked or pending: {stale}, read again); the schedule re-checked; a group seat joins
-- the session at the new time if a seat is left (§14, under the session key's lock); expired holds
-- cleared; the shared provider's time and the resources (§14) claimed at the new time, the former
-- provider's time freed after the update; exclusion violations are 409 SLOT_UNAVAILABLE or
-- PATIENT_DOUBLE_BOOKED (§13); the versions bumped, then the provider's daily limit counted under
-- that lock (§8 v1.4: over it, {stale}). A booked one's reminders_after is now: its reminders (§10)
-- are due anew at the new start, from now (clinic_due_reminders); a pending one's confirmation
-- expiry is queued by the new start (§13); appointment.rescheduled with previous_start/previous_end.
-- SET enable_seqscan off; a generic plan on PostgreSQL only (DO block).
CREATE OR REPLACE FUNCTION clinic_reschedule_appointment(p_clinic_id uuid, p jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET enable_seqscan TO 'off'
AS $function$
DECLARE
  v_answers jsonb;
  v_user uuid := (p->>'user_id')::uuid;
  v_id uuid := (p->>'appointment_id')::uuid;
  v_provider uuid := (p->>'provider_id')::uuid;
  v_start timestamptz := (p->>'start')::timestamptz;
  v_replay uuid;
  v_current record;
  v_constraint text;
  v_view jsonb;
  v_snapshot appointment_snapshot;
  v_msg text;
  v_detail text;
  v_hint text;
  v_capacity integer;
  v_session uuid;
  v_seats bigint;
  v_session_resources jsonb;
  v_taken jsonb;
  v_before jsonb;
  v_reminders_after timestamptz;
BEGIN
  BEGIN
    v_replay := clinic_claim_key(p_clinic_id, v_user, p->'idem');
    IF v_replay IS NOT NULL THEN
      RETURN jsonb_build_object('appointment', clinic_appointment_view(p_clinic_id, v_replay), 'replayed', true);
    END IF;
    IF jsonb_typeof(p->'refuse') = 'object' THEN
      RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = p->'refuse'->>'code', DETAIL = p->'refuse'->>'detail',
        HINT = coalesce(p->'refuse'->'extra', '{}'::jsonb)::text;
    END IF;
    SELECT a.provider_id, a.starts_at, a.ends_at, a.revision, a.status, a.patient_user_id, clinic_requested_at(a.status_history) AS requested_at INTO v_current FROM appointments a
    WHERE a.clinic_id = p_clinic_id AND a.id = v_id FOR UPDATE;
    IF NOT FOUND OR v_current.revision <> (p->>'revision')::integer OR v_current.status NOT IN ('booked', 'pending') THEN
      RAISE EXCEPTION USING ERRCODE = 'CL002', MESSAGE = 'STALE';
    END IF;
    PERFORM clinic_check_schedule(p_clinic_id, p->'schedule');
    v_reminders_after := CASE WHEN v_current.status = 'booked' THEN (p->>'now')::timestamptz END;
    -- A seat of a group session moves to the session at the new time, if it has a seat left.
    SELECT s.capacity INTO v_capacity FROM services s JOIN appointments a ON a.clinic_id = s.clinic_id AND a.service_id = s.id
    WHERE s.clinic_id = p_clinic_id AND a.clinic_id = p_clinic_id AND a.id = v_id;
    IF v_capacity > 1 THEN
      v_session := md5(concat_ws('|', p_clinic_id, v_provider, (SELECT a.service_id FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.id = v_id),
        clinic_iso_instant(v_start), clinic_iso_instant((p->>'end')::timestamptz)))::uuid;
      PERFORM pg_advisory_xact_lock(hashtextextended('clinic-session:' || v_session::text, 0));
      SELECT count(*) INTO v_seats FROM appointments a
      WHERE a.clinic_id = p_clinic_id AND a.provider_id = v_provider AND a.starts_at = v_start AND a.session_key = v_session
        AND a.id <> v_id AND clinic_occupies(a.status, a.held_until, (p->>'now')::timestamptz);
      IF v_seats >= v_capacity THEN
        RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'SLOT_UNAVAILABLE', DETAIL = format('the session at %s is full', p->>'start');
      END IF;
      SELECT a.resources INTO v_session_resources FROM appointments a
      WHERE a.clinic_id = p_clinic_id AND a.provider_id = v_provider AND a.starts_at = v_start AND a.session_key = v_session
        AND a.id <> v_id AND clinic_occupies(a.status, a.held_until, (p->>'now')::timestamptz) LIMIT 1;
    END IF;
    PERFORM clinic_clear_expired_holds(p_clinic_id, ARRAY[v_provider], (p->>'occupied_start')::timestamptz,
      (p->>'occupied_end')::timestamptz, v_current.patient_user_id, v_start, (p->>'end')::timestamptz, (p->>'now')::timestamptz);
    BEGIN
      PERFORM clinic_claim_busy(p_clinic_id, v_id, v_provider, (p->>'occupied_start')::timestamptz, (p->>'occupied_end')::timestamptz,
        v_session, NULL, (p->>'now')::timestamptz, false);
      SELECT a.resources INTO v_before FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.id = v_id;
      v_taken := clinic_claim_resources(p_clinic_id, v_id, p->'resources', (p->>'occupied_start')::timestamptz,
        (p->>'occupied_end')::timestamptz, v_session, v_session_resources, NULL, (p->>'now')::timestamptz, false);
      UPDATE appointments a SET provider_id = v_provider, starts_at = v_start, resources = v_taken, ends_at = (p->>'end')::timestamptz,
        buffer_before_min = (p->>'buffer_before_min')::integer, buffer_after_min = (p->>'buffer_after_min')::integer,
        occupied_start = (p->>'occupied_start')::timestamptz, occupied_end = (p->>'occupied_end')::timestamptz,
        rescheduled_at = now(), revision = a.revision + 1, session_key = v_session,
        reminders_after = v_reminders_after,
        updated_at = greatest(now(), ((a.updated_at AT TIME ZONE 'UTC') + interval '1 millisecond') AT TIME ZONE 'UTC')
      WHERE a.clinic_id = p_clinic_id AND a.id = v_id;
      -- Another provider now: the former one's time goes (after the update, which the sync reads).
      IF v_current.provider_id <> v_provider THEN
        PERFORM clinic_sync_busy(p_clinic_id, v_id, ARRAY[v_current.provider_id], (p->>'now')::timestamptz);
      END IF;
    EXCEPTION WHEN exclusion_violation OR deadlock_detected THEN
      GET STACKED DIAGNOSTICS v_constraint = CONSTRAINT_NAME;
      IF v_constraint LIKE 'provider\_busy%' THEN
        RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'SLOT_UNAVAILABLE',
          DETAIL = format('the provider is booked in another clinic at %s', p->>'start');
      END IF;
      -- (On Citus the name carries the shard's suffix.)
      IF v_constraint LIKE 'appointments\_patient\_no\_overlap%' THEN
        RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'PATIENT_DOUBLE_BOOKED',
          DETAIL = 'the patient already has an appointment at an overlapping time in this clinic';
      END IF;
      RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'SLOT_UNAVAILABLE', DETAIL = format('%s was just booked by someone else', p->>'start');
    END;
    PERFORM clinic_bookings_changed(p_clinic_id, ARRAY[v_current.provider_id, v_provider]
      || ARRAY(SELECT clinic_kind_scope(p_clinic_id, e->>'kind') FROM jsonb_array_elements(v_taken || coalesce(v_before, '[]'::jsonb)) AS e));
    -- The new day's count, under the lock of the provider's version row just taken (§8 v1.4: over
    -- the daily limit, {stale}: read again).
    PERFORM clinic_check_daily_limit(p_clinic_id, ARRAY[v_provider], ARRAY[v_start], (p->>'now')::timestamptz);
    IF v_current.status = 'pending' THEN
      -- Pending: its confirmation now also expires by the new start.
      INSERT INTO jobs (clinic_id, job_id, queue, data, run_at)
      VALUES (p_clinic_id, gen_random_uuid(), 'confirmation-expiry',
              jsonb_build_object('clinicId', p_clinic_id, 'appointmentId', v_id), least(v_current.requested_at + interval '48 hours', v_start));
    END IF;
    PERFORM clinic_store_key(p_clinic_id, v_user, p->'idem', v_id);
    v_snapshot := clinic_appointment_snapshot(p_clinic_id, v_id);
    v_view := clinic_snapshot_json(p_clinic_id, v_snapshot);
    -- The caller's view (clinic_appointment_view) read before the event number is taken, not after
    -- it while the clinic's other writers wait (docs/performance.md#the-hot-clinic).
    SELECT a.answers INTO v_answers FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.id = v_id;
    PERFORM clinic_record_event(p_clinic_id, 'appointment.rescheduled',
      jsonb_build_object('previous_start', clinic_iso_instant(v_current.starts_at), 'previous_end', clinic_iso_instant(v_current.ends_at)),
      v_snapshot);
    RETURN jsonb_build_object('appointment', v_view || jsonb_build_object('answers', v_answers), 'replayed', false);
  EXCEPTION
    WHEN SQLSTATE 'CL001' THEN
      GET STACKED DIAGNOSTICS v_msg = MESSAGE_TEXT, v_detail = PG_EXCEPTION_DETAIL, v_hint = PG_EXCEPTION_HINT;
      RETURN jsonb_build_object('error', v_msg, 'detail', v_detail, 'extra', coalesce(nullif(v_hint, '')::jsonb, '{}'::jsonb));
    WHEN SQLSTATE 'CL002' THEN
      RETURN jsonb_build_object('stale', true);
  END;
END $function$;
--> statement-breakpoint
-- Planned once per connection (generic plan), on PostgreSQL only: Citus cannot route a generic plan.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
    ALTER FUNCTION clinic_reschedule_appointment(uuid,jsonb) SET plan_cache_mode = force_generic_plan;
  END IF;
END $$;
