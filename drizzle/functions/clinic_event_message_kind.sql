-- Messages to patients (CONTRACT §15, docs/messages.md), waitlist entries (docs/waitlist.md) and
-- manage links (each appointment's manage_key).
-- Which message an event of an appointment sends its patient (null: none). The one place that says it.
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
