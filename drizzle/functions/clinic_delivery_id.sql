-- The id H5 shows for an event's delivery to a webhook when its first attempt succeeded and was
-- recorded with its batch in webhook_sent (docs/events.md#delivery-history), the same on every
-- listing, and the id H6 takes for it: the event id's first 64 bits (its time and version, so the
-- event is found again by a range of the events' id index), the RFC 9562 variant, then 60 bits of
-- md5 of the webhook's and the event's ids (the same event's deliveries to two webhooks differ).
-- Copied to every node on Citus (it has no clinic argument).
CREATE OR REPLACE FUNCTION clinic_delivery_id(p_webhook_id uuid, p_event_id uuid)
 RETURNS uuid
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT (left(replace(p_event_id::text, '-', ''), 16) || '8' || left(md5(p_webhook_id::text || p_event_id::text), 15))::uuid
$function$;
