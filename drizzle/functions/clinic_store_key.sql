-- §6 Idempotency-Key: stores the outcome of a key claimed by clinic_claim_key, the id of the
-- appointment (or series) the request wrote, so that a retry with the key replays it; nothing when
-- the request had no key. Called by clinic_book_appointment, clinic_reschedule_appointment and
-- clinic_book_series, in the write's transaction: a refusal rolls the claim back with the rest.
CREATE OR REPLACE FUNCTION clinic_store_key(p_clinic_id uuid, p_user uuid, p_idem jsonb, p_appointment_id uuid)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF jsonb_typeof(p_idem) = 'object' THEN
    UPDATE idempotency_keys SET status_code = 200, response = jsonb_build_object('appointment_id', p_appointment_id)
    WHERE clinic_id = p_clinic_id AND user_id = p_user AND key = p_idem->>'key';
  END IF;
END $function$;
