-- Removes one patient's personal values from a clinic (§21, docs/patient-data.md), keeping times,
-- services, providers and statuses: the appointments, series and waitlist entries named in p (their
-- names become p.pseudonym; e-mail, phone, notes, answers, the patient's user and guest address go;
-- their manage links die), the messages sent about them or to the patient's addresses (recipient →
-- the pseudonym, data scrubbed, a pending one skipped), and every stored JSON copy — events,
-- webhook delivery bodies, idempotency records, audit details — found by searching the clinic's rows
-- for the values (clinic_scrub_json), plus the free-text errors of messages, deliveries and jobs.
-- What counts as personal data, and where it is copied, is listed once in
-- packages/api/src/modules/patientData/personalData.ts; patientData.schema.test.ts fails when a
-- column outside that list holds a planted value. Called by clinic_erase_patient (X2) and by the
-- retention job (modules/patientData/retention.ts), inside their transactions. p: appointment_ids,
-- series_ids, waitlist_ids, user_ids, emails, phones (the patient's addresses, whose messages go
-- too), values (lower-cased: every e-mail, phone, note and answer text to remove), names (lower-cased,
-- replaced where a document is about these rows), pseudonym, now, manage_key (the appointments'
-- new, unknown manage key), search (default true: also every copy that holds one of the values
-- anywhere; false, for retention: only the copies about these rows, since the patient may have
-- newer appointments whose copies hold the same address). Answers the counts.
CREATE OR REPLACE FUNCTION clinic_scrub_patient(p_clinic_id uuid, p jsonb)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_ids uuid[] := ARRAY(SELECT jsonb_array_elements_text(coalesce(p->'appointment_ids', '[]'::jsonb))::uuid);
  v_series uuid[] := ARRAY(SELECT jsonb_array_elements_text(coalesce(p->'series_ids', '[]'::jsonb))::uuid);
  v_entries uuid[] := ARRAY(SELECT jsonb_array_elements_text(coalesce(p->'waitlist_ids', '[]'::jsonb))::uuid);
  v_users uuid[] := ARRAY(SELECT jsonb_array_elements_text(coalesce(p->'user_ids', '[]'::jsonb))::uuid);
  v_emails text[] := ARRAY(SELECT lower(x) FROM jsonb_array_elements_text(coalesce(p->'emails', '[]'::jsonb)) AS x);
  v_removed text[] := ARRAY(SELECT DISTINCT lower(x) FROM jsonb_array_elements_text(coalesce(p->'values', '[]'::jsonb)) AS x WHERE x <> '');
  v_names text[] := ARRAY(SELECT DISTINCT lower(x) FROM jsonb_array_elements_text(coalesce(p->'names', '[]'::jsonb)) AS x WHERE x <> '');
  v_pseudonym text := p->>'pseudonym';
  v_now timestamptz := (p->>'now')::timestamptz;
  v_key uuid := (p->>'manage_key')::uuid;
  v_ids_text text[];
  v_series_text text[];
  v_entries_text text[];
  v_json_patterns text[];
  v_text_patterns text[];
  v_event_ids uuid[];
  v_event_seqs bigint[];
  v_event_data jsonb[];
  v_message_ids uuid[];
  v_appointments bigint := 0;
  v_messages bigint := 0;
  v_waitlist bigint := 0;
  v_events bigint := 0;
  v_deliveries bigint := 0;
  v_audit bigint := 0;
  v_search boolean := coalesce((p->>'search')::boolean, true);
BEGIN
  v_ids_text := v_ids::text[];
  v_series_text := v_series::text[];
  v_entries_text := v_entries::text[];
  -- How the values appear inside stored JSON text (escaped as JSON strings) and in plain text, as
  -- ILIKE patterns: a row is scrubbed only when its text holds one of them (or it is about the rows).
  SELECT coalesce(array_agg('%' || replace(replace(replace(substr(to_jsonb(v)::text, 2, length(to_jsonb(v)::text) - 2),
           '\', '\\'), '%', '\%'), '_', '\_') || '%'), '{}'),
         coalesce(array_agg('%' || replace(replace(replace(v, '\', '\\'), '%', '\%'), '_', '\_') || '%'), '{}')
    INTO v_json_patterns, v_text_patterns
  FROM unnest(v_removed || v_names) AS v;
  IF NOT v_search THEN
    v_json_patterns := '{}';
    v_text_patterns := '{}';
    v_emails := '{}';
  END IF;

  UPDATE appointments a SET patient_name = v_pseudonym, patient_email = NULL, patient_phone_e164 = NULL, notes = NULL,
    answers = '[]'::jsonb, patient_user_id = NULL, guest_address_hash = NULL, manage_key = v_key,
    updated_at = greatest(v_now, ((a.updated_at AT TIME ZONE 'UTC') + interval '1 millisecond') AT TIME ZONE 'UTC')
  WHERE a.clinic_id = p_clinic_id AND a.id = ANY (v_ids);
  GET DIAGNOSTICS v_appointments = ROW_COUNT;

  UPDATE appointment_series r SET patient_name = v_pseudonym, patient_email = NULL, patient_phone_e164 = NULL,
    notes = NULL, patient_user_id = NULL
  WHERE r.clinic_id = p_clinic_id AND r.id = ANY (v_series);

  UPDATE waitlist_entries w SET patient_name = v_pseudonym, patient_email = NULL, patient_phone_e164 = NULL,
    patient_user_id = NULL, created_by_user_id = CASE WHEN w.created_by_user_id = ANY (v_users) THEN NULL ELSE w.created_by_user_id END,
    status = CASE WHEN w.status IN ('waiting', 'offered') THEN 'canceled' ELSE w.status END,
    updated_at = greatest(v_now, ((w.updated_at AT TIME ZONE 'UTC') + interval '1 millisecond') AT TIME ZONE 'UTC')
  WHERE w.clinic_id = p_clinic_id AND w.id = ANY (v_entries);
  GET DIAGNOSTICS v_waitlist = ROW_COUNT;

  DELETE FROM clinic_patients cp WHERE cp.clinic_id = p_clinic_id AND cp.user_id = ANY (v_users);

  -- Messages about the rows or to the patient's addresses: recipient and data gone; not sent any more.
  -- (Without the search, only the rows' own messages: a statement the indexes serve.)
  IF v_search THEN
    v_message_ids := ARRAY(SELECT m.id FROM messages m WHERE m.clinic_id = p_clinic_id
      AND (m.appointment_id = ANY (v_ids) OR m.cause_id = ANY (v_series) OR m.cause_id = ANY (v_entries)
           OR lower(m."to") = ANY (v_emails) OR m.data::text ILIKE ANY (v_json_patterns)));
  ELSE
    v_message_ids := ARRAY(SELECT m.id FROM messages m WHERE m.clinic_id = p_clinic_id
      AND (m.appointment_id = ANY (v_ids) OR m.cause_id = ANY (v_series) OR m.cause_id = ANY (v_entries)));
  END IF;
  UPDATE messages m SET "to" = v_pseudonym, subject = clinic_scrub_text(m.subject, v_removed || v_names, v_pseudonym),
    data = clinic_scrub_json(m.data, v_removed, v_names, v_pseudonym, true),
    last_error = clinic_scrub_text(m.last_error, v_removed || v_names, v_pseudonym),
    status = CASE WHEN m.status = 'pending' THEN 'skipped' ELSE m.status END,
    next_attempt_at = CASE WHEN m.status = 'pending' THEN NULL ELSE m.next_attempt_at END
  WHERE m.clinic_id = p_clinic_id AND m.id = ANY (v_message_ids);
  GET DIAGNOSTICS v_messages = ROW_COUNT;

  -- Events about the rows, or holding one of the values anywhere, each as E1 shows it
  -- (clinic_event_data): an appointment event kept as its snapshot is scrubbed into JSON, and its
  -- snapshot goes (docs/events.md#what-an-event-stores). Found and scrubbed in one statement, then
  -- written by their seqs (on Citus an UPDATE's SET may call no function that is not IMMUTABLE
  -- inside a CASE, which the rendering is; and Citus 13 crashed on a SET of `array[position of
  -- the row's seq]`, so the pairs are joined as a table).
  SELECT coalesce(array_agg(d.seq ORDER BY d.seq), '{}'),
         coalesce(array_agg(clinic_scrub_json(d.data, v_removed, v_names, v_pseudonym, d.about) ORDER BY d.seq), '{}')
    INTO v_event_seqs, v_event_data
  FROM (SELECT x.seq, x.data, x.data->>'id' = ANY (v_ids_text) OR x.data->>'appointment_id' = ANY (v_ids_text)
                 OR x.data#>>'{appointment,id}' = ANY (v_ids_text) OR x.data->>'series_id' = ANY (v_series_text)
                 OR x.data#>>'{series,id}' = ANY (v_series_text) OR x.data->>'entry_id' = ANY (v_entries_text)
                 OR x.data->>'id' = ANY (v_entries_text) OR x.data->>'id' = ANY (v_series_text) AS about,
               x.data::text ILIKE ANY (v_json_patterns) AS holds
        FROM (SELECT e.seq, clinic_event_data(e.clinic_id, e.data, e.appointment) AS data
              FROM events e WHERE e.clinic_id = p_clinic_id) x) d
  WHERE d.about OR d.holds;
  WITH scrubbed AS (
    UPDATE events e SET data = u.data, appointment = NULL
    FROM unnest(v_event_seqs, v_event_data) AS u(seq, data)
    WHERE e.clinic_id = p_clinic_id AND e.seq = u.seq
    RETURNING e.id, e.seq)
  SELECT coalesce(array_agg(id), '{}'), coalesce(array_agg(seq), '{}') INTO v_event_ids, v_event_seqs FROM scrubbed;
  v_events := cardinality(v_event_ids);

  -- Deliveries are rendered from their events when sent; those of the scrubbed events count as
  -- erased, and the few that keep a body of their own (webhook.test) or an error are scrubbed too.
  UPDATE webhook_deliveries d SET data = CASE WHEN d.data IS NULL THEN NULL ELSE clinic_scrub_json(d.data, v_removed, v_names, v_pseudonym, true) END,
    last_error = clinic_scrub_text(d.last_error, v_removed || v_names, v_pseudonym)
  WHERE d.clinic_id = p_clinic_id
    AND (d.event_id = ANY (v_event_ids) OR d.data::text ILIKE ANY (v_json_patterns) OR d.last_error ILIKE ANY (v_text_patterns));
  GET DIAGNOSTICS v_deliveries = ROW_COUNT;
  -- First attempts that succeeded, recorded a batch to a row (webhook_sent: seqs and status codes,
  -- no body): those of the scrubbed events count as erased too.
  IF cardinality(v_event_seqs) > 0 THEN
    SELECT v_deliveries + count(*) INTO v_deliveries
    FROM webhook_sent b CROSS JOIN LATERAL unnest(b.seqs) AS s(seq)
    WHERE b.clinic_id = p_clinic_id AND s.seq = ANY (v_event_seqs);
  END IF;

  UPDATE idempotency_keys k SET response = clinic_scrub_json(k.response, v_removed, v_names, v_pseudonym,
      k.response->>'id' = ANY (v_ids_text) OR k.response->>'id' = ANY (v_series_text)
      OR k.response#>>'{appointment,id}' = ANY (v_ids_text) OR k.response#>>'{series,id}' = ANY (v_series_text))
  WHERE k.clinic_id = p_clinic_id
    AND (k.response->>'id' = ANY (v_ids_text) OR k.response->>'id' = ANY (v_series_text)
      OR k.response#>>'{appointment,id}' = ANY (v_ids_text) OR k.response#>>'{series,id}' = ANY (v_series_text)
      OR k.response::text ILIKE ANY (v_json_patterns));

  UPDATE audit_log l SET details = clinic_scrub_json(l.details, v_removed, v_names, v_pseudonym, l.resource_id = ANY (v_ids))
  WHERE l.clinic_id = p_clinic_id AND (l.resource_id = ANY (v_ids) OR l.details::text ILIKE ANY (v_json_patterns));
  GET DIAGNOSTICS v_audit = ROW_COUNT;

  IF v_search THEN
    UPDATE jobs j SET last_error = clinic_scrub_text(j.last_error, v_removed || v_names, v_pseudonym)
    WHERE j.clinic_id = p_clinic_id AND j.last_error ILIKE ANY (v_text_patterns);
  END IF;

  RETURN jsonb_build_object('appointments', v_appointments, 'messages', v_messages, 'waitlist_entries', v_waitlist,
    'events', v_events, 'deliveries', v_deliveries, 'audit_entries', v_audit);
END $function$;
