-- Free text (a message's subject, an error a mail server or a webhook receiver answered) with every
-- occurrence of a patient's personal values (lower-cased in p_values, matched case-insensitively)
-- replaced by their pseudonym (§21, clinic_scrub_patient). Pure.
CREATE OR REPLACE FUNCTION clinic_scrub_text(p_text text, p_values text[], p_pseudonym text)
 RETURNS text
 LANGUAGE plpgsql
 IMMUTABLE
AS $function$
DECLARE
  v_out text := p_text;
  v_value text;
BEGIN
  IF p_text IS NULL THEN
    RETURN NULL;
  END IF;
  FOREACH v_value IN ARRAY coalesce(p_values, '{}') LOOP
    IF v_value <> '' AND strpos(lower(v_out), v_value) > 0 THEN
      v_out := regexp_replace(v_out, regexp_replace(v_value, '([\\.^$|?*+()\[\]{}-])', '\\\1', 'g'), p_pseudonym, 'gi');
    END IF;
  END LOOP;
  RETURN v_out;
END $function$;
