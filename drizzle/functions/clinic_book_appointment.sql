-- The write of every booking and hold (docs/performance.md#the-booking-path), called by
-- bookAppointment (modules/booking/book.ts) with the free candidates in rank order: B1, O4, T2, T3,
-- a hold booked by hold_id (B1, O4, L2) and a waitlist offer; also by clinic_book_guest_hold and,
-- per occurrence, by clinic_book_series (p.defer_changes). In order: the key claimed or replayed
-- (§6 Idempotency-Key); the hold checked (§13: 404, HOLD_EXPIRED); §13 NO_SHOW_LIMIT; §9
-- BOOKING_LIMIT under the lock of the patient's clinic_patients row; §13's 3 holds per caller
-- under an advisory lock; per candidate, in a subtransaction: the shared provider's time and the
-- resources (§14), then the row, which the exclusion constraints let in once (§6: one 201; §13
-- PATIENT_DOUBLE_BOOKED; §14 seats counted under their session key's lock); the schedule re-checked
-- (changed: {stale}, read again); the 48-hour confirmation expiry of a pending one (§13); the
-- version bump, the provider's daily limit counted under its lock (§8 v1.4: over it, {stale}), and
-- the event last (§10 E1, §17). Holds record no appointment event (§13). A booked appointment gets
-- its reminders_after (now): its reminders (§10) are derived from it by the clinic's reminder sweep
-- (clinic_due_reminders) when they fall due; nothing is written for them here.
-- p.answers (§19) are stored as bookAppointment checked them (checkAnswers); the event and messages
-- get clinic_appointment_json, without them; the caller gets clinic_appointment_view, with them.
-- SET enable_seqscan off, and a generic plan on PostgreSQL only (DO block): planned once, by index.
CREATE OR REPLACE FUNCTION clinic_book_appointment(p_clinic_id uuid, p jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET enable_seqscan TO 'off'
AS $function$
DECLARE
  v_user uuid := (p->>'user_id')::uuid;
  v_now timestamptz := (p->>'now')::timestamptz;
  v_start timestamptz := (p->>'start')::timestamptz;
  v_end timestamptz := (p->>'end')::timestamptz;
  v_patient uuid := nullif(p->>'patient_user_id', '')::uuid;
  v_kind text := coalesce(p->>'kind', 'book');
  v_hold_id uuid := nullif(p->>'hold_id', '')::uuid;
  v_patient_booking boolean := coalesce((p->>'patient_booking')::boolean, false);
  v_entry uuid := nullif(p->>'waitlist_entry_id', '')::uuid;
  v_message text := nullif(p->>'message', '');
  v_replay uuid;
  v_open bigint;
  v_limit integer := (p->>'open_limit')::integer;
  v_clinic record;
  v_hold record;
  v_status text;
  v_held_until timestamptz;
  v_count bigint;
  v_id uuid;
  v_provider uuid;
  v_providers uuid[];
  v_view jsonb;
  v_snapshot appointment_snapshot;
  v_constraint text;
  v_msg text;
  v_detail text;
  v_hint text;
  v_service record;
  v_series uuid := nullif(p->>'series_id', '')::uuid;
  v_session uuid;
  v_seats bigint;
  v_full boolean := false;
  v_elsewhere boolean := false;
  v_session_resources jsonb;
  v_taken jsonb := '[]'::jsonb;
  v_kept record;
  v_defer boolean := coalesce((p->>'defer_changes')::boolean, false);
  v_wait_first boolean := coalesce((p->>'wait_first')::boolean, false);
  v_answers jsonb;
  v_reminders_after timestamptz;
  -- The appointment's id, known before anything is written: the idempotency key is stored with it
  -- in the one insert that claims it (a failed request rolls both back).
  v_new_id uuid := coalesce(v_hold_id, clinic_uuid_v7());
  v_cleared boolean := false;
  -- p.clear_holds_apart: expired holds in the way are not deleted here; the answer is
  -- {clear_holds} and the caller clears them in a statement of its own (clinic_clear_holds_in_way)
  -- and writes again without it. A caller inside a transaction (a waitlist offer) or a series
  -- occurrence clears them here.
  v_clear_apart boolean := coalesce((p->>'clear_holds_apart')::boolean, false);
  v_state text;
BEGIN
  BEGIN
    v_replay := clinic_claim_key(p_clinic_id, v_user,
      CASE WHEN jsonb_typeof(p->'idem') = 'object' THEN p->'idem' || jsonb_build_object('appointment_id', v_new_id) END);
    IF v_replay IS NOT NULL THEN
      RETURN jsonb_build_object('appointment', clinic_appointment_view(p_clinic_id, v_replay), 'replayed', true);
    END IF;
    -- A request the read refused is refused now, unless its key replayed above (a retry of a
    -- booking answers the booking, whatever has changed since).
    IF jsonb_typeof(p->'refuse') = 'object' THEN
      RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = p->'refuse'->>'code', DETAIL = p->'refuse'->>'detail',
        HINT = coalesce(p->'refuse'->'extra', '{}'::jsonb)::text;
    END IF;
    SELECT c.hold_minutes, c.no_show_limit INTO v_clinic FROM clinics c WHERE c.id = p_clinic_id;
    SELECT s.requires_confirmation, s.capacity INTO v_service FROM services s
    WHERE s.clinic_id = p_clinic_id AND s.id = (p->>'service_id')::uuid;
    v_status := CASE
      WHEN v_kind = 'hold' THEN 'held'
      WHEN v_patient_booking AND v_service.requires_confirmation THEN 'pending'
      ELSE 'booked' END;
    -- Reminders count from now for a booking; a hold or a pending request has none (yet).
    v_reminders_after := CASE WHEN v_status = 'booked' THEN v_now END;
    -- The caller's hold, which becomes this booking.
    IF v_hold_id IS NOT NULL THEN
      SELECT a.status, a.held_until, a.booked_by_user_id, a.provider_id, a.starts_at, a.service_id INTO v_hold
      FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.id = v_hold_id FOR UPDATE;
      IF NOT FOUND OR v_hold.status <> 'held' OR v_hold.booked_by_user_id IS DISTINCT FROM v_user THEN
        RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'NOT_FOUND',
          DETAIL = 'hold not found: it is not yours, was released, or its time was booked after it expired';
      END IF;
      IF NOT clinic_occupies(v_hold.status, v_hold.held_until, v_now) THEN
        RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'HOLD_EXPIRED',
          DETAIL = format('the hold ended at %s; hold or book the time again', clinic_iso_instant(v_hold.held_until)),
          HINT = jsonb_build_object('held_until', clinic_iso_instant(v_hold.held_until))::text;
      END IF;
      IF v_hold.service_id <> (p->>'service_id')::uuid OR v_hold.starts_at <> v_start THEN
        RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'VALIDATION_FAILED',
          DETAIL = 'service_id and start must be the hold''s';
      END IF;
    END IF;
    -- A patient's own booking or hold: refused past the clinic's no-show limit.
    IF v_patient_booking AND v_patient IS NOT NULL AND v_clinic.no_show_limit IS NOT NULL THEN
      SELECT count(*) INTO v_count FROM appointments a
      WHERE a.clinic_id = p_clinic_id AND a.patient_user_id = v_patient AND a.status = 'no_show'
        AND a.starts_at > v_now - interval '365 days';
      IF v_count >= v_clinic.no_show_limit THEN
        RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'NO_SHOW_LIMIT',
          DETAIL = format('%s missed appointments in the last 365 days: please call the clinic to book', v_count),
          HINT = jsonb_build_object('no_show_limit', v_clinic.no_show_limit)::text;
      END IF;
    END IF;
    -- A patient's own booking: their open bookings (every upcoming one that occupies its time, the
    -- hold being booked aside), counted under the lock of their row.
    IF v_limit IS NOT NULL THEN
      INSERT INTO clinic_patients AS cp (clinic_id, user_id) VALUES (p_clinic_id, v_patient)
      ON CONFLICT (clinic_id, user_id) DO UPDATE SET last_booked_at = excluded.last_booked_at;
      SELECT count(*) INTO v_open FROM appointments a
      WHERE a.clinic_id = p_clinic_id AND a.patient_user_id = v_patient AND clinic_occupies(a.status, a.held_until, v_now)
        AND a.starts_at > v_now AND a.id IS DISTINCT FROM v_hold_id;
      IF v_open >= v_limit THEN
        RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'BOOKING_LIMIT',
          DETAIL = format('you already hold %s upcoming appointments with this clinic, its maximum; cancel one to book another', v_open),
          HINT = jsonb_build_object('max_open_bookings', v_limit)::text;
      END IF;
    END IF;
    -- At most 3 unexpired holds per caller and clinic, counted under a lock of the caller in the clinic.
    -- (A guest's hold and a waitlist offer are the system's, for a patient: not counted.)
    IF v_kind = 'hold' AND v_user IS NOT NULL AND v_entry IS NULL THEN
      PERFORM pg_advisory_xact_lock(hashtextextended('clinic-holds:' || p_clinic_id::text || ':' || v_user::text, 0));
      SELECT count(*) INTO v_count FROM appointments a
      WHERE a.clinic_id = p_clinic_id AND a.booked_by_user_id = v_user AND a.status = 'held'
        AND clinic_occupies(a.status, a.held_until, v_now);
      IF v_count >= 3 THEN
        RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'BOOKING_LIMIT',
          DETAIL = 'you already hold 3 times in this clinic; book or release one first', HINT = '{"max_holds": 3}';
      END IF;
    END IF;
    IF v_kind = 'hold' THEN
      v_held_until := v_now + make_interval(mins => coalesce((p->>'hold_minutes')::integer, v_clinic.hold_minutes));
    END IF;

    IF v_hold_id IS NOT NULL THEN
      -- The hold's time is already its own: it becomes the booking.
      v_id := v_hold_id;
      v_provider := v_hold.provider_id;
      UPDATE appointments a SET status = v_status, held_until = NULL,
        patient_name = p->>'patient_name', patient_email = p->>'patient_email', patient_phone_e164 = p->>'patient_phone',
        notes = p->>'notes', patient_user_id = v_patient,
        -- The answers given with the booking (§19); none given (a guest's confirm, L2): those of the hold.
        answers = coalesce(p->'answers', a.answers), reminders_after = v_reminders_after,
        status_history = a.status_history || jsonb_build_array(clinic_status_entry(v_status, v_now, v_user, NULL)),
        updated_at = greatest(now(), ((a.updated_at AT TIME ZONE 'UTC') + interval '1 millisecond') AT TIME ZONE 'UTC')
      WHERE a.clinic_id = p_clinic_id AND a.id = v_hold_id;
      -- Its resources and its provider's time in other clinics are claimed anew, without an end: a
      -- writer whose clock had passed the hold's end may have taken them (then this booking is
      -- refused, never both).
      SELECT a.occupied_start, a.occupied_end, a.session_key, a.resources INTO v_kept
      FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.id = v_hold_id;
      BEGIN
        PERFORM clinic_claim_busy(p_clinic_id, v_hold_id, v_provider, v_kept.occupied_start, v_kept.occupied_end,
          v_kept.session_key, NULL, v_now, false);
      EXCEPTION WHEN exclusion_violation THEN
        RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'SLOT_UNAVAILABLE',
          DETAIL = 'the provider was booked in another clinic after the hold ended; hold or book another time';
      END;
      IF jsonb_array_length(v_kept.resources) > 0 THEN
        BEGIN
          PERFORM clinic_claim_resources(p_clinic_id, v_hold_id,
            (SELECT jsonb_agg(jsonb_build_object('kind', e->>'kind', 'ids', jsonb_build_array(e->>'id'))) FROM jsonb_array_elements(v_kept.resources) AS e),
            v_kept.occupied_start, v_kept.occupied_end, v_kept.session_key, v_kept.resources, NULL, v_now, false);
        EXCEPTION WHEN exclusion_violation THEN
          RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'SLOT_UNAVAILABLE',
            DETAIL = 'a room or device of the hold was booked after the hold ended; hold or book another time';
        END;
      END IF;
    ELSE
      SELECT array_agg(x::uuid) INTO v_providers FROM jsonb_array_elements_text(p->'candidates') AS x;
      -- The exclusion constraints decide: the first candidate whose time is still free gets it;
      -- the patient's own overlapping appointment refuses every candidate. An expired hold still
      -- occupies its time in the constraints (they cannot read the clock): the first refusal clears
      -- the expired holds in the way (clinic_cleared_expired_holds) and, when there were any, tries
      -- the same candidate once more (or, p.clear_holds_apart, answers {clear_holds}); a booking that
      -- finds its time free clears nothing.
      FOREACH v_provider IN ARRAY coalesce(v_providers, '{}') LOOP
        -- A group session (§14): the seats of one slot share a key, which lets them overlap each
        -- other and nothing else; they are counted under a lock of the key, so the last seat is
        -- given once.
        v_session := NULL;
        IF v_service.capacity > 1 THEN
          v_session := md5(concat_ws('|', p_clinic_id, v_provider, p->>'service_id', clinic_iso_instant(v_start), clinic_iso_instant(v_end)))::uuid;
          PERFORM pg_advisory_xact_lock(hashtextextended('clinic-session:' || v_session::text, 0));
          SELECT count(*) INTO v_seats FROM appointments a
          WHERE a.clinic_id = p_clinic_id AND a.provider_id = v_provider AND a.starts_at = v_start AND a.session_key = v_session
            AND clinic_occupies(a.status, a.held_until, v_now);
          IF v_seats >= v_service.capacity THEN
            v_full := true;
            CONTINUE;
          END IF;
          SELECT a.resources INTO v_session_resources FROM appointments a
          WHERE a.clinic_id = p_clinic_id AND a.provider_id = v_provider AND a.starts_at = v_start AND a.session_key = v_session
            AND clinic_occupies(a.status, a.held_until, v_now) LIMIT 1;
        END IF;
        <<attempt>> LOOP
        BEGIN
          v_id := v_new_id;
          -- A provider of several clinics: their time in all of them first (refused when taken elsewhere).
          PERFORM clinic_claim_busy(p_clinic_id, v_id, v_provider, (p->>'occupied_start')::timestamptz,
            (p->>'occupied_end')::timestamptz, v_session, v_held_until, v_now, v_wait_first);
          -- The resources the service needs, one of each kind (the free ones the read found, by name).
          v_taken := clinic_claim_resources(p_clinic_id, v_id, p->'resources', (p->>'occupied_start')::timestamptz,
            (p->>'occupied_end')::timestamptz, v_session, v_session_resources, v_held_until, v_now, v_wait_first);
          -- After a lost race (p.wait_first, the caller's next attempt) the row waits for the slot's
          -- writers in flight before it is in the table, as the shared provider's time above does:
          -- ON CONFLICT DO NOTHING checks the exclusion constraints first and waits there for an
          -- uncommitted conflicting row's writer, so the oldest racer's check, which restarts after
          -- each wait, never meets this retry's row and waits for it (on Citus a livelock:
          -- docs/front-desk.md). Let in: done. Refused by a committed row: the plain insert below
          -- meets it at once and names its constraint.
          IF v_wait_first THEN
            INSERT INTO appointments (clinic_id, id, service_id, provider_id, starts_at, ends_at, buffer_before_min, buffer_after_min,
                                      occupied_start, occupied_end, status, held_until, status_history, patient_name, patient_email,
                                      patient_phone_e164, notes, booked_by_user_id, patient_user_id, session_key, series_id, resources, answers,
                                      reminders_after)
            VALUES (p_clinic_id, v_id, (p->>'service_id')::uuid, v_provider, v_start, v_end,
                    (p->>'buffer_before_min')::integer, (p->>'buffer_after_min')::integer,
                    (p->>'occupied_start')::timestamptz, (p->>'occupied_end')::timestamptz, v_status, v_held_until,
                    jsonb_build_array(clinic_status_entry(v_status, v_now, v_user, NULL)),
                    p->>'patient_name', p->>'patient_email', p->>'patient_phone', p->>'notes', v_user, v_patient, v_session, v_series, v_taken,
                    coalesce(p->'answers', '[]'::jsonb), v_reminders_after)
            ON CONFLICT DO NOTHING;
            IF FOUND THEN
              EXIT attempt;
            END IF;
          END IF;
          INSERT INTO appointments (clinic_id, id, service_id, provider_id, starts_at, ends_at, buffer_before_min, buffer_after_min,
                                    occupied_start, occupied_end, status, held_until, status_history, patient_name, patient_email,
                                    patient_phone_e164, notes, booked_by_user_id, patient_user_id, session_key, series_id, resources, answers,
                                    reminders_after)
          VALUES (p_clinic_id, v_id, (p->>'service_id')::uuid, v_provider, v_start, v_end,
                  (p->>'buffer_before_min')::integer, (p->>'buffer_after_min')::integer,
                  (p->>'occupied_start')::timestamptz, (p->>'occupied_end')::timestamptz, v_status, v_held_until,
                  jsonb_build_array(clinic_status_entry(v_status, v_now, v_user, NULL)),
                  p->>'patient_name', p->>'patient_email', p->>'patient_phone', p->>'notes', v_user, v_patient, v_session, v_series, v_taken,
                  coalesce(p->'answers', '[]'::jsonb), v_reminders_after);
          EXIT attempt;
        EXCEPTION WHEN exclusion_violation OR deadlock_detected THEN
          GET STACKED DIAGNOSTICS v_constraint = CONSTRAINT_NAME, v_state = RETURNED_SQLSTATE;
          v_id := NULL;
          -- (A deadlock is with a writer under way, never with an expired hold, which is committed.)
          IF NOT v_cleared AND v_state = '23P01' THEN
            v_cleared := true;
            IF v_clear_apart THEN
              -- Cleared by the caller in a statement of its own, then written again: deleted here,
              -- a hold stays deleted-but-uncommitted while this re-inserts, and racers that inserted
              -- meanwhile wait for this transaction as it waits for theirs (a deadlock a second).
              IF cardinality(clinic_expired_holds_in_way(p_clinic_id, v_providers, (p->>'occupied_start')::timestamptz,
                   (p->>'occupied_end')::timestamptz, v_patient, v_start, v_end, v_now)) > 0 THEN
                RAISE EXCEPTION USING ERRCODE = 'CL003', MESSAGE = 'expired holds in the way';
              END IF;
            ELSIF clinic_cleared_expired_holds(p_clinic_id, v_providers, (p->>'occupied_start')::timestamptz,
                 (p->>'occupied_end')::timestamptz, v_patient, v_start, v_end, v_now) > 0 THEN
              CONTINUE attempt;
            END IF;
          END IF;
          -- (On Citus the name carries the shard's suffix.)
          IF v_constraint LIKE 'appointments\_patient\_no\_overlap%' THEN
            RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'PATIENT_DOUBLE_BOOKED',
              DETAIL = 'the patient already has an appointment at an overlapping time in this clinic';
          END IF;
          IF v_constraint LIKE 'provider\_busy%' THEN
            v_elsewhere := true;
          END IF;
        END;
        EXIT attempt;
        END LOOP;
        EXIT WHEN v_id IS NOT NULL;
      END LOOP;
      IF v_id IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'SLOT_UNAVAILABLE',
          DETAIL = CASE WHEN v_full THEN format('the session at %s is full', p->>'start')
                        WHEN v_elsewhere THEN format('the provider is booked in another clinic at %s', p->>'start')
                        ELSE format('%s was just booked by someone else', p->>'start') END;
      END IF;
      -- The schedule of the clinic and of the provider who got it must still be the one checked
      -- (a changed one rolls all of this back: read again).
      PERFORM clinic_check_schedule(p_clinic_id, jsonb_build_object(p_clinic_id::text, p->'schedule'->p_clinic_id::text, v_provider::text, p->'schedule'->v_provider::text));
    END IF;

    IF v_status = 'pending' THEN
      -- Not confirmed within 48 hours or by the start: canceled (a durable job, modules/booking/confirmation.ts).
      INSERT INTO jobs (clinic_id, job_id, queue, data, run_at)
      VALUES (p_clinic_id, gen_random_uuid(), 'confirmation-expiry',
              jsonb_build_object('clinicId', p_clinic_id, 'appointmentId', v_id), least(v_now + interval '48 hours', v_start));
    END IF;
    -- (The idempotency key holds v_id since its claim.)
    v_snapshot := clinic_appointment_snapshot(p_clinic_id, v_id);
    v_view := clinic_snapshot_json(p_clinic_id, v_snapshot);
    -- The caller's view (clinic_appointment_view: v_view and the answers) is read here, before the
    -- shared rows below are locked: read after the event number, it held every booking of the
    -- clinic for two more statements (docs/performance.md#the-hot-clinic). Nothing below changes
    -- the appointment.
    SELECT a.answers INTO v_answers FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.id = v_id;
    -- A waitlist offer: the entry is offered this hold, if it is still waiting (another process
    -- may have offered it something first: then nothing of this stays).
    IF v_entry IS NOT NULL THEN
      UPDATE waitlist_entries w SET status = 'offered', offer_appointment_id = v_id, offer_expires_at = v_held_until,
        updated_at = greatest(now(), ((w.updated_at AT TIME ZONE 'UTC') + interval '1 millisecond') AT TIME ZONE 'UTC')
      WHERE w.clinic_id = p_clinic_id AND w.id = v_entry AND w.status = 'waiting';
      IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'CONFLICT', DETAIL = 'the waitlist entry is no longer waiting';
      END IF;
    END IF;
    -- A hold booked: a waitlist offer it was is taken.
    IF v_hold_id IS NOT NULL THEN
      UPDATE waitlist_entries w SET status = 'booked',
        updated_at = greatest(now(), ((w.updated_at AT TIME ZONE 'UTC') + interval '1 millisecond') AT TIME ZONE 'UTC')
      WHERE w.clinic_id = p_clinic_id AND w.offer_appointment_id = v_hold_id AND w.status = 'offered';
    END IF;
    -- The rows that other bookings of this provider and clinic wait for are taken last, so that
    -- they are held only until the commit: the provider's cache version, then the event number.
    -- (A series books all its occurrences first and then does these for all of them, in this order:
    -- p.defer_changes. Taken mid-way, these rows would be held while later occurrences wait for
    -- other bookings' rows, and the waits could close a circle.)
    IF v_hold_id IS NULL AND NOT v_defer THEN
      PERFORM clinic_bookings_changed(p_clinic_id, ARRAY[v_provider]
        || ARRAY(SELECT clinic_kind_scope(p_clinic_id, e->>'kind') FROM jsonb_array_elements(v_taken) AS e));
      -- Rules that count the provider's appointments are counted here, under the version row's lock
      -- just taken, which serializes the provider's bookings (§8 v1.4 daily limit; over it: {stale}).
      PERFORM clinic_check_daily_limit(p_clinic_id, ARRAY[v_provider], ARRAY[v_start], v_now);
    END IF;
    IF v_status <> 'held' AND v_defer THEN
      NULL;
    ELSIF v_status <> 'held' THEN
      PERFORM clinic_record_event(p_clinic_id, 'appointment.booked', NULL, v_snapshot);
    ELSIF v_entry IS NOT NULL THEN
      PERFORM clinic_plan_message(p_clinic_id, 'waitlist_offer', v_id, v_view || jsonb_build_object('waitlist_entry_id', v_entry));
      PERFORM clinic_record_event(p_clinic_id, 'waitlist.offered',
        jsonb_build_object('entry_id', v_entry, 'appointment', v_view, 'expires_at', clinic_iso_instant(v_held_until)));
    ELSIF v_message IS NOT NULL THEN
      PERFORM clinic_plan_message(p_clinic_id, v_message, v_id, v_view);
    END IF;
    RETURN jsonb_build_object('appointment', v_view || jsonb_build_object('answers', v_answers), 'replayed', false);
  EXCEPTION
    WHEN SQLSTATE 'CL001' THEN
      GET STACKED DIAGNOSTICS v_msg = MESSAGE_TEXT, v_detail = PG_EXCEPTION_DETAIL, v_hint = PG_EXCEPTION_HINT;
      RETURN jsonb_build_object('error', v_msg, 'detail', v_detail, 'extra', coalesce(nullif(v_hint, '')::jsonb, '{}'::jsonb));
    WHEN SQLSTATE 'CL002' THEN
      RETURN jsonb_build_object('stale', true);
    WHEN SQLSTATE 'CL003' THEN
      RETURN jsonb_build_object('clear_holds', true);
  END;
END $function$;
--> statement-breakpoint
-- Planned once per connection (generic plan), on PostgreSQL only: Citus cannot route a generic plan.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
    ALTER FUNCTION clinic_book_appointment(uuid,jsonb) SET plan_cache_mode = force_generic_plan;
  END IF;
END $$;
