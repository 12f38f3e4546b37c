CREATE TABLE "appointment_series" (
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"service_id" uuid NOT NULL,
	"provider_id" uuid,
	"rrule" text NOT NULL,
	"starts_at" timestamp (3) with time zone NOT NULL,
	"mode" text NOT NULL,
	"patient_name" text NOT NULL,
	"patient_email" text,
	"patient_phone_e164" text,
	"patient_user_id" uuid,
	"notes" text,
	"skipped" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"booked_by_user_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "appointment_series_pkey" PRIMARY KEY("clinic_id","id"),
	CONSTRAINT "appointment_series_mode_check" CHECK ("appointment_series"."mode" in ('all_or_nothing', 'skip_unavailable'))
);
--> statement-breakpoint
ALTER TABLE "appointments" ADD COLUMN "session_key" uuid;--> statement-breakpoint
ALTER TABLE "appointments" ADD COLUMN "series_id" uuid;--> statement-breakpoint
ALTER TABLE "services" ADD COLUMN "capacity" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "appointment_series" ADD CONSTRAINT "appointment_series_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "appointment_series" ADD CONSTRAINT "appointment_series_service_fk" FOREIGN KEY ("clinic_id","service_id") REFERENCES "public"."services"("clinic_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_series_fk" FOREIGN KEY ("clinic_id","series_id") REFERENCES "public"."appointment_series"("clinic_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "appointments_series_idx" ON "appointments" USING btree ("clinic_id","series_id","starts_at") WHERE "appointments"."series_id" is not null;--> statement-breakpoint
ALTER TABLE "services" ADD CONSTRAINT "services_capacity_range" CHECK ("services"."capacity" between 1 and 200);--> statement-breakpoint
-- Series, group sessions (CONTRACT §14, docs/series.md, docs/group-sessions.md).
-- Seats of one group session share a session_key and may overlap each other; every other pair of
-- occupying appointments of one provider still may not. (coalesce(session_key, id) differs for
-- any two rows but seats of one session.)
ALTER TABLE "appointments" DROP CONSTRAINT "appointments_no_double_booking";--> statement-breakpoint
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_no_double_booking" EXCLUDE USING gist (
  "clinic_id" WITH =,
  "provider_id" WITH =,
  tstzrange("occupied_start", "occupied_end") WITH &&,
  (coalesce("session_key", "id")) WITH <>
) WHERE ("status" <> 'canceled');--> statement-breakpoint
-- A patient's message (0010); none while a series books or cancels its occurrences.
CREATE OR REPLACE FUNCTION clinic_plan_message(p_clinic_id uuid, p_kind text, p_cause uuid, p_data jsonb) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_to text := nullif(btrim(p_data->'patient'->>'email'), '');
  v_id uuid;
BEGIN
  -- A series plans one message for all its occurrences (clinic_book_series, modules/series): while
  -- it books them, the transaction says so.
  IF p_kind IS NULL OR v_to IS NULL OR current_setting('clinic.quiet_messages', true) = 'on' THEN
    RETURN;
  END IF;
  INSERT INTO messages (clinic_id, appointment_id, kind, cause_id, "to", data, next_attempt_at)
  VALUES (p_clinic_id, (p_data->>'id')::uuid, p_kind, p_cause, v_to, p_data, now())
  ON CONFLICT (clinic_id, cause_id, kind) DO NOTHING
  RETURNING id INTO v_id;
  IF v_id IS NOT NULL THEN
    INSERT INTO outbox (clinic_id, job_id, queue, data)
    VALUES (p_clinic_id, gen_random_uuid(), 'message-send', jsonb_build_object('clinicId', p_clinic_id, 'messageId', v_id, 'attempt', 0));
  END IF;
END $$;
--> statement-breakpoint
-- A series as the API shows it (modules/series: seriesOutput): its occurrences by start.
CREATE OR REPLACE FUNCTION clinic_series_json(p_clinic_id uuid, p_id uuid) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_series jsonb;
  v_occurrences jsonb := '[]'::jsonb;
  v_id uuid;
BEGIN
  SELECT jsonb_build_object(
      'id', r.id, 'clinic_id', r.clinic_id, 'service_id', r.service_id, 'provider_id', r.provider_id, 'rrule', r.rrule,
      'start', clinic_iso_instant(r.starts_at), 'mode', r.mode,
      'patient', jsonb_build_object('name', r.patient_name, 'email', r.patient_email, 'phone_e164', r.patient_phone_e164),
      'patient_user_id', r.patient_user_id, 'notes', r.notes, 'skipped', r.skipped, 'created_at', clinic_iso_instant(r.created_at))
    INTO v_series
  FROM appointment_series r WHERE r.clinic_id = p_clinic_id AND r.id = p_id;
  IF v_series IS NULL THEN
    RETURN NULL;
  END IF;
  -- One call per occurrence in a loop: on Citus a function that reads cannot run inside a query
  -- of a shard.
  FOR v_id IN SELECT a.id FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.series_id = p_id ORDER BY a.starts_at, a.id LOOP
    v_occurrences := v_occurrences || jsonb_build_array(clinic_appointment_json(p_clinic_id, v_id));
  END LOOP;
  RETURN v_series || jsonb_build_object('occurrences', v_occurrences);
END $$;
--> statement-breakpoint
-- Write: a series (R1), all in one transaction and one statement. p: user_id, idem (the key's
-- stored id is the series'), or refuse; series: service_id, provider_id, rrule, start, mode,
-- patient_name, patient_email, patient_phone, patient_user_id, notes; occurrences: what
-- clinic_book_appointment takes for each start the read found free (start, end, occupied range,
-- buffers, candidates in rank order, schedule); skipped: [{start, reasons}] the read refused
-- (skip_unavailable); now. Each occurrence is booked by clinic_book_appointment (its own checks,
-- events and reminders); all_or_nothing: any refusal refuses the series (409 SLOT_UNAVAILABLE
-- with conflicts), skip_unavailable: a refused one joins skipped. One message tells the patient
-- of the whole series.
CREATE OR REPLACE FUNCTION clinic_book_series(p_clinic_id uuid, p jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
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
      'patient_user_id', p->'series'->>'patient_user_id', 'now', p->>'now', 'series_id', v_id, 'defer_changes', true);
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
    FOR v_occurrence_id IN SELECT a.id FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.series_id = v_id ORDER BY a.starts_at, a.id LOOP
      v_occurrence_ids := v_occurrence_ids || v_occurrence_id;
    END LOOP;
    FOREACH v_occurrence_id IN ARRAY v_occurrence_ids LOOP
      PERFORM clinic_record_event(p_clinic_id, 'appointment.booked', clinic_appointment_json(p_clinic_id, v_occurrence_id));
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
END $$;
