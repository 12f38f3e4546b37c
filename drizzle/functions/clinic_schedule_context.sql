-- The one read of the booking path and of availability (docs/performance.md#the-booking-path),
-- called by readScheduleContext (modules/availability/context.ts) for a booking's or a move's check
-- of one start (p.slot_start), an availability answer's range (V1, O3, next free), V2 and a series
-- (R1). Answers as json: the service, its candidates and weekly hours, the range's overrides,
-- closures and occupying bookings (§6, §8, §13), shared providers' time elsewhere, the providers'
-- own calendars' busy time (§18), the service's questions (§19: a booking checks its answers) and the required
-- resources (§14), each candidate's bookings that local date (day_load, §6's rank and §8's daily
-- limit; a move's own appointment left out; its twin localDayLoad, dayLoad.test.ts) and the
-- schedule and cache versions. A booking (B1) leaves its authorization to this read (p.access:
-- docs/performance.md#authorized-by-the-read): the clinic, its zone and the caller's membership are
-- read first, and a caller it refuses (no clinic; not a member with one of p.access.roles, all roles
-- when null, unless p.access.admin) or a zone other than the one the request assumed ends the read
-- with {refused, access} before anything is counted or read. It then counts the caller's
-- booking write (p.rate: §9 BOOKING_RATE_LIMIT, §15 GUEST_RATE_LIMIT). It reads the versions first:
-- each statement sees what committed when it starts, so what follows is as new or newer. The
-- candidates and hours the caller holds at the same versions (p.known) are left out, and a check
-- reads only the slot's occupied time. SET enable_seqscan off; generic plan on PostgreSQL (DO).
CREATE OR REPLACE FUNCTION clinic_schedule_context(p_clinic_id uuid, p jsonb)
 RETURNS json
 LANGUAGE plpgsql
 SET enable_seqscan TO 'off'
AS $function$
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
  v_now timestamptz := coalesce((p->>'now')::timestamptz, now());
  v_shared uuid[];
  v_elsewhere jsonb := '[]'::jsonb;
  v_kinds text[] := '{}';
  v_kind_scopes uuid[] := '{}';
  v_resources jsonb := '[]'::jsonb;
  v_schedule jsonb;
  v_versions json;
  v_known boolean;
  v_all jsonb;
  v_access jsonb;
BEGIN
  IF jsonb_typeof(p->'access') = 'object' THEN
    SELECT jsonb_build_object('clinic', true, 'timezone', c.timezone, 'role', m.clinic_role, 'is_provider', m.is_provider,
             'status', m.status)
      INTO v_access
    FROM clinics c
    LEFT JOIN clinic_members m ON m.clinic_id = p_clinic_id AND m.user_id = (p->'access'->>'caller')::uuid
    WHERE c.id = p_clinic_id;
    v_access := coalesce(v_access, jsonb_build_object('clinic', false));
    IF NOT (v_access->>'clinic')::boolean
       OR (v_access->>'timezone') IS DISTINCT FROM (p->'access'->>'zone')
       OR NOT (coalesce((p->'access'->>'admin')::boolean, false)
               OR (v_access->>'role' IS NOT NULL
                   AND (jsonb_typeof(p->'access'->'roles') IS DISTINCT FROM 'array' OR p->'access'->'roles' ? (v_access->>'role')))) THEN
      RETURN json_build_object('refused', true, 'access', v_access);
    END IF;
  END IF;
  IF jsonb_typeof(p->'rate') = 'object' THEN
    -- The count is the only thing this statement writes, and a crash may lose the last few of it:
    -- its commit does not wait for the WAL to reach the disk (docs/performance.md#the-booking-path).
    -- Every other process sees it at once all the same.
    PERFORM set_config('synchronous_commit', 'off', true);
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
      RETURN json_build_object('rate_limited', true);
    END IF;
  END IF;
  -- The versions first: every statement of this (volatile) function sees what has committed when it
  -- starts, so what is read after the versions is as new as they are or newer, never older. Stale
  -- data kept under new versions would be served until the next change; newer data under old
  -- versions only costs a miss, and the write's re-check of the schedule versions sends a booking
  -- back to read again (docs/performance.md#the-booking-path). All scopes of the clinic: which
  -- ones the answer depends on is known only from what is read next.
  SELECT coalesce(jsonb_object_agg(v.scope_id, jsonb_build_array(v.schedule_version, v.version)), '{}'::jsonb) INTO v_all
  FROM availability_versions v WHERE v.clinic_id = p_clinic_id;
  -- A move: the appointment as it is now, whose service it keeps.
  IF v_exclude IS NOT NULL THEN
    SELECT jsonb_build_object('service_id', a.service_id, 'provider_id', a.provider_id, 'starts_at', clinic_iso_instant(a.starts_at),
             'ends_at', clinic_iso_instant(a.ends_at), 'status', a.status, 'held_until', clinic_iso_instant(a.held_until), 'booked_by_user_id', a.booked_by_user_id,
             'patient_user_id', a.patient_user_id, 'revision', a.revision),
           a.service_id
      INTO v_appointment, v_service_id
    FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.id = v_exclude;
    IF v_appointment IS NULL THEN
      RETURN json_build_object('appointment', null);
    END IF;
  END IF;
  SELECT jsonb_build_object('id', s.id, 'name', s.name, 'duration_min', s.duration_min, 'provider_id', s.provider_id,
           'is_active', s.is_active, 'buffer_before_min', s.buffer_before_min, 'buffer_after_min', s.buffer_after_min,
           'slot_step_min', s.slot_step_min, 'min_notice_min', s.min_notice_min, 'booking_horizon_days', s.booking_horizon_days,
           'capacity', s.capacity, 'required_resource_kinds', to_jsonb(s.required_resource_kinds), 'questions', s.questions),
         coalesce(s.provider_id, nullif(p->>'provider_id', '')::uuid)
    INTO v_service, v_wanted
  FROM services s
  WHERE s.clinic_id = p_clinic_id AND s.id = v_service_id AND s.deleted_at IS NULL;
  IF v_service IS NULL THEN
    RETURN json_build_object('service', null, 'appointment', v_appointment);
  END IF;
  -- The check of one start (a booking's or a move's, p.slot_start): only what overlaps the time the
  -- slot would occupy, its service's buffers included, can refuse it (rows match by their own
  -- occupied time), so only that is read, however booked the day around it is.
  IF p->>'slot_start' IS NOT NULL THEN
    v_from := greatest(v_from, (p->>'slot_start')::timestamptz - make_interval(mins => (v_service->>'buffer_before_min')::integer));
    v_to := least(v_to, (p->>'slot_start')::timestamptz
      + make_interval(mins => (v_service->>'duration_min')::integer + (v_service->>'buffer_after_min')::integer));
  END IF;
  SELECT coalesce(array_agg(m.user_id ORDER BY m.user_id), '{}') INTO v_candidates
  FROM clinic_members m
  WHERE m.clinic_id = p_clinic_id AND m.is_provider AND (v_wanted IS NULL OR m.user_id = v_wanted);
  -- Shared providers (docs/shared-providers.md): their time taken in other clinics.
  -- Resources of the kinds the service needs (§14): each with the times it is taken.
  SELECT coalesce(array_agg(k ORDER BY k), '{}'), coalesce(array_agg(clinic_kind_scope(p_clinic_id, k) ORDER BY k), '{}')
    INTO v_kinds, v_kind_scopes
  FROM jsonb_array_elements_text(v_service->'required_resource_kinds') AS k;
  IF cardinality(v_kinds) > 0 THEN
    SELECT coalesce(jsonb_agg(jsonb_build_object('id', s.id, 'name', s.name, 'kind', s.kind,
             'busy', coalesce((
               SELECT jsonb_agg(jsonb_build_object('starts_at', clinic_iso_instant(r.occupied_start), 'ends_at', clinic_iso_instant(r.occupied_end),
                        'held_until', clinic_iso_instant(r.held_until),
                        'seat', CASE WHEN r.session_key IS NULL THEN NULL ELSE jsonb_build_object('service_id', a.service_id, 'provider_id', a.provider_id,
                          'start', clinic_iso_instant(a.starts_at), 'end', clinic_iso_instant(a.ends_at)) END))
               FROM resource_bookings r
               LEFT JOIN appointments a ON a.clinic_id = r.clinic_id AND a.id = r.appointment_id AND a.clinic_id = p_clinic_id
               WHERE r.clinic_id = p_clinic_id AND r.resource_id = s.id AND r.occupied_start < v_to AND r.occupied_end > v_from
                 AND (r.held_until IS NULL OR r.held_until > v_now) AND (v_exclude IS NULL OR r.appointment_id <> v_exclude)), '[]'::jsonb)
             || coalesce((
               SELECT jsonb_agg(jsonb_build_object('starts_at', clinic_iso_instant(c.starts_at), 'ends_at', clinic_iso_instant(c.ends_at)))
               FROM resource_closures c
               WHERE c.clinic_id = p_clinic_id AND c.resource_id = s.id AND c.starts_at < v_to AND c.ends_at > v_from), '[]'::jsonb))
           ORDER BY s.kind, s.name, s.id), '[]'::jsonb) INTO v_resources
    FROM resources s
    WHERE s.clinic_id = p_clinic_id AND s.kind = ANY (v_kinds) AND s.is_active AND s.deleted_at IS NULL;
  END IF;
  -- (Its own statement: on Citus provider_busy lives on other shards than this clinic's rows.)
  SELECT array_agg(s.user_id) INTO v_shared FROM shared_providers s WHERE s.user_id = ANY (v_candidates);
  IF v_shared IS NOT NULL THEN
    SELECT coalesce(jsonb_agg(jsonb_build_object('provider_id', b.user_id, 'starts_at', clinic_iso_instant(b.occupied_start),
             'ends_at', clinic_iso_instant(b.occupied_end), 'held_until', clinic_iso_instant(b.held_until))), '[]'::jsonb) INTO v_elsewhere
    FROM provider_busy b
    WHERE b.user_id = ANY (v_shared) AND b.clinic_id <> p_clinic_id AND b.occupied_start < v_to AND b.occupied_end > v_from
      AND (b.held_until IS NULL OR b.held_until > v_now);
  END IF;
  -- The versions (read first, above) of the scopes the answer depends on.
  SELECT coalesce(jsonb_object_agg(s.k, v_all->s.k->0), '{}'::jsonb), coalesce(json_object_agg(s.k, v_all->s.k->1), '{}'::json)
    INTO v_schedule, v_versions
  FROM (SELECT DISTINCT x::text AS k FROM unnest(ARRAY[p_clinic_id] || v_candidates || v_kind_scopes) AS x) s
  WHERE v_all ? s.k;
  -- The caller already holds the candidates and weekly hours of these very candidates at these very
  -- schedule versions (every change of a service, a member or an hour bumps one of them): they are
  -- not built again (docs/performance.md#the-booking-path).
  v_known := coalesce(jsonb_typeof(p->'known') = 'object' AND p->'known'->'schedule' = v_schedule
    AND p->'known'->'candidates' = to_jsonb(v_candidates), false);
  RETURN json_build_object(
    'known', v_known,
    'elsewhere', v_elsewhere,
    'resources', v_resources,
    'kind_scopes', to_jsonb(v_kind_scopes),
    'appointment', v_appointment,
    'service', v_service,
    'candidates', CASE WHEN v_known THEN NULL ELSE coalesce((
      SELECT json_agg(json_build_object('user_id', m.user_id, 'full_name', m.full_name, 'status', m.status,
               'max_daily_appointments', m.max_daily_appointments) ORDER BY m.user_id)
      FROM clinic_members m WHERE m.clinic_id = p_clinic_id AND m.user_id = ANY (v_candidates)), '[]'::json) END,
    'hours', CASE WHEN v_known THEN NULL ELSE coalesce((
      SELECT json_agg(json_build_object('provider_id', w.provider_id, 'weekday', w.weekday, 'opens_min', w.opens_min, 'closes_min', w.closes_min))
      FROM work_hours w WHERE w.clinic_id = p_clinic_id AND (w.provider_id IS NULL OR w.provider_id = ANY (v_candidates))), '[]'::json) END,
    'overrides', coalesce((
      SELECT json_agg(json_build_object('provider_id', o.provider_id, 'date', o.date, 'opens_min', op.opens_min, 'closes_min', op.closes_min))
      FROM date_overrides o
      LEFT JOIN date_override_periods op ON op.clinic_id = o.clinic_id AND op.override_id = o.id AND op.clinic_id = p_clinic_id
      WHERE o.clinic_id = p_clinic_id AND o.date BETWEEN v_date AND v_date_to AND (o.provider_id IS NULL OR o.provider_id = ANY (v_candidates))), '[]'::json),
    -- The providers' own calendars (§18, docs/calendars.md): their busy time, copied into this
    -- clinic by the sync; a stale calendar's row spans all time.
    'external', coalesce((
      SELECT json_agg(json_build_object('provider_id', c.provider_id, 'starts_at', clinic_iso_instant(c.starts_at),
               'ends_at', clinic_iso_instant(c.ends_at), 'stale', c.stale))
      FROM calendar_busy c
      WHERE c.clinic_id = p_clinic_id AND c.provider_id = ANY (v_candidates) AND c.ends_at > v_from AND c.starts_at < v_to), '[]'::json),
    'closures', coalesce((
      SELECT json_agg(json_build_object('provider_id', c.provider_id, 'starts_at', clinic_iso_instant(c.starts_at), 'ends_at', clinic_iso_instant(c.ends_at), 'reason', c.reason))
      FROM closures c
      WHERE c.clinic_id = p_clinic_id AND c.starts_at < v_to AND c.ends_at > v_from AND (c.provider_id IS NULL OR c.provider_id = ANY (v_candidates))), '[]'::json),
    'bookings', coalesce((
      SELECT json_agg(json_build_object('id', a.id, 'provider_id', a.provider_id, 'starts_at', clinic_iso_instant(a.starts_at), 'ends_at', clinic_iso_instant(a.ends_at),
               'buffer_before_min', a.buffer_before_min, 'buffer_after_min', a.buffer_after_min,
               'held_until', clinic_iso_instant(a.held_until), 'service_id', a.service_id, 'session_key', a.session_key))
      FROM appointments a
      WHERE a.clinic_id = p_clinic_id AND clinic_occupies(a.status, a.held_until, v_now) AND a.provider_id = ANY (v_candidates)
        AND a.occupied_start < v_to AND a.occupied_end > v_from AND (v_exclude IS NULL OR a.id <> v_exclude)
        -- The same bounds on the start, for the (clinic, provider, start) index: a booking lasts at
        -- most a day and its buffers at most 4 h each side.
        AND a.starts_at > v_from - interval '28 hours' AND a.starts_at < v_to + interval '4 hours'), '[]'::json),
    'day_load', CASE WHEN p->>'day_start' IS NULL THEN '{}'::json ELSE coalesce((
      SELECT json_object_agg(l.provider_id, l.n) FROM (
        SELECT a.provider_id, count(*) AS n FROM appointments a
        WHERE a.clinic_id = p_clinic_id AND clinic_occupies(a.status, a.held_until, v_now) AND a.provider_id = ANY (v_candidates)
          AND a.starts_at >= (p->>'day_start')::timestamptz AND a.starts_at < (p->>'day_end')::timestamptz
          AND (v_exclude IS NULL OR a.id <> v_exclude)
        GROUP BY a.provider_id) l), '{}'::json) END,
    'schedule', v_schedule,
    'versions', v_versions);
END $function$;
--> statement-breakpoint
-- Planned once per connection (generic plan), on PostgreSQL only: Citus cannot route a generic plan.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
    ALTER FUNCTION clinic_schedule_context(uuid,jsonb) SET plan_cache_mode = force_generic_plan;
  END IF;
END $$;
