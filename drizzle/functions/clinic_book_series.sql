-- The write of a series (R1, §14), one statement and so one transaction, called by bookSeries
-- (modules/series/book.ts) after one read of the range and the engine's check of every start.
-- p: user_id, idem (its stored id is the series'), or refuse; series (service_id, provider_id,
-- rrule, start, mode, patient_*, notes); occurrences (what clinic_book_appointment takes, for each
-- start found free); skipped ([{start, reasons}] the read refused); schedule; now.
-- The whole schedule is re-checked (key-share locks) before any occurrence is written; each is
-- booked by clinic_book_appointment with p.defer_changes, and the version bumps and events follow
-- for all of them at the end, in one order, so that no wait closes a circle; the providers' daily
-- limits (§8 v1.4) are counted right after the bumps, under their locks (over one: {stale}).
-- §14 modes: all_or_nothing refuses the series on any refusal (409 SLOT_UNAVAILABLE with
-- conflicts, §8 codes); skip_unavailable adds it to skipped; none bookable is 409 either way.
-- clinic.quiet_messages holds back the occurrences' messages: one tells of the whole series (§15).
-- SET enable_seqscan off; a generic plan on PostgreSQL only (DO block).
CREATE OR REPLACE FUNCTION clinic_book_series(p_clinic_id uuid, p jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET enable_seqscan TO 'off'
AS $function$
DECLARE
  v_user uuid := (p->>'user_id')::uuid;
  v_replay uuid;
  v_id uuid;
  v_occurrence jsonb;
  v_answer jsonb;
  v_skipped jsonb := coalesce(p->'skipped', '[]'::jsonb);
  v_conflicts jsonb := '[]'::jsonb;
  v_common jsonb;
  v_first uuid;
  v_view jsonb;
  v_scopes uuid[];
  v_occurrence_id uuid;
  v_occurrence_ids uuid[] := '{}';
  v_day_providers uuid[];
  v_day_starts timestamptz[];
  v_msg text;
  v_detail text;
  v_hint text;
BEGIN
  BEGIN
    v_replay := clinic_claim_key(p_clinic_id, v_user, p->'idem');
    IF v_replay IS NOT NULL THEN
      RETURN jsonb_build_object('series', clinic_series_json(p_clinic_id, v_replay), 'replayed', true);
    END IF;
    IF jsonb_typeof(p->'refuse') = 'object' THEN
      RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = p->'refuse'->>'code', DETAIL = p->'refuse'->>'detail',
        HINT = coalesce(p->'refuse'->'extra', '{}'::jsonb)::text;
    END IF;
    INSERT INTO appointment_series (clinic_id, service_id, provider_id, rrule, starts_at, mode, patient_name, patient_email,
                                    patient_phone_e164, patient_user_id, notes, booked_by_user_id)
    VALUES (p_clinic_id, (p->'series'->>'service_id')::uuid, nullif(p->'series'->>'provider_id', '')::uuid, p->'series'->>'rrule',
            (p->'series'->>'start')::timestamptz, p->'series'->>'mode', p->'series'->>'patient_name', p->'series'->>'patient_email',
            p->'series'->>'patient_phone', nullif(p->'series'->>'patient_user_id', '')::uuid, p->'series'->>'notes', v_user)
    RETURNING id INTO v_id;
    v_common := jsonb_build_object('user_id', v_user, 'kind', 'book', 'service_id', p->'series'->>'service_id',
      'patient_name', p->'series'->>'patient_name', 'patient_email', p->'series'->>'patient_email',
      'patient_phone', p->'series'->>'patient_phone', 'notes', p->'series'->>'notes',
      'patient_user_id', p->'series'->>'patient_user_id', 'now', p->>'now', 'series_id', v_id, 'defer_changes', true,
      -- After a lost race each occurrence's rows wait for the writers in flight before they are in
      -- the tables (clinic_book_appointment's p.wait_first; docs/front-desk.md).
      'wait_first', coalesce((p->>'wait_first')::boolean, false),
      -- Every occurrence keeps the answers given once for the series (§19).
      'answers', coalesce(p->'answers', '[]'::jsonb));
    -- The schedule the read checked, for the clinic and every candidate at once, before any
    -- occurrence is written: its version rows are made and key-share locked here, so that no
    -- occurrence's own check waits for another writer's new row while this one holds appointments.
    PERFORM clinic_check_schedule(p_clinic_id, coalesce(p->'schedule', '{}'::jsonb));
    PERFORM set_config('clinic.quiet_messages', 'on', true);
    FOR v_occurrence IN SELECT x FROM jsonb_array_elements(coalesce(p->'occurrences', '[]'::jsonb)) AS x LOOP
      v_answer := clinic_book_appointment(p_clinic_id, v_common || v_occurrence);
      IF v_answer ? 'stale' THEN
        RAISE EXCEPTION USING ERRCODE = 'CL002', MESSAGE = 'STALE';
      ELSIF v_answer ? 'error' THEN
        -- Taken since the read, or the patient's own appointment in the way.
        v_conflicts := v_conflicts || jsonb_build_array(jsonb_build_object('start', v_occurrence->>'start',
          'reasons', jsonb_build_array(jsonb_build_object('code', CASE v_answer->>'error'
            WHEN 'SLOT_UNAVAILABLE' THEN 'BOOKED' ELSE v_answer->>'error' END, 'detail', v_answer->>'detail'))));
      ELSIF v_first IS NULL THEN
        v_first := (v_answer->'appointment'->>'id')::uuid;
      END IF;
    END LOOP;
    IF jsonb_array_length(v_conflicts) > 0 AND p->'series'->>'mode' = 'all_or_nothing' THEN
      RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'SLOT_UNAVAILABLE',
        DETAIL = format('%s of the series'' occurrences cannot be booked; nothing was booked', jsonb_array_length(v_conflicts)),
        HINT = jsonb_build_object('conflicts', v_conflicts)::text;
    END IF;
    IF v_first IS NULL THEN
      RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'SLOT_UNAVAILABLE',
        DETAIL = 'none of the series'' occurrences can be booked; nothing was booked',
        HINT = jsonb_build_object('conflicts', v_skipped || v_conflicts)::text;
    END IF;
    -- Now, with every occurrence written (clinic_book_appointment left these to us, p.defer_changes):
    -- the cache versions once, then each occurrence's event by start, like a booking's last steps.
    SELECT array_agg(DISTINCT x ORDER BY x) INTO v_scopes FROM (
      SELECT a.provider_id AS x FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.series_id = v_id
      UNION SELECT clinic_kind_scope(p_clinic_id, e->>'kind') FROM appointments a, jsonb_array_elements(a.resources) AS e
      WHERE a.clinic_id = p_clinic_id AND a.series_id = v_id) s;
    PERFORM clinic_bookings_changed(p_clinic_id, v_scopes);
    -- Every occurrence's day counted under those locks (§8 v1.4): a day over a provider's daily
    -- limit is {stale}, and the read again skips or refuses it (DAILY_LIMIT).
    -- (Read first, in a statement of their own: on Citus a function called by a statement that reads a
    -- distributed table runs on the shard, where it may not query again.)
    SELECT array_agg(a.provider_id ORDER BY a.starts_at, a.id), array_agg(a.starts_at ORDER BY a.starts_at, a.id)
      INTO v_day_providers, v_day_starts
    FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.series_id = v_id;
    PERFORM clinic_check_daily_limit(p_clinic_id, v_day_providers, v_day_starts, (p->>'now')::timestamptz);
    FOR v_occurrence_id IN SELECT a.id FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.series_id = v_id ORDER BY a.starts_at, a.id LOOP
      v_occurrence_ids := v_occurrence_ids || v_occurrence_id;
    END LOOP;
    FOREACH v_occurrence_id IN ARRAY v_occurrence_ids LOOP
      PERFORM clinic_record_event(p_clinic_id, 'appointment.booked', NULL, clinic_appointment_snapshot(p_clinic_id, v_occurrence_id));
    END LOOP;
    PERFORM set_config('clinic.quiet_messages', 'off', true);
    SELECT coalesce(jsonb_agg(x ORDER BY (x->>'start')::timestamptz), '[]'::jsonb) INTO v_skipped
    FROM jsonb_array_elements(v_skipped || v_conflicts) AS x;
    UPDATE appointment_series SET skipped = v_skipped WHERE clinic_id = p_clinic_id AND id = v_id;
    v_view := clinic_series_json(p_clinic_id, v_id);
    -- One message for the series: the first occurrence, with every start of the series.
    PERFORM clinic_plan_message(p_clinic_id, 'booked', v_id, clinic_appointment_json(p_clinic_id, v_first)
      || jsonb_build_object('series', jsonb_build_object('id', v_id, 'starts',
           (SELECT jsonb_agg(o->'start') FROM jsonb_array_elements(v_view->'occurrences') AS o))));
    PERFORM clinic_store_key(p_clinic_id, v_user, p->'idem', v_id);
    RETURN jsonb_build_object('series', v_view, 'replayed', false);
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
    ALTER FUNCTION clinic_book_series(uuid,jsonb) SET plan_cache_mode = force_generic_plan;
  END IF;
END $$;
