-- §10 reminders, derived from the appointments (docs/events.md#reminders): one page of the clinic's
-- reminder sweep (runReminderSweep, modules/booking/reminders.ts). A reminder is due for each
-- offset of the clinic (reminder_offsets_min) and each `booked` appointment at start − offset, when
-- that moment is in [p.from, p.now] and after the appointment's reminders_after — the moment it
-- became booked at its current start (booking, confirmation, move): none whose moment had passed
-- then; held, pending and canceled appointments have none; a moved one is due at its new start.
-- Nothing is written for a reminder before it is due: the candidates come from
-- appointments_clinic_start_idx, one range per offset, oldest moment first, at most p.limit, less
-- those already sent (appointment_reminders, by its key). The candidates are locked FOR SHARE SKIP
-- LOCKED in one statement, each with its status and start re-checked, so that a cancel, move or status change of it either
-- committed first (then it is not due) or waits for this transaction and records its event after
-- the reminder's; one locked by such a change now is left for the next page or sweep. Those are then
-- marked sent together (INSERT … ON CONFLICT DO NOTHING on the key: a concurrent or repeated sweep
-- marks and records only what it inserted — once each), their data read together
-- (clinic_appointments_json: the appointment as the API shows it, plus offset_min), and last, when
-- the clinic's event counter is taken, their appointment.reminder events recorded together by
-- clinic_record_events (one counter bump, one insert; each with the patient's e-mail): a constant
-- number of statements per page, not per reminder. One statement of
-- the sweep, delegated to the clinic's node on Citus. Answers {offsets, seen, sent, last}: the
-- clinic's offsets (none: the sweep ends), the candidates looked at (p.limit of them: there may be
-- more), how many were recorded, the last one's moment (where the next page starts) and, after a
-- page that saw everything due, the moment the next reminder falls due (null: none booked yet).
CREATE OR REPLACE FUNCTION clinic_due_reminders(p_clinic_id uuid, p jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_from timestamptz := (p->>'from')::timestamptz;
  v_now timestamptz := (p->>'now')::timestamptz;
  v_limit integer := (p->>'limit')::integer;
  v_due_ids uuid[];
  v_due_offsets integer[];
  v_due_starts timestamptz[];
  v_locked_ids uuid[];
  v_locked_starts timestamptz[];
  v_seen integer := 0;
  v_last timestamptz;
  v_next timestamptz;
  v_row record;
  v_events jsonb[];
  v_ids uuid[] := '{}';
  v_offsets integer[] := '{}';
  v_count integer;
BEGIN
  SELECT cardinality(c.reminder_offsets_min) INTO v_count FROM clinics c WHERE c.id = p_clinic_id;
  IF coalesce(v_count, 0) = 0 THEN
    RETURN jsonb_build_object('offsets', 0, 'seen', 0, 'sent', 0, 'last', NULL);
  END IF;
  -- The candidates, oldest moment first (one statement).
  SELECT count(*)::integer, max(d.at),
         coalesce(array_agg(d.id ORDER BY d.at, d.id), '{}'), coalesce(array_agg(d.offset_min ORDER BY d.at, d.id), '{}'),
         coalesce(array_agg(d.starts_at ORDER BY d.at, d.id), '{}')
    INTO v_seen, v_last, v_due_ids, v_due_offsets, v_due_starts
  FROM (
    SELECT a.id, o.offset_min, a.starts_at, a.starts_at - make_interval(mins => o.offset_min) AS at
    FROM (SELECT DISTINCT u.offset_min FROM clinics c, unnest(c.reminder_offsets_min) AS u(offset_min)
          WHERE c.id = p_clinic_id) o
    CROSS JOIN LATERAL (
      SELECT a.id, a.starts_at FROM appointments a
      WHERE a.clinic_id = p_clinic_id
        AND a.starts_at >= v_from + make_interval(mins => o.offset_min)
        AND a.starts_at <= v_now + make_interval(mins => o.offset_min)
        AND a.status = 'booked'
        AND a.reminders_after < a.starts_at - make_interval(mins => o.offset_min)
        AND NOT EXISTS (SELECT 1 FROM appointment_reminders r
                        WHERE r.clinic_id = p_clinic_id AND r.appointment_id = a.id
                          AND r.offset_min = o.offset_min AND r.starts_at = a.starts_at)
      ORDER BY a.starts_at, a.id
      LIMIT v_limit) a
    ORDER BY at, a.id
    LIMIT v_limit) d;
  -- All of them locked in one statement, each still booked at the start it was found at.
  SELECT coalesce(array_agg(a.id), '{}'), coalesce(array_agg(a.starts_at), '{}') INTO v_locked_ids, v_locked_starts
  FROM (SELECT a.id, a.starts_at FROM appointments a
        WHERE a.clinic_id = p_clinic_id AND a.id = ANY (v_due_ids) AND a.status = 'booked'
        FOR SHARE SKIP LOCKED) a;
  -- Each still booked at its start marked sent (one statement: INSERT … ON CONFLICT DO NOTHING on the
  -- key, so a concurrent or repeated sweep marks only what it inserted); only those are recorded.
  FOR v_row IN
    INSERT INTO appointment_reminders AS r (clinic_id, appointment_id, offset_min, starts_at)
    SELECT p_clinic_id, d.id, d.offset_min, d.starts_at
    FROM unnest(v_due_ids, v_due_offsets, v_due_starts) AS d(id, offset_min, starts_at)
    JOIN unnest(v_locked_ids, v_locked_starts) AS l(id, starts_at) ON l.id = d.id AND l.starts_at = d.starts_at
    ON CONFLICT DO NOTHING
    RETURNING r.appointment_id, r.offset_min
  LOOP
    v_ids := v_ids || v_row.appointment_id;
    v_offsets := v_offsets || v_row.offset_min;
  END LOOP;
  -- Their events' data in the candidates' order (one statement), then the events last, numbered
  -- together: the counter's lock, which the clinic's other writers wait for, is held only from
  -- there to the commit.
  IF cardinality(v_ids) > 0 THEN
    SELECT array_agg(j.data || jsonb_build_object('offset_min', d.offset_min) ORDER BY d.n) INTO v_events
    FROM unnest(v_due_ids, v_due_offsets) WITH ORDINALITY AS d(id, offset_min, n)
    JOIN unnest(v_ids, v_offsets) AS k(id, offset_min) ON k.id = d.id AND k.offset_min = d.offset_min
    JOIN clinic_appointments_json(p_clinic_id, v_ids) j ON j.id = d.id;
    PERFORM clinic_record_events(p_clinic_id, 'appointment.reminder', v_events);
  END IF;
  -- A page that saw all that is due (fewer than p.limit): the moment the next reminder falls due, so
  -- that the sweep runs again then rather than after its whole interval (one index probe per offset).
  IF v_seen < v_limit THEN
    SELECT min(n.at) INTO v_next FROM (
      SELECT (SELECT a.starts_at FROM appointments a
              WHERE a.clinic_id = p_clinic_id AND a.starts_at > v_now + make_interval(mins => o.offset_min)
                AND a.status = 'booked' AND a.reminders_after < a.starts_at - make_interval(mins => o.offset_min)
              ORDER BY a.starts_at LIMIT 1) - make_interval(mins => o.offset_min) AS at
      FROM (SELECT DISTINCT u.offset_min FROM clinics c, unnest(c.reminder_offsets_min) AS u(offset_min)
            WHERE c.id = p_clinic_id) o) n;
  END IF;
  RETURN jsonb_build_object('offsets', v_count, 'seen', v_seen, 'sent', cardinality(v_ids), 'last', clinic_iso_instant(v_last),
                            'next', clinic_iso_instant(v_next));
END $function$;
