-- The one planner of a change's webhook deliveries (§10: at least once, for every event and every
-- active webhook that matches it; docs/events.md#webhooks): for each recorded event and each active
-- webhook of the clinic subscribed to its type ("*" or the type), a delivery and its first attempt
-- in the job queue (the webhook-delivery job, modules/webhooks), in the transaction that records the
-- event, so a delivery exists exactly when its event does. A delivery keeps no copy of its event:
-- it is rendered from the event's row when it is sent (eventJson, docs/events.md#one-rendering).
-- Called by clinic_record_event (the SQL writers) and by planDeliveries
-- (modules/webhooks/deliver.ts, the TypeScript writers), once for all their events.
CREATE OR REPLACE FUNCTION clinic_plan_deliveries(p_clinic_id uuid, p_event_ids uuid[], p_types text[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_planned record;
  v_job uuid;
  v_delivery uuid;
BEGIN
  FOR v_planned IN
    SELECT e.event_id, e.type, w.id AS webhook_id
    FROM unnest(p_event_ids, p_types) WITH ORDINALITY AS e(event_id, type, n)
    JOIN webhooks w
      ON w.clinic_id = p_clinic_id AND w.active AND ('*' = ANY (w.event_types) OR e.type = ANY (w.event_types))
    ORDER BY e.n, w.id
  LOOP
    v_job := gen_random_uuid();
    INSERT INTO webhook_deliveries (clinic_id, webhook_id, event_id, event_type, data, next_attempt_at, job_id)
    VALUES (p_clinic_id, v_planned.webhook_id, v_planned.event_id, v_planned.type, NULL, now(), v_job)
    RETURNING id INTO v_delivery;
    INSERT INTO jobs (clinic_id, job_id, queue, data)
    VALUES (p_clinic_id, v_job, 'webhook-delivery',
            jsonb_build_object('clinicId', p_clinic_id, 'deliveryId', v_delivery, 'attempt', 0));
  END LOOP;
END $function$;
