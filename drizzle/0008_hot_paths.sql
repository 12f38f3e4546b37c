CREATE TABLE "outbox" (
	"clinic_id" uuid NOT NULL,
	"job_id" uuid NOT NULL,
	"queue" text NOT NULL,
	"data" jsonb NOT NULL,
	"start_after" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "outbox_pkey" PRIMARY KEY("clinic_id","job_id")
);
--> statement-breakpoint
ALTER TABLE "availability_versions" ADD COLUMN "schedule_version" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "outbox" ADD CONSTRAINT "outbox_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "outbox_created_idx" ON "outbox" USING btree ("created_at");--> statement-breakpoint
-- The counters move to the clinic's shard (keyed by clinic): they hold a minute's worth of hits, so
-- the table is made anew rather than converted (on Citus it was distributed by key).
DROP TABLE "rate_limit_counters";
--> statement-breakpoint
CREATE TABLE "rate_limit_counters" (
	"clinic_id" uuid NOT NULL,
	"key" text NOT NULL,
	"window_start" timestamp (3) with time zone NOT NULL,
	"hits" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "rate_limit_counters_pkey" PRIMARY KEY("clinic_id","key","window_start")
);
--> statement-breakpoint
ALTER TABLE "rate_limit_counters" ADD CONSTRAINT "rate_limit_counters_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "rate_limit_counters_window_idx" ON "rate_limit_counters" USING btree ("window_start");--> statement-breakpoint
-- The booking path (docs/performance.md#the-booking-path): one read of what the check of one start
-- needs, then one write that does the whole booking. Both run where the clinic's rows are (on Citus
-- they are distributed functions, co-located by their first argument). An instant in the JSON they
-- answer is written as JavaScript writes it (ISO 8601, milliseconds, Z).
CREATE OR REPLACE FUNCTION clinic_iso_instant(p_at timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT to_char(p_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;
--> statement-breakpoint
-- An appointment as the API shows it (modules/booking: appointmentOutput), or null.
CREATE OR REPLACE FUNCTION clinic_appointment_json(p_clinic_id uuid, p_id uuid) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (
    SELECT jsonb_build_object(
      'id', a.id, 'clinic_id', a.clinic_id, 'service_id', a.service_id, 'service_name', s.name,
      'provider_id', a.provider_id, 'provider_name', m.full_name,
      'start', clinic_iso_instant(a.starts_at), 'end', clinic_iso_instant(a.ends_at), 'status', a.status,
      'patient', jsonb_build_object('name', a.patient_name, 'email', a.patient_email, 'phone_e164', a.patient_phone_e164),
      'notes', a.notes, 'buffer_before_min', a.buffer_before_min, 'buffer_after_min', a.buffer_after_min,
      'created_at', clinic_iso_instant(a.created_at), 'updated_at', clinic_iso_instant(a.updated_at),
      'canceled_at', clinic_iso_instant(a.canceled_at), 'rescheduled_at', clinic_iso_instant(a.rescheduled_at),
      'patient_user_id', a.patient_user_id, 'booked_by_user_id', a.booked_by_user_id)
    FROM appointments a
    JOIN services s ON s.clinic_id = a.clinic_id AND s.id = a.service_id
    JOIN clinic_members m ON m.clinic_id = a.clinic_id AND m.user_id = a.provider_id
    WHERE a.clinic_id = p_clinic_id AND s.clinic_id = p_clinic_id AND m.clinic_id = p_clinic_id AND a.id = p_id
  );
END $$;
--> statement-breakpoint
-- Read: the caller's booking-write hit counted (p.rate: key, max, window_start, retry_after_s), then
-- for a move (p.appointment_id) the appointment, then the service (p.service_id, or the
-- appointment's), its candidate providers, the clinic's and their weekly hours, the overrides of
-- the local dates [date, date_to], closures and booked appointments overlapping [from, to), with
-- day_start/day_end each candidate's booked appointments on that day (the any-provider rank), and
-- the versions of the scopes (the schedule versions a booking re-checks, and the availability
-- versions a cached answer is kept under). One statement: one snapshot, one round trip. Used by
-- a booking's check (one date) and by an availability answer (a range).
CREATE OR REPLACE FUNCTION clinic_schedule_context(p_clinic_id uuid, p jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_hits integer;
  v_service jsonb;
  v_wanted uuid;
  v_candidates uuid[];
  v_from timestamptz := (p->>'from')::timestamptz;
  v_to timestamptz := (p->>'to')::timestamptz;
  v_date date := (p->>'date')::date;
  v_date_to date := coalesce((p->>'date_to')::date, (p->>'date')::date);
  v_exclude uuid := nullif(p->>'appointment_id', '')::uuid;
  v_service_id uuid := nullif(p->>'service_id', '')::uuid;
  v_appointment jsonb;
BEGIN
  IF jsonb_typeof(p->'rate') = 'object' THEN
    INSERT INTO rate_limit_counters AS c (clinic_id, key, window_start, hits)
    VALUES (p_clinic_id, p->'rate'->>'key', (p->'rate'->>'window_start')::timestamptz, 1)
    ON CONFLICT (clinic_id, key, window_start) DO UPDATE SET hits = c.hits + 1
    RETURNING hits INTO v_hits;
    -- Now and then, from a window's first hit: old windows are of no use to anyone.
    IF v_hits = 1 AND random() < 0.01 THEN
      DELETE FROM rate_limit_counters
      WHERE clinic_id = p_clinic_id AND window_start < (p->'rate'->>'window_start')::timestamptz - interval '1 day';
    END IF;
    IF v_hits > (p->'rate'->>'max')::integer THEN
      RETURN jsonb_build_object('rate_limited', true);
    END IF;
  END IF;
  -- A move: the appointment as it is now, whose service it keeps.
  IF v_exclude IS NOT NULL THEN
    SELECT jsonb_build_object('service_id', a.service_id, 'provider_id', a.provider_id, 'starts_at', clinic_iso_instant(a.starts_at),
             'ends_at', clinic_iso_instant(a.ends_at), 'status', a.status, 'booked_by_user_id', a.booked_by_user_id,
             'patient_user_id', a.patient_user_id, 'revision', a.revision),
           a.service_id
      INTO v_appointment, v_service_id
    FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.id = v_exclude;
    IF v_appointment IS NULL THEN
      RETURN jsonb_build_object('appointment', null);
    END IF;
  END IF;
  SELECT jsonb_build_object('id', s.id, 'name', s.name, 'duration_min', s.duration_min, 'provider_id', s.provider_id,
           'is_active', s.is_active, 'buffer_before_min', s.buffer_before_min, 'buffer_after_min', s.buffer_after_min,
           'slot_step_min', s.slot_step_min, 'min_notice_min', s.min_notice_min, 'booking_horizon_days', s.booking_horizon_days),
         coalesce(s.provider_id, nullif(p->>'provider_id', '')::uuid)
    INTO v_service, v_wanted
  FROM services s
  WHERE s.clinic_id = p_clinic_id AND s.id = v_service_id AND s.deleted_at IS NULL;
  IF v_service IS NULL THEN
    RETURN jsonb_build_object('service', null, 'appointment', v_appointment);
  END IF;
  SELECT coalesce(array_agg(m.user_id ORDER BY m.user_id), '{}') INTO v_candidates
  FROM clinic_members m
  WHERE m.clinic_id = p_clinic_id AND m.is_provider AND (v_wanted IS NULL OR m.user_id = v_wanted);
  RETURN jsonb_build_object(
    'appointment', v_appointment,
    'service', v_service,
    'candidates', coalesce((
      SELECT jsonb_agg(jsonb_build_object('user_id', m.user_id, 'full_name', m.full_name, 'status', m.status) ORDER BY m.user_id)
      FROM clinic_members m WHERE m.clinic_id = p_clinic_id AND m.user_id = ANY (v_candidates)), '[]'),
    'hours', coalesce((
      SELECT jsonb_agg(jsonb_build_object('provider_id', w.provider_id, 'weekday', w.weekday, 'opens_min', w.opens_min, 'closes_min', w.closes_min))
      FROM work_hours w WHERE w.clinic_id = p_clinic_id AND (w.provider_id IS NULL OR w.provider_id = ANY (v_candidates))), '[]'),
    'overrides', coalesce((
      SELECT jsonb_agg(jsonb_build_object('provider_id', o.provider_id, 'date', o.date, 'opens_min', op.opens_min, 'closes_min', op.closes_min))
      FROM date_overrides o
      LEFT JOIN date_override_periods op ON op.clinic_id = o.clinic_id AND op.override_id = o.id AND op.clinic_id = p_clinic_id
      WHERE o.clinic_id = p_clinic_id AND o.date BETWEEN v_date AND v_date_to AND (o.provider_id IS NULL OR o.provider_id = ANY (v_candidates))), '[]'),
    'closures', coalesce((
      SELECT jsonb_agg(jsonb_build_object('provider_id', c.provider_id, 'starts_at', clinic_iso_instant(c.starts_at), 'ends_at', clinic_iso_instant(c.ends_at), 'reason', c.reason))
      FROM closures c
      WHERE c.clinic_id = p_clinic_id AND c.starts_at < v_to AND c.ends_at > v_from AND (c.provider_id IS NULL OR c.provider_id = ANY (v_candidates))), '[]'),
    'bookings', coalesce((
      SELECT jsonb_agg(jsonb_build_object('id', a.id, 'provider_id', a.provider_id, 'starts_at', clinic_iso_instant(a.starts_at), 'ends_at', clinic_iso_instant(a.ends_at),
               'buffer_before_min', a.buffer_before_min, 'buffer_after_min', a.buffer_after_min))
      FROM appointments a
      WHERE a.clinic_id = p_clinic_id AND a.status = 'booked' AND a.provider_id = ANY (v_candidates)
        AND a.occupied_start < v_to AND a.occupied_end > v_from AND (v_exclude IS NULL OR a.id <> v_exclude)
        -- The same bounds on the start, for the (clinic, provider, start) index: a booking lasts at
        -- most a day and its buffers at most 4 h each side.
        AND a.starts_at > v_from - interval '28 hours' AND a.starts_at < v_to + interval '4 hours'), '[]'),
    'day_load', CASE WHEN p->>'day_start' IS NULL THEN '{}'::jsonb ELSE coalesce((
      SELECT jsonb_object_agg(l.provider_id, l.n) FROM (
        SELECT a.provider_id, count(*) AS n FROM appointments a
        WHERE a.clinic_id = p_clinic_id AND a.status = 'booked' AND a.provider_id = ANY (v_candidates)
          AND a.starts_at >= (p->>'day_start')::timestamptz AND a.starts_at < (p->>'day_end')::timestamptz
        GROUP BY a.provider_id) l), '{}') END,
    'schedule', coalesce((
      SELECT jsonb_object_agg(v.scope_id, v.schedule_version) FROM availability_versions v
      WHERE v.clinic_id = p_clinic_id AND (v.scope_id = p_clinic_id OR v.scope_id = ANY (v_candidates))), '{}'),
    'versions', coalesce((
      SELECT jsonb_object_agg(v.scope_id, v.version) FROM availability_versions v
      WHERE v.clinic_id = p_clinic_id AND (v.scope_id = p_clinic_id OR v.scope_id = ANY (v_candidates))), '{}'));
END $$;
--> statement-breakpoint
-- Errors of the write functions: SQLSTATE CL001 carries a contract code (MESSAGE), its detail
-- (DETAIL) and extras as JSON (HINT); CL002 says the schedule changed since the read. Each write
-- function turns them into its answer, having rolled back what it did.
--
-- Claims an idempotency key for this request, or answers the appointment of the request that
-- claimed it before (a replay). Null when there is no key or it is claimed now. A concurrent
-- request with the same key waits here until the first one's statement ends.
CREATE OR REPLACE FUNCTION clinic_claim_key(p_clinic_id uuid, p_user uuid, p_idem jsonb) RETURNS uuid
LANGUAGE plpgsql AS $$
DECLARE
  v_claimed text;
  v_stored record;
BEGIN
  IF jsonb_typeof(p_idem) IS DISTINCT FROM 'object' THEN
    RETURN NULL;
  END IF;
  INSERT INTO idempotency_keys (clinic_id, user_id, key, request_hash, status_code, response)
  VALUES (p_clinic_id, p_user, p_idem->>'key', p_idem->>'hash', 0, '{}'::jsonb)
  ON CONFLICT DO NOTHING
  RETURNING key INTO v_claimed;
  IF v_claimed IS NOT NULL THEN
    RETURN NULL;
  END IF;
  SELECT k.request_hash, k.response INTO v_stored FROM idempotency_keys k
  WHERE k.clinic_id = p_clinic_id AND k.user_id = p_user AND k.key = p_idem->>'key';
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'CONFLICT', DETAIL = 'the idempotency key is in use by a concurrent request; retry';
  END IF;
  IF v_stored.request_hash <> p_idem->>'hash' THEN
    RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'IDEMPOTENCY_KEY_REUSED', DETAIL = 'this Idempotency-Key was used with a different request';
  END IF;
  IF v_stored.response->>'appointment_id' IS NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'CONFLICT', DETAIL = 'the original request with this key did not complete; retry';
  END IF;
  RETURN (v_stored.response->>'appointment_id')::uuid;
END $$;
--> statement-breakpoint
-- Stores the outcome of a claimed key (nothing without one).
CREATE OR REPLACE FUNCTION clinic_store_key(p_clinic_id uuid, p_user uuid, p_idem jsonb, p_appointment_id uuid) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF jsonb_typeof(p_idem) = 'object' THEN
    UPDATE idempotency_keys SET status_code = 200, response = jsonb_build_object('appointment_id', p_appointment_id)
    WHERE clinic_id = p_clinic_id AND user_id = p_user AND key = p_idem->>'key';
  END IF;
END $$;
--> statement-breakpoint
-- The schedule a check was made on (scope id → schedule version) must still be the schedule: each
-- scope's row is held with a key-share lock, which a schedule change (FOR UPDATE first) waits for,
-- and which waits for a schedule change in progress; bookings do not block each other on it.
CREATE OR REPLACE FUNCTION clinic_check_schedule(p_clinic_id uuid, p_schedule jsonb) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_scope uuid;
  v_version bigint;
BEGIN
  FOR v_scope IN SELECT k::uuid FROM jsonb_object_keys(p_schedule) AS k ORDER BY 1 LOOP
    SELECT v.schedule_version INTO v_version FROM availability_versions v
    WHERE v.clinic_id = p_clinic_id AND v.scope_id = v_scope FOR KEY SHARE;
    IF NOT FOUND THEN
      -- A scope never changed has no row yet: make one to hold the lock on.
      INSERT INTO availability_versions (clinic_id, scope_id, version, schedule_version)
      VALUES (p_clinic_id, v_scope, 0, 0) ON CONFLICT DO NOTHING;
      SELECT v.schedule_version INTO v_version FROM availability_versions v
      WHERE v.clinic_id = p_clinic_id AND v.scope_id = v_scope FOR KEY SHARE;
    END IF;
    IF v_version <> (p_schedule->>v_scope::text)::bigint THEN
      RAISE EXCEPTION USING ERRCODE = 'CL002', MESSAGE = 'STALE';
    END IF;
  END LOOP;
END $$;
--> statement-breakpoint
-- Bumps the availability (cache) version of providers whose bookings changed; their schedule
-- version stays.
CREATE OR REPLACE FUNCTION clinic_bookings_changed(p_clinic_id uuid, p_providers uuid[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_provider uuid;
BEGIN
  FOREACH v_provider IN ARRAY (SELECT array_agg(DISTINCT x ORDER BY x) FROM unnest(p_providers) AS x) LOOP
    INSERT INTO availability_versions AS v (clinic_id, scope_id, version) VALUES (p_clinic_id, v_provider, 1)
    ON CONFLICT (clinic_id, scope_id) DO UPDATE SET version = v.version + 1;
  END LOOP;
END $$;
--> statement-breakpoint
-- Plans an appointment's reminders: one per offset of the clinic at start − offset, unless that has
-- passed at p_now; each job waits in the outbox (docs/events.md#reminders).
CREATE OR REPLACE FUNCTION clinic_plan_reminders(p_clinic_id uuid, p_appointment_id uuid, p_start timestamptz, p_now timestamptz) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_offset integer;
  v_at timestamptz;
  v_job uuid;
BEGIN
  FOR v_offset IN SELECT DISTINCT o FROM clinics c, unnest(c.reminder_offsets_min) AS o WHERE c.id = p_clinic_id ORDER BY o LOOP
    v_at := p_start - make_interval(mins => v_offset);
    CONTINUE WHEN v_at <= p_now;
    v_job := gen_random_uuid();
    INSERT INTO appointment_reminders AS r (clinic_id, appointment_id, offset_min, starts_at, job_id)
    VALUES (p_clinic_id, p_appointment_id, v_offset, p_start, v_job)
    ON CONFLICT (clinic_id, appointment_id, offset_min, starts_at) DO UPDATE
      SET job_id = excluded.job_id, status = 'planned',
          updated_at = greatest(excluded.updated_at, ((r.updated_at AT TIME ZONE 'UTC') + interval '1 millisecond') AT TIME ZONE 'UTC');
    INSERT INTO outbox (clinic_id, job_id, queue, data, start_after)
    VALUES (p_clinic_id, v_job, 'appointment-reminder',
            jsonb_build_object('clinicId', p_clinic_id, 'appointmentId', p_appointment_id, 'offsetMin', v_offset, 'startsAt', clinic_iso_instant(p_start)), v_at);
  END LOOP;
END $$;
--> statement-breakpoint
-- Drops an appointment's planned reminders; their jobs leave the outbox if still there (a job
-- already queued finds its reminder dropped and does nothing).
CREATE OR REPLACE FUNCTION clinic_drop_reminders(p_clinic_id uuid, p_appointment_id uuid) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_jobs uuid[];
BEGIN
  WITH dropped AS (
    UPDATE appointment_reminders r SET status = 'dropped',
      updated_at = greatest(now(), ((r.updated_at AT TIME ZONE 'UTC') + interval '1 millisecond') AT TIME ZONE 'UTC')
    WHERE r.clinic_id = p_clinic_id AND r.appointment_id = p_appointment_id AND r.status = 'planned'
    RETURNING r.job_id)
  SELECT coalesce(array_agg(job_id), '{}') INTO v_jobs FROM dropped;
  IF cardinality(v_jobs) > 0 THEN
    DELETE FROM outbox WHERE clinic_id = p_clinic_id AND job_id = ANY (v_jobs);
  END IF;
END $$;
--> statement-breakpoint
-- Records an event of the clinic with its webhook deliveries (each first attempt in the outbox).
-- The clinic's event number is taken last, so that the clinic's writers wait for each other only
-- from here to their commits (docs/performance.md#a-gap-free-feed-without-waiting): call it as
-- the last step of a write.
CREATE OR REPLACE FUNCTION clinic_record_event(p_clinic_id uuid, p_type text, p_data jsonb) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_event_id uuid := gen_random_uuid();
  v_seq bigint;
  v_hook record;
  v_job uuid;
  v_delivery uuid;
BEGIN
  FOR v_hook IN
    SELECT w.id FROM webhooks w
    WHERE w.clinic_id = p_clinic_id AND w.active AND ('*' = ANY (w.event_types) OR p_type = ANY (w.event_types))
    ORDER BY w.id
  LOOP
    v_job := gen_random_uuid();
    INSERT INTO webhook_deliveries (clinic_id, webhook_id, event_id, event_type, payload, next_attempt_at, job_id)
    VALUES (p_clinic_id, v_hook.id, v_event_id, p_type,
            jsonb_build_object('id', v_event_id, 'type', p_type, 'clinic_id', p_clinic_id, 'occurred_at', clinic_iso_instant(now()), 'data', p_data),
            now(), v_job)
    RETURNING id INTO v_delivery;
    INSERT INTO outbox (clinic_id, job_id, queue, data)
    VALUES (p_clinic_id, v_job, 'webhook-delivery', jsonb_build_object('clinicId', p_clinic_id, 'deliveryId', v_delivery, 'attempt', 0));
  END LOOP;
  INSERT INTO event_counters AS ec (clinic_id, last_seq) VALUES (p_clinic_id, 1)
  ON CONFLICT (clinic_id) DO UPDATE SET last_seq = ec.last_seq + 1
  RETURNING last_seq INTO v_seq;
  INSERT INTO events (clinic_id, seq, id, type, data) VALUES (p_clinic_id, v_seq, v_event_id, p_type, p_data);
END $$;
--> statement-breakpoint
-- Write: one booking, all or nothing, in the caller's one statement (so its own transaction). p:
-- user_id, idem (key, hash) or null, service_id, start, end, occupied_start, occupied_end,
-- buffer_before_min, buffer_after_min, candidates (provider ids, in the order to try), schedule
-- (scope id → schedule version the check was made on), patient_name, patient_email,
-- patient_phone, notes, patient_user_id, open_limit (or null), now; or, for a request with a key
-- that the read refused, user_id, idem and refuse (code, detail, extra). Answers {appointment,
-- replayed}, {error, detail, extra} or {stale: true} (a schedule changed since the read: read
-- again).
CREATE OR REPLACE FUNCTION clinic_book_appointment(p_clinic_id uuid, p jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_user uuid := (p->>'user_id')::uuid;
  v_now timestamptz := (p->>'now')::timestamptz;
  v_start timestamptz := (p->>'start')::timestamptz;
  v_replay uuid;
  v_open bigint;
  v_limit integer := (p->>'open_limit')::integer;
  v_id uuid;
  v_provider uuid;
  v_view jsonb;
  v_msg text;
  v_detail text;
  v_hint text;
BEGIN
  BEGIN
    v_replay := clinic_claim_key(p_clinic_id, v_user, p->'idem');
    IF v_replay IS NOT NULL THEN
      RETURN jsonb_build_object('appointment', clinic_appointment_json(p_clinic_id, v_replay), 'replayed', true);
    END IF;
    -- A request the read refused is refused now, unless its key replayed above (a retry of a
    -- booking answers the booking, whatever has changed since).
    IF jsonb_typeof(p->'refuse') = 'object' THEN
      RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = p->'refuse'->>'code', DETAIL = p->'refuse'->>'detail',
        HINT = coalesce(p->'refuse'->'extra', '{}'::jsonb)::text;
    END IF;
    -- A patient's own booking: their open bookings, counted under the lock of their row.
    IF v_limit IS NOT NULL THEN
      INSERT INTO clinic_patients AS cp (clinic_id, user_id) VALUES (p_clinic_id, (p->>'patient_user_id')::uuid)
      ON CONFLICT (clinic_id, user_id) DO UPDATE SET last_booked_at = excluded.last_booked_at;
      SELECT count(*) INTO v_open FROM appointments a
      WHERE a.clinic_id = p_clinic_id AND a.patient_user_id = (p->>'patient_user_id')::uuid AND a.status = 'booked' AND a.starts_at > v_now;
      IF v_open >= v_limit THEN
        RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'BOOKING_LIMIT',
          DETAIL = format('you already hold %s upcoming appointments with this clinic, its maximum; cancel one to book another', v_open),
          HINT = jsonb_build_object('max_open_bookings', v_limit)::text;
      END IF;
    END IF;

    -- The exclusion constraint decides: the first candidate whose time is still free gets it.
    FOR v_provider IN SELECT x::uuid FROM jsonb_array_elements_text(p->'candidates') AS x LOOP
      BEGIN
        INSERT INTO appointments (clinic_id, service_id, provider_id, starts_at, ends_at, buffer_before_min, buffer_after_min,
                                  occupied_start, occupied_end, patient_name, patient_email, patient_phone_e164, notes,
                                  booked_by_user_id, patient_user_id)
        VALUES (p_clinic_id, (p->>'service_id')::uuid, v_provider, v_start, (p->>'end')::timestamptz,
                (p->>'buffer_before_min')::integer, (p->>'buffer_after_min')::integer,
                (p->>'occupied_start')::timestamptz, (p->>'occupied_end')::timestamptz,
                p->>'patient_name', p->>'patient_email', p->>'patient_phone', p->>'notes', v_user, nullif(p->>'patient_user_id', '')::uuid)
        RETURNING id INTO v_id;
        EXIT;
      EXCEPTION WHEN exclusion_violation OR deadlock_detected THEN
        v_id := NULL;
      END;
    END LOOP;
    IF v_id IS NULL THEN
      RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'SLOT_UNAVAILABLE', DETAIL = format('%s was just booked by someone else', p->>'start');
    END IF;
    -- The schedule of the clinic and of the provider who got it must still be the one checked
    -- (a changed one rolls all of this back: read again).
    PERFORM clinic_check_schedule(p_clinic_id, jsonb_build_object(p_clinic_id::text, p->'schedule'->p_clinic_id::text, v_provider::text, p->'schedule'->v_provider::text));

    PERFORM clinic_bookings_changed(p_clinic_id, ARRAY[v_provider]);
    PERFORM clinic_plan_reminders(p_clinic_id, v_id, v_start, v_now);
    PERFORM clinic_store_key(p_clinic_id, v_user, p->'idem', v_id);
    v_view := clinic_appointment_json(p_clinic_id, v_id);
    PERFORM clinic_record_event(p_clinic_id, 'appointment.booked', v_view);
    RETURN jsonb_build_object('appointment', v_view, 'replayed', false);
  EXCEPTION
    WHEN SQLSTATE 'CL001' THEN
      GET STACKED DIAGNOSTICS v_msg = MESSAGE_TEXT, v_detail = PG_EXCEPTION_DETAIL, v_hint = PG_EXCEPTION_HINT;
      RETURN jsonb_build_object('error', v_msg, 'detail', v_detail, 'extra', coalesce(nullif(v_hint, '')::jsonb, '{}'::jsonb));
    WHEN SQLSTATE 'CL002' THEN
      RETURN jsonb_build_object('stale', true);
  END;
END $$;
--> statement-breakpoint
-- Write: one move of a booked appointment, all or nothing, in one statement. p: user_id, idem,
-- appointment_id, revision (the one the check was made on: another change since is a read again),
-- provider_id, start, end, occupied_start, occupied_end, buffer_before_min, buffer_after_min,
-- schedule, now; or user_id, idem and refuse. Answers as clinic_book_appointment.
CREATE OR REPLACE FUNCTION clinic_reschedule_appointment(p_clinic_id uuid, p jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_user uuid := (p->>'user_id')::uuid;
  v_id uuid := (p->>'appointment_id')::uuid;
  v_provider uuid := (p->>'provider_id')::uuid;
  v_start timestamptz := (p->>'start')::timestamptz;
  v_replay uuid;
  v_current record;
  v_view jsonb;
  v_msg text;
  v_detail text;
  v_hint text;
BEGIN
  BEGIN
    v_replay := clinic_claim_key(p_clinic_id, v_user, p->'idem');
    IF v_replay IS NOT NULL THEN
      RETURN jsonb_build_object('appointment', clinic_appointment_json(p_clinic_id, v_replay), 'replayed', true);
    END IF;
    IF jsonb_typeof(p->'refuse') = 'object' THEN
      RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = p->'refuse'->>'code', DETAIL = p->'refuse'->>'detail',
        HINT = coalesce(p->'refuse'->'extra', '{}'::jsonb)::text;
    END IF;
    SELECT a.provider_id, a.starts_at, a.ends_at, a.revision, a.status INTO v_current FROM appointments a
    WHERE a.clinic_id = p_clinic_id AND a.id = v_id FOR UPDATE;
    IF NOT FOUND OR v_current.revision <> (p->>'revision')::integer OR v_current.status <> 'booked' THEN
      RAISE EXCEPTION USING ERRCODE = 'CL002', MESSAGE = 'STALE';
    END IF;
    PERFORM clinic_check_schedule(p_clinic_id, p->'schedule');
    BEGIN
      UPDATE appointments a SET provider_id = v_provider, starts_at = v_start, ends_at = (p->>'end')::timestamptz,
        buffer_before_min = (p->>'buffer_before_min')::integer, buffer_after_min = (p->>'buffer_after_min')::integer,
        occupied_start = (p->>'occupied_start')::timestamptz, occupied_end = (p->>'occupied_end')::timestamptz,
        rescheduled_at = now(), revision = a.revision + 1,
        updated_at = greatest(now(), ((a.updated_at AT TIME ZONE 'UTC') + interval '1 millisecond') AT TIME ZONE 'UTC')
      WHERE a.clinic_id = p_clinic_id AND a.id = v_id;
    EXCEPTION WHEN exclusion_violation OR deadlock_detected THEN
      RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'SLOT_UNAVAILABLE', DETAIL = format('%s was just booked by someone else', p->>'start');
    END;
    PERFORM clinic_bookings_changed(p_clinic_id, ARRAY[v_current.provider_id, v_provider]);
    PERFORM clinic_drop_reminders(p_clinic_id, v_id);
    PERFORM clinic_plan_reminders(p_clinic_id, v_id, v_start, (p->>'now')::timestamptz);
    PERFORM clinic_store_key(p_clinic_id, v_user, p->'idem', v_id);
    v_view := clinic_appointment_json(p_clinic_id, v_id);
    PERFORM clinic_record_event(p_clinic_id, 'appointment.rescheduled',
      v_view || jsonb_build_object('previous_start', clinic_iso_instant(v_current.starts_at), 'previous_end', clinic_iso_instant(v_current.ends_at)));
    RETURN jsonb_build_object('appointment', v_view, 'replayed', false);
  EXCEPTION
    WHEN SQLSTATE 'CL001' THEN
      GET STACKED DIAGNOSTICS v_msg = MESSAGE_TEXT, v_detail = PG_EXCEPTION_DETAIL, v_hint = PG_EXCEPTION_HINT;
      RETURN jsonb_build_object('error', v_msg, 'detail', v_detail, 'extra', coalesce(nullif(v_hint, '')::jsonb, '{}'::jsonb));
    WHEN SQLSTATE 'CL002' THEN
      RETURN jsonb_build_object('stale', true);
  END;
END $$;
