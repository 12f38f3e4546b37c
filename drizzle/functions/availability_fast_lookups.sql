-- The lookups of the availability fast path (V1 and O3 answered from the cache; §17: ETag, 304):
-- for each request of a batch, its clinic's zone and online_booking, the caller's role there, and
-- the versions of the scopes the cached answer depends on (all of the clinic's for an empty list),
-- read once for each distinct clinic and scope list of the batch.
-- Called only by modules/availability/fast.ts, as the prepared statement fast_availability_lookups,
-- once for all the requests that arrived in one turn (batch.ts).
-- SET plan_cache_mode = force_generic_plan: the query is planned once per connection, not on every
-- call (planning it cost more than running it on a hit); enable_seqscan and enable_bitmapscan off
-- keep that one plan on the (clinic_id, …) indexes rather than a scan of all of the clinic's rows.
-- §12: every row is still filtered by its own clinic. Not a clinic_ function: one call reads
-- several clinics' rows, so on Citus the fast path steps aside and never calls it
-- (docs/performance.md#a-hit-at-the-cost-of-readyz).
CREATE OR REPLACE FUNCTION availability_fast_lookups(p_clinic_ids text, p_user_ids text, p_scopes text)
 RETURNS TABLE(i integer, timezone text, online_booking boolean, role text, versions text)
 LANGUAGE plpgsql
 STABLE
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
 SET enable_bitmapscan TO 'off'
AS $function$
BEGIN
  RETURN QUERY
  WITH r AS (
    SELECT u.clinic_id, u.user_id, coalesce(u.scopes, '') AS scopes, u.i
    FROM unnest(string_to_array(p_clinic_ids, ',')::uuid[], string_to_array(p_user_ids, ',')::uuid[],
                string_to_array(p_scopes, '|')) WITH ORDINALITY AS u(clinic_id, user_id, scopes, i)
  ),
  -- The versions once for each clinic and scope list of the batch: concurrent requests for one
  -- clinic's calendar (patients looking at the same week) ask the same rows.
  k AS (SELECT DISTINCT r.clinic_id, r.scopes FROM r),
  kv AS (
    SELECT k.clinic_id, k.scopes,
      -- Only the scopes asked for, found by the primary key; all of the clinic's for an empty list.
      -- Two subqueries, not one with an OR, so that the scoped one can look its rows up by clinic
      -- and scope: a clinic's version rows lie on as many pages as it has rows (they were made when
      -- its providers were first booked or changed), and a hit depends on a few of them.
      CASE WHEN k.scopes = '' THEN
        (SELECT coalesce(string_agg(v.scope_id::text || '=' || v.version::text, ','), '')
           FROM availability_versions v WHERE v.clinic_id = k.clinic_id)
      ELSE
        (SELECT coalesce(string_agg(v.scope_id::text || '=' || v.version::text, ','), '')
           FROM availability_versions v
          WHERE v.clinic_id = k.clinic_id AND v.scope_id = ANY (string_to_array(k.scopes, ',')::uuid[]))
      END AS versions
    FROM k
  )
  SELECT r.i::int, c.timezone, c.online_booking,
    (SELECT m.clinic_role FROM clinic_members m WHERE m.clinic_id = r.clinic_id AND m.user_id = r.user_id),
    kv.versions
  FROM r
  JOIN kv ON kv.clinic_id = r.clinic_id AND kv.scopes = r.scopes
  CROSS JOIN LATERAL (SELECT c.timezone, c.online_booking FROM clinics c WHERE c.id = r.clinic_id LIMIT 1) c;
END
$function$;
