-- Claims up to p_limit of a clinic's due jobs of the given queues for one worker (docs/jobs.md):
-- due (run_at passed) and not leased (no lease, or one that ran out), oldest due first, skipping
-- jobs another worker is claiming (FOR UPDATE SKIP LOCKED), each leased for p_lease_s seconds
-- (leased_until) with its attempts counted and the claim named by a new lease_id that alone may
-- complete or fail it. No indexed column changes, so a claim is a HOT update on a page with room
-- (the table's fillfactor is 70). A due job with p_max_attempts spent (its process died on every
-- attempt) becomes failed instead, when the claim reaches it. Answers {lease, jobs: [{id, queue, data, attempt}]}. One
-- statement from the worker (JobWorkers, modules/jobs/queue.ts), delegated to the clinic's node on
-- Citus.
CREATE OR REPLACE FUNCTION clinic_claim_jobs(p_clinic_id uuid, p_queues text[], p_limit integer, p_lease_s integer, p_max_attempts integer)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_lease uuid := gen_random_uuid();
  v_jobs jsonb;
  -- Values, not calls, in the CASEs below: Citus refuses a non-immutable function in a CASE of a
  -- distributed table's UPDATE.
  v_now timestamptz := now();
  v_until timestamptz := now() + make_interval(secs => p_lease_s);
BEGIN
  -- The clinic's oldest due jobs by jobs_clinic_due_idx (its range only, at most p_limit of them),
  -- then each by its key: leased, or failed when its attempts are spent. A spent job is failed only
  -- when a claim reaches it, so that a claim reads no more than its limit of due jobs (a separate
  -- look for spent jobs walked every due job of the clinic: 33,000 buffers a claim in a hot clinic's
  -- backlog, docs/performance.md#the-hot-clinic).
  WITH picked AS (
    SELECT d.job_id, d.attempts >= p_max_attempts AS spent FROM jobs d
    WHERE d.clinic_id = p_clinic_id AND d.failed_at IS NULL AND d.run_at <= now()
      AND (d.leased_until IS NULL OR d.leased_until <= now())
      AND d.queue = ANY (p_queues)
    ORDER BY d.run_at
    LIMIT p_limit
    FOR UPDATE SKIP LOCKED),
  claimed AS (
    UPDATE jobs j
    SET leased_until = CASE WHEN p.spent THEN j.leased_until ELSE v_until END,
        attempts = CASE WHEN p.spent THEN j.attempts ELSE j.attempts + 1 END,
        lease_id = CASE WHEN p.spent THEN NULL ELSE v_lease END,
        failed_at = CASE WHEN p.spent THEN v_now END,
        last_error = CASE WHEN p.spent THEN coalesce(j.last_error, 'no attempt finished within its lease') ELSE j.last_error END
    FROM picked p
    WHERE j.clinic_id = p_clinic_id AND j.job_id = p.job_id
    RETURNING j.job_id, j.queue, j.data, j.attempts, j.created_at, p.spent)
  SELECT coalesce(jsonb_agg(jsonb_build_object('id', job_id, 'queue', queue, 'data', data, 'attempt', attempts) ORDER BY created_at)
           FILTER (WHERE NOT spent), '[]')
  INTO v_jobs FROM claimed;
  RETURN jsonb_build_object('lease', v_lease, 'jobs', v_jobs);
END $function$;
