CREATE TABLE "messages" (
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"appointment_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"cause_id" uuid NOT NULL,
	"to" text NOT NULL,
	"subject" text,
	"data" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"next_attempt_at" timestamp (3) with time zone,
	"sent_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "messages_pkey" PRIMARY KEY("clinic_id","id"),
	CONSTRAINT "messages_cause_key" UNIQUE("clinic_id","cause_id","kind"),
	CONSTRAINT "messages_kind_check" CHECK ("messages"."kind" in ('booked', 'confirmed', 'rescheduled', 'canceled', 'reminder', 'waitlist_offer', 'guest_confirm')),
	CONSTRAINT "messages_status_check" CHECK ("messages"."status" in ('pending', 'sent', 'failed', 'skipped'))
);
--> statement-breakpoint
CREATE TABLE "waitlist_entries" (
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"service_id" uuid NOT NULL,
	"provider_id" uuid,
	"from_date" date NOT NULL,
	"to_date" date NOT NULL,
	"weekdays" smallint[] DEFAULT '{1,2,3,4,5,6,7}'::smallint[] NOT NULL,
	"earliest" time(0),
	"latest" time(0),
	"patient_user_id" uuid,
	"patient_name" text NOT NULL,
	"patient_email" text,
	"patient_phone_e164" text,
	"status" text DEFAULT 'waiting' NOT NULL,
	"offer_appointment_id" uuid,
	"offer_expires_at" timestamp (3) with time zone,
	"passed" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_by_user_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "waitlist_entries_pkey" PRIMARY KEY("clinic_id","id"),
	CONSTRAINT "waitlist_entries_status_check" CHECK ("waitlist_entries"."status" in ('waiting', 'offered', 'booked', 'expired', 'canceled')),
	CONSTRAINT "waitlist_entries_date_range" CHECK ("waitlist_entries"."to_date" >= "waitlist_entries"."from_date"),
	CONSTRAINT "waitlist_entries_time_window" CHECK ("waitlist_entries"."earliest" is null or "waitlist_entries"."latest" is null or "waitlist_entries"."latest" > "waitlist_entries"."earliest"),
	CONSTRAINT "waitlist_entries_weekdays" CHECK (cardinality("waitlist_entries"."weekdays") between 1 and 7 and 1 <= all("waitlist_entries"."weekdays") and 7 >= all("waitlist_entries"."weekdays")),
	CONSTRAINT "waitlist_entries_offer_consistent" CHECK ("waitlist_entries"."status" <> 'offered' or ("waitlist_entries"."offer_appointment_id" is not null and "waitlist_entries"."offer_expires_at" is not null)),
	CONSTRAINT "waitlist_entries_patient_name_length" CHECK (char_length("waitlist_entries"."patient_name") between 1 and 200)
);
--> statement-breakpoint
ALTER TABLE "appointments" ADD COLUMN "manage_key" uuid DEFAULT gen_random_uuid() NOT NULL;--> statement-breakpoint
ALTER TABLE "clinics" ADD COLUMN "locale" text DEFAULT 'en' NOT NULL;--> statement-breakpoint
ALTER TABLE "clinics" ADD COLUMN "offer_minutes" integer DEFAULT 30 NOT NULL;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "waitlist_entries" ADD CONSTRAINT "waitlist_entries_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "waitlist_entries" ADD CONSTRAINT "waitlist_entries_service_fk" FOREIGN KEY ("clinic_id","service_id") REFERENCES "public"."services"("clinic_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "waitlist_entries" ADD CONSTRAINT "waitlist_entries_provider_fk" FOREIGN KEY ("clinic_id","provider_id") REFERENCES "public"."clinic_members"("clinic_id","user_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "waitlist_entries" ADD CONSTRAINT "waitlist_entries_patient_user_fk" FOREIGN KEY ("patient_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "messages_clinic_created_idx" ON "messages" USING btree ("clinic_id","created_at","id");--> statement-breakpoint
CREATE INDEX "messages_clinic_appointment_idx" ON "messages" USING btree ("clinic_id","appointment_id");--> statement-breakpoint
CREATE INDEX "waitlist_entries_clinic_status_idx" ON "waitlist_entries" USING btree ("clinic_id","status","created_at","id");--> statement-breakpoint
CREATE INDEX "waitlist_entries_patient_idx" ON "waitlist_entries" USING btree ("patient_user_id","created_at");--> statement-breakpoint
ALTER TABLE "clinics" ADD CONSTRAINT "clinics_locale_check" CHECK ("clinics"."locale" in ('en', 'de'));--> statement-breakpoint
ALTER TABLE "clinics" ADD CONSTRAINT "clinics_offer_minutes_range" CHECK ("clinics"."offer_minutes" between 5 and 1440);--> statement-breakpoint
-- Messages to patients (CONTRACT §15, docs/messages.md), waitlist entries (docs/waitlist.md) and
-- manage links (each appointment's manage_key).
-- Which message an event of an appointment sends its patient (null: none). The one place that says it.
CREATE OR REPLACE FUNCTION clinic_event_message_kind(p_type text, p_data jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE p_type
    WHEN 'appointment.booked' THEN 'booked'
    WHEN 'appointment.rescheduled' THEN 'rescheduled'
    WHEN 'appointment.canceled' THEN 'canceled'
    WHEN 'appointment.reminder' THEN 'reminder'
    WHEN 'appointment.status_changed' THEN CASE
      WHEN p_data->>'status' = 'canceled' THEN 'canceled'
      WHEN p_data->>'status' = 'booked' AND p_data->>'previous_status' = 'pending' THEN 'confirmed'
    END
  END
$$;
--> statement-breakpoint
-- Plans one message of kind p_kind (nothing when null, or when the appointment has no e-mail):
-- the row, and its first attempt in the outbox (the message-send job, modules/messages). Once per
-- cause and kind: a second call for the same cause plans nothing.
CREATE OR REPLACE FUNCTION clinic_plan_message(p_clinic_id uuid, p_kind text, p_cause uuid, p_data jsonb) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_to text := nullif(btrim(p_data->'patient'->>'email'), '');
  v_id uuid;
BEGIN
  IF p_kind IS NULL OR v_to IS NULL THEN
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
-- Records an event (drizzle/0008), now with the message it sends the patient, if any.
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
  PERFORM clinic_plan_message(p_clinic_id, clinic_event_message_kind(p_type, p_data), v_event_id, p_data);
  INSERT INTO event_counters AS ec (clinic_id, last_seq) VALUES (p_clinic_id, 1)
  ON CONFLICT (clinic_id) DO UPDATE SET last_seq = ec.last_seq + 1
  RETURNING last_seq INTO v_seq;
  INSERT INTO events (clinic_id, seq, id, type, data) VALUES (p_clinic_id, v_seq, v_event_id, p_type, p_data);
END $$;
--> statement-breakpoint
-- Write: one booking or hold (drizzle/0009), now also a guest's hold (p.message = 'guest_confirm':
-- the confirm request is sent) and a waitlist offer (p.waitlist_entry_id, p.hold_minutes: the
-- entry is offered the hold, waitlist.offered is recorded and the offer sent); booking a hold that
-- was a waitlist offer books its entry.
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
    v_status := CASE
      WHEN v_kind = 'hold' THEN 'held'
      WHEN v_patient_booking AND (SELECT s.requires_confirmation FROM services s
                                  WHERE s.clinic_id = p_clinic_id AND s.id = (p->>'service_id')::uuid) THEN 'pending'
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
    ELSE
      SELECT array_agg(x::uuid) INTO v_providers FROM jsonb_array_elements_text(p->'candidates') AS x;
      PERFORM clinic_clear_expired_holds(p_clinic_id, v_providers, (p->>'occupied_start')::timestamptz,
        (p->>'occupied_end')::timestamptz, v_patient, v_start, v_end, v_now);
      -- The exclusion constraints decide: the first candidate whose time is still free gets it;
      -- the patient's own overlapping appointment refuses every candidate.
      FOREACH v_provider IN ARRAY coalesce(v_providers, '{}') LOOP
        BEGIN
          INSERT INTO appointments (clinic_id, service_id, provider_id, starts_at, ends_at, buffer_before_min, buffer_after_min,
                                    occupied_start, occupied_end, status, held_until, status_history, patient_name, patient_email,
                                    patient_phone_e164, notes, booked_by_user_id, patient_user_id)
          VALUES (p_clinic_id, (p->>'service_id')::uuid, v_provider, v_start, v_end,
                  (p->>'buffer_before_min')::integer, (p->>'buffer_after_min')::integer,
                  (p->>'occupied_start')::timestamptz, (p->>'occupied_end')::timestamptz, v_status, v_held_until,
                  jsonb_build_array(clinic_status_entry(v_status, v_now, v_user, NULL)),
                  p->>'patient_name', p->>'patient_email', p->>'patient_phone', p->>'notes', v_user, v_patient)
          RETURNING id INTO v_id;
          EXIT;
        EXCEPTION WHEN exclusion_violation OR deadlock_detected THEN
          GET STACKED DIAGNOSTICS v_constraint = CONSTRAINT_NAME;
          -- (On Citus the name carries the shard's suffix.)
      IF v_constraint LIKE 'appointments\_patient\_no\_overlap%' THEN
            RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'PATIENT_DOUBLE_BOOKED',
              DETAIL = 'the patient already has an appointment at an overlapping time in this clinic';
          END IF;
          v_id := NULL;
        END;
      END LOOP;
      IF v_id IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'SLOT_UNAVAILABLE', DETAIL = format('%s was just booked by someone else', p->>'start');
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
    IF v_hold_id IS NULL THEN
      PERFORM clinic_bookings_changed(p_clinic_id, ARRAY[v_provider]);
    END IF;
    IF v_status <> 'held' THEN
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

