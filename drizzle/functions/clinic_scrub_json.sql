-- A stored JSON document (an event's data, an idempotency record's answer, a message's data, an
-- audit entry's details) with a patient's personal values removed (§21, docs/patient-data.md):
-- every string equal (case-insensitively) to one of p_removed — e-mail addresses, phone numbers,
-- notes, answers — becomes null; when p_about (the document is about one of the patient's
-- appointments, series or waitlist entries) every string equal to one of p_names becomes
-- p_pseudonym, and `answers` becomes [] and `notes` null wherever they are. Pure, so that Citus
-- may run it next to columns in UPDATE … SET.
CREATE OR REPLACE FUNCTION clinic_scrub_json(p_doc jsonb, p_removed text[], p_names text[], p_pseudonym text, p_about boolean)
 RETURNS jsonb
 LANGUAGE plpgsql
 IMMUTABLE
AS $function$
DECLARE
  v_out jsonb;
  v_key text;
  v_value jsonb;
BEGIN
  CASE jsonb_typeof(p_doc)
    WHEN 'object' THEN
      v_out := '{}'::jsonb;
      FOR v_key, v_value IN SELECT e.key, e.value FROM jsonb_each(p_doc) AS e LOOP
        IF p_about AND v_key = 'answers' AND jsonb_typeof(v_value) = 'array' THEN
          v_value := '[]'::jsonb;
        ELSIF p_about AND v_key = 'notes' THEN
          v_value := 'null'::jsonb;
        ELSE
          v_value := clinic_scrub_json(v_value, p_removed, p_names, p_pseudonym, p_about);
        END IF;
        v_out := v_out || jsonb_build_object(v_key, v_value);
      END LOOP;
      RETURN v_out;
    WHEN 'array' THEN
      SELECT coalesce(jsonb_agg(clinic_scrub_json(e.value, p_removed, p_names, p_pseudonym, p_about) ORDER BY e.n), '[]'::jsonb)
        INTO v_out
      FROM jsonb_array_elements(p_doc) WITH ORDINALITY AS e(value, n);
      RETURN v_out;
    WHEN 'string' THEN
      IF lower(p_doc #>> '{}') = ANY (p_removed) THEN
        RETURN 'null'::jsonb;
      END IF;
      IF p_about AND lower(p_doc #>> '{}') = ANY (p_names) THEN
        RETURN to_jsonb(p_pseudonym);
      END IF;
      RETURN p_doc;
    ELSE
      RETURN p_doc;
  END CASE;
END $function$;
