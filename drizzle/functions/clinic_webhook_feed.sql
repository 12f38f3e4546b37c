-- A webhook's reading of its clinic's event feed (docs/events.md#webhooks): one statement per
-- batch, off the booking's transaction. A booking writes nothing for webhooks; each webhook has its
-- own cursor (webhooks.feed_seq) in the gap-free feed and one worker at a time reads after it, by
-- lease (feed_lease_id, feed_leased_until), so first attempts are made in feed order.
--
-- 1. With p_lease: records the outcomes of that lease's attempts (p_done: {to, deliveries: [{id,
--    event_id, seq, event_type, status, attempts, code, error, job_id, at}]}) — H5's history: the
--    first attempts that succeeded as one webhook_sent row of their seqs and codes
--    (docs/events.md#delivery-history), every other event a webhook_deliveries row — and, for a
--    failed attempt with a retry left (or an event
--    not attempted because the receiver did not answer the one before: attempts 0), its next
--    attempt as a webhook-delivery job at `at` — and moves the cursor to `to`; only while the lease is still
--    this one (a claim taken after it ran out owns the events now: this one's outcomes are dropped,
--    and its events are sent again — at least once). With p_done.pace_ms (the batch was short and no
--    next one is claimed): the feed stays leased, by no lease id, for that long — the webhook's next
--    batch waits for it, so events that trickle in go out several to a batch (WEBHOOK_BATCH_PACE_MS).
-- 2. With p_limit > 0: claims the next batch of an active webhook not leased by another: the events
--    after the cursor, up to the counter's last_seq read first (every event up to it is committed:
--    the counter numbers in commit order), of the subscribed types, at most p_limit in seq order.
--    None: the cursor moves past the events read (none matched) and no lease is taken.
--
-- Answers {recorded, lease, to, url, secret, include_answers, events: [{id, seq, type,
-- occurred_at, data}]} (lease and the rest only with events). Called by the feed workers
-- (modules/webhooks/feed.ts); distributed by its clinic on Citus, so one statement on one node.
CREATE OR REPLACE FUNCTION clinic_webhook_feed(p_clinic_id uuid, p_webhook_id uuid, p_lease uuid, p_done jsonb, p_limit integer, p_lease_s integer)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_recorded boolean := false;
  v_hook webhooks%ROWTYPE;
  v_last bigint;
  v_to bigint;
  v_count integer;
  v_max bigint;
  v_events jsonb;
  v_lease uuid;
  -- A value, not now() in the UPDATE's CASE: Citus refuses that in a distributed UPDATE.
  v_paced_until timestamptz := CASE WHEN (p_done->>'pace_ms')::integer > 0
    THEN now() + make_interval(secs => (p_done->>'pace_ms')::integer / 1000.0) END;
BEGIN
  IF p_lease IS NOT NULL THEN
    PERFORM 1 FROM webhooks
    WHERE clinic_id = p_clinic_id AND id = p_webhook_id AND feed_lease_id = p_lease
    FOR UPDATE;
    IF FOUND THEN
      INSERT INTO webhook_sent (clinic_id, webhook_id, first_seq, seqs, codes)
      SELECT p_clinic_id, p_webhook_id, min(d.seq), array_agg(d.seq ORDER BY d.seq), array_agg(d.code::smallint ORDER BY d.seq)
      FROM jsonb_to_recordset(p_done->'deliveries') AS d(seq bigint, status text, attempts integer, code integer)
      WHERE d.status = 'succeeded' AND d.attempts = 1
      HAVING count(*) > 0;
      INSERT INTO webhook_deliveries (clinic_id, id, webhook_id, event_id, event_type, status, attempts,
                                      last_status_code, last_error, next_attempt_at, job_id)
      SELECT p_clinic_id, d.id, p_webhook_id, d.event_id, d.event_type, d.status, d.attempts, d.code, d.error, d.at, d.job_id
      FROM jsonb_to_recordset(p_done->'deliveries')
        AS d(id uuid, event_id uuid, event_type text, status text, attempts integer, code integer, error text,
             job_id uuid, at timestamptz)
      WHERE NOT (d.status = 'succeeded' AND d.attempts = 1)
      ON CONFLICT (clinic_id, webhook_id, event_id) DO NOTHING;
      INSERT INTO jobs (clinic_id, job_id, queue, data, run_at)
      SELECT p_clinic_id, d.job_id, 'webhook-delivery',
             jsonb_build_object('clinicId', p_clinic_id, 'deliveryId', d.id, 'attempt', d.attempts), d.at
      FROM jsonb_to_recordset(p_done->'deliveries') AS d(id uuid, attempts integer, job_id uuid, at timestamptz)
      WHERE d.job_id IS NOT NULL;
      UPDATE webhooks
      SET feed_seq = greatest(feed_seq, (p_done->>'to')::bigint),
          feed_lease_id = NULL, feed_leased_until = v_paced_until, feed_claimed_seq = NULL
      WHERE clinic_id = p_clinic_id AND id = p_webhook_id;
      v_recorded := true;
    END IF;
  END IF;
  IF p_limit <= 0 THEN
    RETURN jsonb_build_object('recorded', v_recorded);
  END IF;

  SELECT * INTO v_hook FROM webhooks
  WHERE clinic_id = p_clinic_id AND id = p_webhook_id AND active
    AND (feed_leased_until IS NULL OR feed_leased_until <= now())
  FOR UPDATE SKIP LOCKED;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('recorded', v_recorded);
  END IF;
  SELECT last_seq INTO v_last FROM event_counters WHERE clinic_id = p_clinic_id;
  IF v_last IS NULL OR v_last <= v_hook.feed_seq THEN
    RETURN jsonb_build_object('recorded', v_recorded);
  END IF;
  SELECT coalesce(jsonb_agg(jsonb_build_object('id', e.id, 'seq', e.seq, 'type', e.type,
                                               'occurred_at', clinic_iso_instant(e.occurred_at),
                                               'data', clinic_event_data(e.clinic_id, e.data, e.appointment))
                            ORDER BY e.seq), '[]'::jsonb),
         count(*), max(e.seq)
  INTO v_events, v_count, v_max
  FROM (
    SELECT * FROM events e
    WHERE e.clinic_id = p_clinic_id AND e.seq > v_hook.feed_seq AND e.seq <= v_last
      AND ('*' = ANY (v_hook.event_types) OR e.type = ANY (v_hook.event_types))
    ORDER BY e.seq
    LIMIT p_limit) e;
  v_to := CASE WHEN v_count >= p_limit THEN v_max ELSE v_last END;
  IF v_count = 0 THEN
    UPDATE webhooks SET feed_seq = v_to WHERE clinic_id = p_clinic_id AND id = p_webhook_id;
    RETURN jsonb_build_object('recorded', v_recorded);
  END IF;
  v_lease := gen_random_uuid();
  UPDATE webhooks
  SET feed_lease_id = v_lease, feed_leased_until = now() + make_interval(secs => p_lease_s), feed_claimed_seq = v_to
  WHERE clinic_id = p_clinic_id AND id = p_webhook_id;
  RETURN jsonb_build_object('recorded', v_recorded, 'lease', v_lease, 'to', v_to, 'url', v_hook.url,
                            'secret', v_hook.secret, 'include_answers', v_hook.include_answers, 'events', v_events);
END $function$;
