CREATE TABLE "resource_bookings" (
	"clinic_id" uuid NOT NULL,
	"resource_id" uuid NOT NULL,
	"appointment_id" uuid NOT NULL,
	"occupied_start" timestamp (3) with time zone NOT NULL,
	"occupied_end" timestamp (3) with time zone NOT NULL,
	"session_key" uuid,
	"held_until" timestamp (3) with time zone,
	CONSTRAINT "resource_bookings_pkey" PRIMARY KEY("clinic_id","resource_id","appointment_id"),
	CONSTRAINT "resource_bookings_range" CHECK ("resource_bookings"."occupied_end" > "resource_bookings"."occupied_start")
);
--> statement-breakpoint
CREATE TABLE "resource_closures" (
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"resource_id" uuid NOT NULL,
	"starts_at" timestamp (3) with time zone NOT NULL,
	"ends_at" timestamp (3) with time zone NOT NULL,
	"reason" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "resource_closures_pkey" PRIMARY KEY("clinic_id","id"),
	CONSTRAINT "resource_closures_time_range" CHECK ("resource_closures"."ends_at" > "resource_closures"."starts_at"),
	CONSTRAINT "resource_closures_reason_length" CHECK ("resource_closures"."reason" is null or char_length("resource_closures"."reason") <= 500)
);
--> statement-breakpoint
CREATE TABLE "resources" (
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"deleted_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "resources_pkey" PRIMARY KEY("clinic_id","id"),
	CONSTRAINT "resources_name_length" CHECK (char_length("resources"."name") between 1 and 200),
	CONSTRAINT "resources_kind_format" CHECK ("resources"."kind" ~ '^[a-z0-9][a-z0-9_-]{0,63}$')
);
--> statement-breakpoint
ALTER TABLE "appointments" ADD COLUMN "resources" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "services" ADD COLUMN "required_resource_kinds" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "resource_bookings" ADD CONSTRAINT "resource_bookings_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "resource_bookings" ADD CONSTRAINT "resource_bookings_resource_fk" FOREIGN KEY ("clinic_id","resource_id") REFERENCES "public"."resources"("clinic_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "resource_closures" ADD CONSTRAINT "resource_closures_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "resource_closures" ADD CONSTRAINT "resource_closures_resource_fk" FOREIGN KEY ("clinic_id","resource_id") REFERENCES "public"."resources"("clinic_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "resources" ADD CONSTRAINT "resources_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "resource_bookings_clinic_appointment_idx" ON "resource_bookings" USING btree ("clinic_id","appointment_id");--> statement-breakpoint
CREATE INDEX "resource_closures_clinic_resource_idx" ON "resource_closures" USING btree ("clinic_id","resource_id","starts_at");--> statement-breakpoint
CREATE INDEX "resources_clinic_kind_name_idx" ON "resources" USING btree ("clinic_id","kind","name","id");--> statement-breakpoint
-- Resources (CONTRACT §14, docs/resources.md): one resource is never in two overlapping occupying
-- appointments, but the seats of one group session share theirs.
ALTER TABLE "resource_bookings" ADD CONSTRAINT "resource_bookings_no_overlap" EXCLUDE USING gist (
  "clinic_id" WITH =,
  "resource_id" WITH =,
  tstzrange("occupied_start", "occupied_end") WITH &&,
  (coalesce("session_key", "appointment_id")) WITH <>
);--> statement-breakpoint
-- The cache scope of a resource kind: answers of services that need the kind depend on it, and
-- every change of what a resource of the kind holds bumps it.
CREATE OR REPLACE FUNCTION clinic_kind_scope(p_clinic_id uuid, p_kind text) RETURNS uuid
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT md5('resource-kind|' || p_clinic_id::text || '|' || p_kind)::uuid
$$;
--> statement-breakpoint
-- Takes one resource of each wanted kind for an appointment (p_wanted: [{kind, ids}], the free ones
-- the read found, by name): the first whose row the exclusion constraint lets in, active, not
-- closed. A seat of a group session shares the session's. Answers [{id, name, kind}]; 409
-- SLOT_UNAVAILABLE (CL001) when a kind has none.
CREATE OR REPLACE FUNCTION clinic_claim_resources(p_clinic_id uuid, p_appointment_id uuid, p_wanted jsonb, p_occupied_start timestamptz,
  p_occupied_end timestamptz, p_session uuid, p_session_resources jsonb, p_held_until timestamptz, p_now timestamptz) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_kind jsonb;
  v_resource uuid;
  v_taken jsonb := '[]'::jsonb;
  v_got jsonb;
  v_shared jsonb;
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
          INSERT INTO resource_bookings (clinic_id, resource_id, appointment_id, occupied_start, occupied_end, session_key, held_until)
          SELECT p_clinic_id, v_resource, p_appointment_id, p_occupied_start, p_occupied_end, p_session, p_held_until
          FROM resources s WHERE s.clinic_id = p_clinic_id AND s.id = v_resource AND s.is_active AND s.deleted_at IS NULL
            AND s.kind = v_kind->>'kind'
            AND NOT EXISTS (SELECT 1 FROM resource_closures c WHERE c.clinic_id = p_clinic_id AND c.resource_id = v_resource
                              AND c.starts_at < p_occupied_end AND c.ends_at > p_occupied_start);
          IF FOUND THEN
            SELECT jsonb_build_object('id', s.id, 'name', s.name, 'kind', s.kind) INTO v_got
            FROM resources s WHERE s.clinic_id = p_clinic_id AND s.id = v_resource;
            EXIT;
          END IF;
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
END $$;
--> statement-breakpoint
-- Keeps an appointment's rows in resource_bookings and provider_busy as the appointment is, after a
-- change that frees time or ends a hold (the resources while it occupies time; for a shared
-- provider their time in provider_busy, nothing for a provider of one clinic but one read of
-- shared_providers, local on every Citus node), and bumps the cached availability of the kinds and
-- of every clinic of the providers involved. p_users: the appointment's provider, before and after
-- a move. An overlap elsewhere raises the exclusion violation to the caller.
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
      INSERT INTO availability_versions AS v (clinic_id, scope_id, version) VALUES (p_clinic_id, clinic_kind_scope(p_clinic_id, v_kind), 1)
      ON CONFLICT (clinic_id, scope_id) DO UPDATE SET version = v.version + 1;
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
    INSERT INTO availability_versions AS v (clinic_id, scope_id, version) VALUES ((v_pair->>'clinic')::uuid, (v_pair->>'user')::uuid, 1)
    ON CONFLICT (clinic_id, scope_id) DO UPDATE SET version = v.version + 1;
  END LOOP;
END $$;
--> statement-breakpoint
-- The read of a booking, a move, an explanation and an availability answer (0009), now with a group
-- service's capacity and each booking's service and session, a shared provider's time taken in
-- other clinics (`elsewhere`, with holds' ends), and the resources of the kinds the service needs
-- with their holds (a seat's with its service, provider and time) and closures.
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
  v_now timestamptz := coalesce((p->>'now')::timestamptz, now());
  v_shared uuid[];
  v_elsewhere jsonb := '[]'::jsonb;
  v_kinds text[] := '{}';
  v_kind_scopes uuid[] := '{}';
  v_resources jsonb := '[]'::jsonb;
BEGIN
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
      RETURN jsonb_build_object('rate_limited', true);
    END IF;
  END IF;
  -- A move: the appointment as it is now, whose service it keeps.
  IF v_exclude IS NOT NULL THEN
    SELECT jsonb_build_object('service_id', a.service_id, 'provider_id', a.provider_id, 'starts_at', clinic_iso_instant(a.starts_at),
             'ends_at', clinic_iso_instant(a.ends_at), 'status', a.status, 'held_until', clinic_iso_instant(a.held_until), 'booked_by_user_id', a.booked_by_user_id,
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
           'slot_step_min', s.slot_step_min, 'min_notice_min', s.min_notice_min, 'booking_horizon_days', s.booking_horizon_days,
           'capacity', s.capacity, 'required_resource_kinds', to_jsonb(s.required_resource_kinds)),
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
  RETURN jsonb_build_object(
    'elsewhere', v_elsewhere,
    'resources', v_resources,
    'kind_scopes', to_jsonb(v_kind_scopes),
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
               'buffer_before_min', a.buffer_before_min, 'buffer_after_min', a.buffer_after_min,
               'held_until', clinic_iso_instant(a.held_until), 'service_id', a.service_id, 'session_key', a.session_key))
      FROM appointments a
      WHERE a.clinic_id = p_clinic_id AND clinic_occupies(a.status, a.held_until, v_now) AND a.provider_id = ANY (v_candidates)
        AND a.occupied_start < v_to AND a.occupied_end > v_from AND (v_exclude IS NULL OR a.id <> v_exclude)
        -- The same bounds on the start, for the (clinic, provider, start) index: a booking lasts at
        -- most a day and its buffers at most 4 h each side.
        AND a.starts_at > v_from - interval '28 hours' AND a.starts_at < v_to + interval '4 hours'), '[]'),
    'day_load', CASE WHEN p->>'day_start' IS NULL THEN '{}'::jsonb ELSE coalesce((
      SELECT jsonb_object_agg(l.provider_id, l.n) FROM (
        SELECT a.provider_id, count(*) AS n FROM appointments a
        WHERE a.clinic_id = p_clinic_id AND clinic_occupies(a.status, a.held_until, v_now) AND a.provider_id = ANY (v_candidates)
          AND a.starts_at >= (p->>'day_start')::timestamptz AND a.starts_at < (p->>'day_end')::timestamptz
        GROUP BY a.provider_id) l), '{}') END,
    'schedule', coalesce((
      SELECT jsonb_object_agg(v.scope_id, v.schedule_version) FROM availability_versions v
      WHERE v.clinic_id = p_clinic_id AND (v.scope_id = p_clinic_id OR v.scope_id = ANY (v_candidates) OR v.scope_id = ANY (v_kind_scopes))), '{}'),
    'versions', coalesce((
      SELECT jsonb_object_agg(v.scope_id, v.version) FROM availability_versions v
      WHERE v.clinic_id = p_clinic_id AND (v.scope_id = p_clinic_id OR v.scope_id = ANY (v_candidates) OR v.scope_id = ANY (v_kind_scopes))), '{}'));
END $$;
--> statement-breakpoint
-- An appointment as the API shows it (0009), now with its series and resources.
CREATE OR REPLACE FUNCTION clinic_appointment_json(p_clinic_id uuid, p_id uuid) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (
    SELECT jsonb_build_object(
      'id', a.id, 'clinic_id', a.clinic_id, 'service_id', a.service_id, 'service_name', s.name,
      'provider_id', a.provider_id, 'provider_name', m.full_name,
      'start', clinic_iso_instant(a.starts_at), 'end', clinic_iso_instant(a.ends_at), 'status', a.status,
      'held_until', clinic_iso_instant(a.held_until), 'status_history', a.status_history,
      'patient', jsonb_build_object('name', a.patient_name, 'email', a.patient_email, 'phone_e164', a.patient_phone_e164),
      'notes', a.notes, 'buffer_before_min', a.buffer_before_min, 'buffer_after_min', a.buffer_after_min,
      'created_at', clinic_iso_instant(a.created_at), 'updated_at', clinic_iso_instant(a.updated_at),
      'canceled_at', clinic_iso_instant(a.canceled_at), 'rescheduled_at', clinic_iso_instant(a.rescheduled_at),
      'patient_user_id', a.patient_user_id, 'booked_by_user_id', a.booked_by_user_id, 'series_id', a.series_id, 'resources', a.resources)
    FROM appointments a
    JOIN services s ON s.clinic_id = a.clinic_id AND s.id = a.service_id
    JOIN clinic_members m ON m.clinic_id = a.clinic_id AND m.user_id = a.provider_id
    WHERE a.clinic_id = p_clinic_id AND s.clinic_id = p_clinic_id AND m.clinic_id = p_clinic_id AND a.id = p_id
  );
END $$;
--> statement-breakpoint
-- Write: one booking or hold (0010), now with group seats (capacity > 1: the seats of a slot share a
-- session key, counted under its lock), a series' occurrence (p.series_id), a shared provider's time
-- claimed in provider_busy before the appointment is written, and the resources the service needs.
-- Booking a hold claims its resources and its provider's time anew, without an end: a writer whose
-- clock had passed the hold's end may have taken them (then the booking is refused, never both).
CREATE OR REPLACE FUNCTION clinic_book_appointment(p_clinic_id uuid, p jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
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
    SELECT c.hold_minutes, c.no_show_limit INTO v_clinic FROM clinics c WHERE c.id = p_clinic_id;
    SELECT s.requires_confirmation, s.capacity INTO v_service FROM services s
    WHERE s.clinic_id = p_clinic_id AND s.id = (p->>'service_id')::uuid;
    v_status := CASE
      WHEN v_kind = 'hold' THEN 'held'
      WHEN v_patient_booking AND v_service.requires_confirmation THEN 'pending'
      ELSE 'booked' END;
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
          v_kept.session_key, NULL, v_now);
      EXCEPTION WHEN exclusion_violation THEN
        RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'SLOT_UNAVAILABLE',
          DETAIL = 'the provider was booked in another clinic after the hold ended; hold or book another time';
      END;
      IF jsonb_array_length(v_kept.resources) > 0 THEN
        BEGIN
          PERFORM clinic_claim_resources(p_clinic_id, v_hold_id,
            (SELECT jsonb_agg(jsonb_build_object('kind', e->>'kind', 'ids', jsonb_build_array(e->>'id'))) FROM jsonb_array_elements(v_kept.resources) AS e),
            v_kept.occupied_start, v_kept.occupied_end, v_kept.session_key, v_kept.resources, NULL, v_now);
        EXCEPTION WHEN exclusion_violation THEN
          RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'SLOT_UNAVAILABLE',
            DETAIL = 'a room or device of the hold was booked after the hold ended; hold or book another time';
        END;
      END IF;
    ELSE
      SELECT array_agg(x::uuid) INTO v_providers FROM jsonb_array_elements_text(p->'candidates') AS x;
      PERFORM clinic_clear_expired_holds(p_clinic_id, v_providers, (p->>'occupied_start')::timestamptz,
        (p->>'occupied_end')::timestamptz, v_patient, v_start, v_end, v_now);
      -- The exclusion constraints decide: the first candidate whose time is still free gets it;
      -- the patient's own overlapping appointment refuses every candidate.
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
        BEGIN
          v_id := gen_random_uuid();
          -- A provider of several clinics: their time in all of them first (refused when taken elsewhere).
          PERFORM clinic_claim_busy(p_clinic_id, v_id, v_provider, (p->>'occupied_start')::timestamptz,
            (p->>'occupied_end')::timestamptz, v_session, v_held_until, v_now);
          -- The resources the service needs, one of each kind (the free ones the read found, by name).
          v_taken := clinic_claim_resources(p_clinic_id, v_id, p->'resources', (p->>'occupied_start')::timestamptz,
            (p->>'occupied_end')::timestamptz, v_session, v_session_resources, v_held_until, v_now);
          INSERT INTO appointments (clinic_id, id, service_id, provider_id, starts_at, ends_at, buffer_before_min, buffer_after_min,
                                    occupied_start, occupied_end, status, held_until, status_history, patient_name, patient_email,
                                    patient_phone_e164, notes, booked_by_user_id, patient_user_id, session_key, series_id, resources)
          VALUES (p_clinic_id, v_id, (p->>'service_id')::uuid, v_provider, v_start, v_end,
                  (p->>'buffer_before_min')::integer, (p->>'buffer_after_min')::integer,
                  (p->>'occupied_start')::timestamptz, (p->>'occupied_end')::timestamptz, v_status, v_held_until,
                  jsonb_build_array(clinic_status_entry(v_status, v_now, v_user, NULL)),
                  p->>'patient_name', p->>'patient_email', p->>'patient_phone', p->>'notes', v_user, v_patient, v_session, v_series, v_taken);
          EXIT;
        EXCEPTION WHEN exclusion_violation OR deadlock_detected THEN
          GET STACKED DIAGNOSTICS v_constraint = CONSTRAINT_NAME;
          -- (On Citus the name carries the shard's suffix.)
      IF v_constraint LIKE 'appointments\_patient\_no\_overlap%' THEN
            RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'PATIENT_DOUBLE_BOOKED',
              DETAIL = 'the patient already has an appointment at an overlapping time in this clinic';
          END IF;
          IF v_constraint LIKE 'provider\_busy%' THEN
            v_elsewhere := true;
          END IF;
          v_id := NULL;
        END;
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

    IF v_status = 'booked' THEN
      PERFORM clinic_plan_reminders(p_clinic_id, v_id, v_start, v_now);
    ELSIF v_status = 'pending' THEN
      -- Not confirmed within 48 hours or by the start: canceled (a durable job, modules/booking/confirmation.ts).
      INSERT INTO outbox (clinic_id, job_id, queue, data, start_after)
      VALUES (p_clinic_id, gen_random_uuid(), 'confirmation-expiry',
              jsonb_build_object('clinicId', p_clinic_id, 'appointmentId', v_id), least(v_now + interval '48 hours', v_start));
    END IF;
    PERFORM clinic_store_key(p_clinic_id, v_user, p->'idem', v_id);
    v_view := clinic_appointment_json(p_clinic_id, v_id);
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
    END IF;
    IF v_status <> 'held' AND v_defer THEN
      NULL;
    ELSIF v_status <> 'held' THEN
      PERFORM clinic_record_event(p_clinic_id, 'appointment.booked', v_view);
    ELSIF v_entry IS NOT NULL THEN
      PERFORM clinic_plan_message(p_clinic_id, 'waitlist_offer', v_id, v_view || jsonb_build_object('waitlist_entry_id', v_entry));
      PERFORM clinic_record_event(p_clinic_id, 'waitlist.offered',
        jsonb_build_object('entry_id', v_entry, 'appointment', v_view, 'expires_at', clinic_iso_instant(v_held_until)));
    ELSIF v_message IS NOT NULL THEN
      PERFORM clinic_plan_message(p_clinic_id, v_message, v_id, v_view);
    END IF;
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
-- Write: one move (0009), now moving a group seat into the session at the new time, claiming a shared
-- provider's time and the resources at the new time, and releasing the former provider's time
-- (after the update, which the sync reads).
CREATE OR REPLACE FUNCTION clinic_reschedule_appointment(p_clinic_id uuid, p jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_user uuid := (p->>'user_id')::uuid;
  v_id uuid := (p->>'appointment_id')::uuid;
  v_provider uuid := (p->>'provider_id')::uuid;
  v_start timestamptz := (p->>'start')::timestamptz;
  v_replay uuid;
  v_current record;
  v_constraint text;
  v_view jsonb;
  v_msg text;
  v_detail text;
  v_hint text;
  v_capacity integer;
  v_session uuid;
  v_seats bigint;
  v_session_resources jsonb;
  v_taken jsonb;
  v_before jsonb;
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
    SELECT a.provider_id, a.starts_at, a.ends_at, a.revision, a.status, a.patient_user_id, clinic_requested_at(a.status_history) AS requested_at INTO v_current FROM appointments a
    WHERE a.clinic_id = p_clinic_id AND a.id = v_id FOR UPDATE;
    IF NOT FOUND OR v_current.revision <> (p->>'revision')::integer OR v_current.status NOT IN ('booked', 'pending') THEN
      RAISE EXCEPTION USING ERRCODE = 'CL002', MESSAGE = 'STALE';
    END IF;
    PERFORM clinic_check_schedule(p_clinic_id, p->'schedule');
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
        v_session, NULL, (p->>'now')::timestamptz);
      SELECT a.resources INTO v_before FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.id = v_id;
      v_taken := clinic_claim_resources(p_clinic_id, v_id, p->'resources', (p->>'occupied_start')::timestamptz,
        (p->>'occupied_end')::timestamptz, v_session, v_session_resources, NULL, (p->>'now')::timestamptz);
      UPDATE appointments a SET provider_id = v_provider, starts_at = v_start, resources = v_taken, ends_at = (p->>'end')::timestamptz,
        buffer_before_min = (p->>'buffer_before_min')::integer, buffer_after_min = (p->>'buffer_after_min')::integer,
        occupied_start = (p->>'occupied_start')::timestamptz, occupied_end = (p->>'occupied_end')::timestamptz,
        rescheduled_at = now(), revision = a.revision + 1, session_key = v_session,
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
    PERFORM clinic_drop_reminders(p_clinic_id, v_id);
    IF v_current.status = 'booked' THEN
      PERFORM clinic_plan_reminders(p_clinic_id, v_id, v_start, (p->>'now')::timestamptz);
    ELSE
      -- Pending: its confirmation now also expires by the new start.
      INSERT INTO outbox (clinic_id, job_id, queue, data, start_after)
      VALUES (p_clinic_id, gen_random_uuid(), 'confirmation-expiry',
              jsonb_build_object('clinicId', p_clinic_id, 'appointmentId', v_id), least(v_current.requested_at + interval '48 hours', v_start));
    END IF;
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
