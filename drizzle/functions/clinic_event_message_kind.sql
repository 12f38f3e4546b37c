-- Which message an event of an appointment sends its patient (§15 messages: booking, confirmation,
-- reschedule, cancel, each reminder), or null for none: the one place that says it. A status change
-- sends one only for a cancel (a decline, an expired confirmation) and a confirmation (pending →
-- booked). Called by clinic_record_event (the SQL writers) and by planMessages
-- (modules/messages/plan.ts, the TypeScript writers), each handing it to clinic_plan_message.
-- The waitlist offer and the guest's confirm request are planned by the booking itself, not by an
-- event (docs/messages.md). IMMUTABLE: it reads nothing but its arguments.
CREATE OR REPLACE FUNCTION clinic_event_message_kind(p_type text, p_data jsonb)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
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
$function$;
