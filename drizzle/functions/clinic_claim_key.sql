-- §6 Idempotency-Key: claims the key (clinic, user, key) for this request, or answers the id of
-- the appointment (or series) of the request that claimed it before, a replay; null when there is
-- no key or it is claimed now. The same key with another request hash is 409
-- IDEMPOTENCY_KEY_REUSED (§2); one still in use, or whose request never completed, is 409 CONFLICT.
-- A concurrent request with the same key waits on the key's row until the first one's statement
-- ends. Called first by clinic_book_appointment (p_idem.appointment_id: the outcome stored with
-- the claim), clinic_reschedule_appointment and clinic_book_series (clinic_store_key stores
-- theirs). Refusals follow the write functions' convention: SQLSTATE CL001 with the contract code
-- (MESSAGE), its detail (DETAIL) and extras as JSON (HINT), which the write answers as {error,
-- detail, extra} after rolling back what it did (CL002: the schedule changed since the read).
CREATE OR REPLACE FUNCTION clinic_claim_key(p_clinic_id uuid, p_user uuid, p_idem jsonb)
 RETURNS uuid
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_claimed text;
  v_stored record;
BEGIN
  IF jsonb_typeof(p_idem) IS DISTINCT FROM 'object' THEN
    RETURN NULL;
  END IF;
  -- A caller that knows its appointment's id before writing it (clinic_book_appointment) stores the
  -- outcome with the claim, one write: the row commits with the appointment or not at all.
  INSERT INTO idempotency_keys (clinic_id, user_id, key, request_hash, status_code, response)
  VALUES (p_clinic_id, p_user, p_idem->>'key', p_idem->>'hash',
          CASE WHEN p_idem ? 'appointment_id' THEN 200 ELSE 0 END,
          CASE WHEN p_idem ? 'appointment_id' THEN jsonb_build_object('appointment_id', p_idem->>'appointment_id') ELSE '{}'::jsonb END)
  ON CONFLICT DO NOTHING
  RETURNING key INTO v_claimed;
  IF v_claimed IS NOT NULL THEN
    RETURN NULL;
  END IF;
  SELECT k.request_hash, k.response INTO v_stored FROM idempotency_keys k
  WHERE k.clinic_id = p_clinic_id AND k.user_id = p_user AND k.key = p_idem->>'key';
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'CONFLICT', DETAIL = 'the idempotency key is in use by a concurrent request; retry';
  END IF;
  IF v_stored.request_hash <> p_idem->>'hash' THEN
    RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'IDEMPOTENCY_KEY_REUSED', DETAIL = 'this Idempotency-Key was used with a different request';
  END IF;
  IF v_stored.response->>'appointment_id' IS NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'CL001', MESSAGE = 'CONFLICT', DETAIL = 'the original request with this key did not complete; retry';
  END IF;
  RETURN (v_stored.response->>'appointment_id')::uuid;
END $function$;
