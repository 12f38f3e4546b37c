-- Errors of the write functions: SQLSTATE CL001 carries a contract code (MESSAGE), its detail
-- (DETAIL) and extras as JSON (HINT); CL002 says the schedule changed since the read. Each write
-- function turns them into its answer, having rolled back what it did.
--
-- Claims an idempotency key for this request, or answers the appointment of the request that
-- claimed it before (a replay). Null when there is no key or it is claimed now. A concurrent
-- request with the same key waits here until the first one's statement ends.
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
  INSERT INTO idempotency_keys (clinic_id, user_id, key, request_hash, status_code, response)
  VALUES (p_clinic_id, p_user, p_idem->>'key', p_idem->>'hash', 0, '{}'::jsonb)
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
