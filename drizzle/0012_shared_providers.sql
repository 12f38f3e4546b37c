CREATE TABLE "provider_busy" (
	"user_id" uuid NOT NULL,
	"clinic_id" uuid NOT NULL,
	"appointment_id" uuid NOT NULL,
	"occupied_start" timestamp (3) with time zone NOT NULL,
	"occupied_end" timestamp (3) with time zone NOT NULL,
	"session_key" uuid,
	"held_until" timestamp (3) with time zone,
	CONSTRAINT "provider_busy_pkey" PRIMARY KEY("user_id","clinic_id","appointment_id"),
	CONSTRAINT "provider_busy_range" CHECK ("provider_busy"."occupied_end" > "provider_busy"."occupied_start")
);
--> statement-breakpoint
CREATE TABLE "shared_providers" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"clinic_ids" uuid[] NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "shared_providers" ADD CONSTRAINT "shared_providers_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- One person, many clinics (CONTRACT §14, docs/shared-providers.md): a shared provider's occupying
-- appointments in all their clinics never overlap (seats of one group session aside).
ALTER TABLE "provider_busy" ADD CONSTRAINT "provider_busy_no_overlap" EXCLUDE USING gist (
  "user_id" WITH =,
  tstzrange("occupied_start", "occupied_end") WITH &&,
  (coalesce("session_key", "appointment_id")) WITH <>
);--> statement-breakpoint
-- Takes a shared provider's time for an appointment before its row is written (the booking and the
-- move call it first, so that every booking of one person waits for the others on this one row,
-- whichever clinic it is in, before it takes any lock of its clinic: no wait can go in a circle
-- between clinics). Nothing for a provider of one clinic. An overlap raises the exclusion
-- violation (provider_busy_no_overlap) to the caller.
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
    INSERT INTO availability_versions AS v (clinic_id, scope_id, version) VALUES (v_clinic, p_provider, 1)
    ON CONFLICT (clinic_id, scope_id) DO UPDATE SET version = v.version + 1;
  END LOOP;
END $$;
--> statement-breakpoint
-- A status change (0009), with provider_busy.
CREATE OR REPLACE FUNCTION clinic_set_status(p_clinic_id uuid, p jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_user uuid := (p->>'user_id')::uuid;
  v_id uuid := (p->>'id')::uuid;
  v_to text := p->>'status';
  v_now timestamptz := (p->>'now')::timestamptz;
  v_reason text := nullif(p->>'reason', '');
  v_current record;
  v_refusal text;
  v_canceled_at timestamptz;
  v_view jsonb;
  v_msg text;
  v_detail text;
  v_hint text;
BEGIN
  BEGIN
    SELECT a.status, a.provider_id, a.starts_at, a.ends_at, a.updated_at INTO v_current FROM appointments a
    WHERE a.clinic_id = p_clinic_id AND a.id = v_id FOR UPDATE;
    IF NOT FOUND THEN
      RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'NOT_FOUND', DETAIL = 'appointment not found';
    END IF;
    IF p->>'if_match' IS NOT NULL AND v_current.updated_at <> (p->>'if_match')::timestamptz THEN
      RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'STALE_UPDATED_AT',
        DETAIL = format('the appointment changed since %s (now %s: %s); reload it', p->>'if_match', clinic_iso_instant(v_current.updated_at), v_current.status),
        HINT = jsonb_build_object('current_updated_at', clinic_iso_instant(v_current.updated_at), 'current_status', v_current.status)::text;
    END IF;
    v_refusal := clinic_transition_refusal(v_current.status, v_to, (p->>'staff')::boolean, v_current.provider_id = v_user,
                                           v_current.starts_at, v_current.ends_at, v_now);
    IF v_refusal = 'FORBIDDEN' THEN
      RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'FORBIDDEN',
        DETAIL = CASE WHEN v_current.status = 'pending' THEN 'only staff confirm or decline a request'
                      ELSE 'only staff or the appointment''s provider change its status' END;
    ELSIF v_refusal IS NOT NULL THEN
      RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'INVALID_TRANSITION',
        DETAIL = CASE v_refusal
          WHEN 'TOO_EARLY_OR_LATE' THEN 'check-in is possible from 24 hours before the start until the end'
          WHEN 'NOT_STARTED' THEN 'a no-show can be recorded only once the start has passed'
          WHEN 'ENDED' THEN 'a late arrival can be recorded only before the end'
          ELSE format('an appointment that is %s cannot become %s', v_current.status, v_to) END,
        HINT = jsonb_build_object('current_status', v_current.status)::text;
    END IF;
    IF v_to = 'canceled' AND v_reason IS NULL THEN
      v_reason := 'declined';
    END IF;
    -- (Computed first: Citus refuses a non-immutable function inside a CASE of a distributed UPDATE.)
    v_canceled_at := CASE WHEN v_to = 'canceled' THEN now() END;
    UPDATE appointments a SET status = v_to,
      canceled_at = v_canceled_at,
      status_history = a.status_history || jsonb_build_array(clinic_status_entry(v_to, v_now, v_user, v_reason)),
      updated_at = greatest(now(), ((a.updated_at AT TIME ZONE 'UTC') + interval '1 millisecond') AT TIME ZONE 'UTC')
    WHERE a.clinic_id = p_clinic_id AND a.id = v_id;
    IF v_to = 'canceled' THEN
      PERFORM clinic_sync_busy(p_clinic_id, v_id, ARRAY[v_current.provider_id], v_now);
      PERFORM clinic_bookings_changed(p_clinic_id, ARRAY[v_current.provider_id]);
      PERFORM clinic_drop_reminders(p_clinic_id, v_id);
    ELSIF v_current.status = 'pending' THEN
      PERFORM clinic_plan_reminders(p_clinic_id, v_id, v_current.starts_at, v_now);
    END IF;
    v_view := clinic_appointment_json(p_clinic_id, v_id);
    PERFORM clinic_record_event(p_clinic_id, 'appointment.status_changed', v_view || jsonb_build_object('previous_status', v_current.status));
    RETURN jsonb_build_object('appointment', v_view);
  EXCEPTION
    WHEN SQLSTATE 'CL001' THEN
      GET STACKED DIAGNOSTICS v_msg = MESSAGE_TEXT, v_detail = PG_EXCEPTION_DETAIL, v_hint = PG_EXCEPTION_HINT;
      RETURN jsonb_build_object('error', v_msg, 'detail', v_detail, 'extra', coalesce(nullif(v_hint, '')::jsonb, '{}'::jsonb));
  END;
END $$;
--> statement-breakpoint
-- Releasing a hold (0009), with provider_busy.
CREATE OR REPLACE FUNCTION clinic_release_hold(p_clinic_id uuid, p jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_user uuid := (p->>'user_id')::uuid;
  v_staff boolean;
  v_provider uuid;
BEGIN
  v_staff := coalesce((p->>'admin')::boolean, false) OR EXISTS (
    SELECT 1 FROM clinic_members m
    WHERE m.clinic_id = p_clinic_id AND m.user_id = v_user AND m.clinic_role IN ('STAFF', 'CLINIC_ADMIN'));
  DELETE FROM appointments a
  WHERE a.clinic_id = p_clinic_id AND a.id = (p->>'id')::uuid AND a.status = 'held'
    AND (v_staff OR a.booked_by_user_id = v_user)
  RETURNING a.provider_id INTO v_provider;
  IF v_provider IS NULL THEN
    RETURN jsonb_build_object('error', 'NOT_FOUND', 'detail', 'hold not found: it is not yours, or was already released or booked', 'extra', '{}'::jsonb);
  END IF;
  PERFORM clinic_sync_busy(p_clinic_id, (p->>'id')::uuid, ARRAY[v_provider], now());
  PERFORM clinic_bookings_changed(p_clinic_id, ARRAY[v_provider]);
  RETURN jsonb_build_object('released', true);
END $$;
--> statement-breakpoint
-- The confirmation-expiry job (0009), with provider_busy.
CREATE OR REPLACE FUNCTION clinic_expire_confirmation(p_clinic_id uuid, p jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_id uuid := (p->>'id')::uuid;
  v_now timestamptz := (p->>'now')::timestamptz;
  v_current record;
  v_view jsonb;
BEGIN
  SELECT a.status, a.provider_id, clinic_requested_at(a.status_history) AS requested_at, a.starts_at INTO v_current
  FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.id = v_id FOR UPDATE;
  IF NOT FOUND OR v_current.status <> 'pending'
     OR (v_now < v_current.requested_at + interval '48 hours' AND v_now < v_current.starts_at) THEN
    RETURN jsonb_build_object('expired', false);
  END IF;
  UPDATE appointments a SET status = 'canceled', canceled_at = now(),
    status_history = a.status_history || jsonb_build_array(clinic_status_entry('canceled', v_now, NULL, 'confirmation_expired')),
    updated_at = greatest(now(), ((a.updated_at AT TIME ZONE 'UTC') + interval '1 millisecond') AT TIME ZONE 'UTC')
  WHERE a.clinic_id = p_clinic_id AND a.id = v_id;
  PERFORM clinic_sync_busy(p_clinic_id, v_id, ARRAY[v_current.provider_id], v_now);
  PERFORM clinic_bookings_changed(p_clinic_id, ARRAY[v_current.provider_id]);
  v_view := clinic_appointment_json(p_clinic_id, v_id);
  PERFORM clinic_record_event(p_clinic_id, 'appointment.status_changed', v_view || jsonb_build_object('previous_status', 'pending'));
  RETURN jsonb_build_object('expired', true);
END $$;
