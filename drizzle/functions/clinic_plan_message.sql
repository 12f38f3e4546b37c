-- Plans a patient's message (§15 messages): its row in messages and its message-send job in the
-- job queue (jobs), in the transaction of the change it tells of, so it is sent at least once after the
-- commit and never blocks the booking (docs/messages.md). Nothing without a kind or an e-mail
-- address; one per (cause, kind), a repeat does nothing. Nothing while clinic.quiet_messages is on:
-- a series books (clinic_book_series) or cancels (cancelSeries, modules/series/cancel.ts) its
-- occurrences so, and then plans one message for all of them. Called by clinic_record_event (an
-- event's message, by clinic_event_message_kind), clinic_book_appointment (a waitlist offer, a
-- guest's confirm request), clinic_book_series and planMessages (modules/messages/plan.ts).
CREATE OR REPLACE FUNCTION clinic_plan_message(p_clinic_id uuid, p_kind text, p_cause uuid, p_data jsonb)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
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
    INSERT INTO jobs (clinic_id, job_id, queue, data)
    VALUES (p_clinic_id, gen_random_uuid(), 'message-send', jsonb_build_object('clinicId', p_clinic_id, 'messageId', v_id, 'attempt', 0));
  END IF;
END $function$;
