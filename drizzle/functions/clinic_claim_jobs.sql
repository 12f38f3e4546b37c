-- Claims up to p_limit of a clinic's due jobs of the given queues for one worker (docs/jobs.md):
-- due (run_at passed) and not leased (no lease, or one that ran out), oldest due first, skipping
-- jobs another worker is claiming (FOR UPDATE SKIP LOCKED), each leased for p_lease_s seconds
-- (leased_until) with its attempts counted and the claim named by a new lease_id that alone may
-- complete or fail it. No indexed column changes, so a claim is a HOT update on a page with room
-- (the table's fillfactor is 70). A due job with p_max_attempts spent (its process died on every
-- attempt) becomes failed instead. Answers {lease, jobs: [{id, queue, data, attempt}]}. One
-- statement from the worker (JobWorkers, modules/jobs/queue.ts), delegated to the clinic's node on
-- Citus.
CREATE OR REPLACE FUNCTION clinic_claim_jobs(p_clinic_id uuid, p_queues text[], p_limit integer, p_lease_s integer, p_max_attempts integer)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_lease uuid := gen_random_uuid();
  v_jobs jsonb;
BEGIN
  UPDATE jobs
  SET failed_at = now(), lease_id = NULL,
      last_error = coalesce(last_error, 'no attempt finished within its lease')
  WHERE clinic_id = p_clinic_id AND failed_at IS NULL AND run_at <= now()
    AND (leased_until IS NULL OR leased_until <= now())
    AND queue = ANY (p_queues) AND attempts >= p_max_attempts;
  -- The due jobs by jobs_clinic_due_idx (the clinic's range only), then each by its key.
  WITH claimed AS (
    UPDATE jobs j
    SET leased_until = now() + make_interval(secs => p_lease_s), attempts = j.attempts + 1, lease_id = v_lease
    FROM (
      SELECT d.job_id FROM jobs d
      WHERE d.clinic_id = p_clinic_id AND d.failed_at IS NULL AND d.run_at <= now()
        AND (d.leased_until IS NULL OR d.leased_until <= now())
        AND d.queue = ANY (p_queues) AND d.attempts < p_max_attempts
      ORDER BY d.run_at
      LIMIT p_limit
      FOR UPDATE SKIP LOCKED) c
    WHERE j.clinic_id = p_clinic_id AND j.job_id = c.job_id
    RETURNING j.job_id, j.queue, j.data, j.attempts, j.created_at)
  SELECT coalesce(jsonb_agg(jsonb_build_object('id', job_id, 'queue', queue, 'data', data, 'attempt', attempts) ORDER BY created_at), '[]')
  INTO v_jobs FROM claimed;
  RETURN jsonb_build_object('lease', v_lease, 'jobs', v_jobs);
END $function$;
