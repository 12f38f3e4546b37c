-- §13: a pending appointment not confirmed within 48 hours of its request (clinic_requested_at),
-- or by its start, becomes canceled with reason confirmation_expired. Run by the
-- confirmation-expiry job (runConfirmationExpiry, modules/booking/confirmation.ts), which
-- clinic_book_appointment queues in the booking's own transaction (the jobs table) and
-- clinic_reschedule_appointment queues again for a move. Under the appointment's row lock; one no
-- longer pending, or not yet due, is left alone ({expired: false}), so a second run changes
-- nothing. Frees the time (clinic_sync_busy, clinic_bookings_changed) and records
-- appointment.status_changed with previous_status pending (§10, §13).
-- SET enable_seqscan off; a generic plan on PostgreSQL only (DO block).
CREATE OR REPLACE FUNCTION clinic_expire_confirmation(p_clinic_id uuid, p jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
 SET enable_seqscan TO 'off'
AS $function$
DECLARE
  v_id uuid := (p->>'id')::uuid;
  v_now timestamptz := (p->>'now')::timestamptz;
  v_current record;
  v_snapshot appointment_snapshot;
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
  v_snapshot := clinic_appointment_snapshot(p_clinic_id, v_id);
  PERFORM clinic_record_event(p_clinic_id, 'appointment.status_changed', jsonb_build_object('previous_status', 'pending'), v_snapshot);
  RETURN jsonb_build_object('expired', true);
END $function$;
--> statement-breakpoint
-- Planned once per connection (generic plan), on PostgreSQL only: Citus cannot route a generic plan.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
    ALTER FUNCTION clinic_expire_confirmation(uuid,jsonb) SET plan_cache_mode = force_generic_plan;
  END IF;
END $$;
