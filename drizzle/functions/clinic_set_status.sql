-- T1 (§13): changes an appointment's status by the transition table (clinic_transition_refusal),
-- under the appointment's row lock. Called by changeAppointmentStatus (modules/booking/status.ts)
-- for T1. 404 NOT_FOUND for none in the clinic; If-Match (p.if_match) other than its updated_at is
-- 409 STALE_UPDATED_AT (§2; two desks at once: one wins); a change the table or the time does not
-- allow is 409 INVALID_TRANSITION, one the caller may not make 403 FORBIDDEN (confirm and decline
-- are STAFF's, the others STAFF's or the appointment's provider's). A decline (→ canceled, reason
-- declined) frees the time (clinic_sync_busy, clinic_bookings_changed), and its reminders are no
-- longer due; a confirmation (pending → booked) sets reminders_after: its reminders (§10) count from
-- now (the clinic's reminder sweep, clinic_due_reminders). Appends to status_history and records
-- appointment.status_changed with previous_status (§13). SET enable_seqscan off; a generic plan on
-- PostgreSQL only (DO block).
CREATE OR REPLACE FUNCTION clinic_set_status(p_clinic_id uuid, p jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET enable_seqscan TO 'off'
AS $function$
DECLARE
  v_answers jsonb;
  v_user uuid := (p->>'user_id')::uuid;
  v_id uuid := (p->>'id')::uuid;
  v_to text := p->>'status';
  v_now timestamptz := (p->>'now')::timestamptz;
  v_reason text := nullif(p->>'reason', '');
  v_current record;
  v_refusal text;
  v_canceled_at timestamptz;
  v_reminders_after timestamptz;
  v_view jsonb;
  v_snapshot appointment_snapshot;
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
    v_reminders_after := CASE WHEN v_current.status = 'pending' AND v_to = 'booked' THEN v_now END;
    UPDATE appointments a SET status = v_to,
      canceled_at = v_canceled_at,
      reminders_after = coalesce(v_reminders_after, a.reminders_after),
      status_history = a.status_history || jsonb_build_array(clinic_status_entry(v_to, v_now, v_user, v_reason)),
      updated_at = greatest(now(), ((a.updated_at AT TIME ZONE 'UTC') + interval '1 millisecond') AT TIME ZONE 'UTC')
    WHERE a.clinic_id = p_clinic_id AND a.id = v_id;
    IF v_to = 'canceled' THEN
      PERFORM clinic_sync_busy(p_clinic_id, v_id, ARRAY[v_current.provider_id], v_now);
      PERFORM clinic_bookings_changed(p_clinic_id, ARRAY[v_current.provider_id]);
    END IF;
    v_snapshot := clinic_appointment_snapshot(p_clinic_id, v_id);
    v_view := clinic_snapshot_json(p_clinic_id, v_snapshot);
    -- The caller's view (clinic_appointment_view) read before the event number is taken, not after
    -- it while the clinic's other writers wait (docs/performance.md#the-hot-clinic).
    SELECT a.answers INTO v_answers FROM appointments a WHERE a.clinic_id = p_clinic_id AND a.id = v_id;
    PERFORM clinic_record_event(p_clinic_id, 'appointment.status_changed', jsonb_build_object('previous_status', v_current.status), v_snapshot);
    RETURN jsonb_build_object('appointment', v_view || jsonb_build_object('answers', v_answers));
  EXCEPTION
    WHEN SQLSTATE 'CL001' THEN
      GET STACKED DIAGNOSTICS v_msg = MESSAGE_TEXT, v_detail = PG_EXCEPTION_DETAIL, v_hint = PG_EXCEPTION_HINT;
      RETURN jsonb_build_object('error', v_msg, 'detail', v_detail, 'extra', coalesce(nullif(v_hint, '')::jsonb, '{}'::jsonb));
  END;
END $function$;
--> statement-breakpoint
-- Planned once per connection (generic plan), on PostgreSQL only: Citus cannot route a generic plan.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
    ALTER FUNCTION clinic_set_status(uuid,jsonb) SET plan_cache_mode = force_generic_plan;
  END IF;
END $$;
