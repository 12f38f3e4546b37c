-- Drops an appointment's planned reminders (marked dropped) and deletes their jobs from the job
-- queue; a job already running finds its reminder dropped and does nothing. §10 reminders: none after a cancel, and a reschedule plans anew.
-- Called by clinic_set_status (a decline) and clinic_reschedule_appointment (before
-- clinic_plan_reminders). The TypeScript writers (a cancel) use dropReminders
-- (modules/booking/reminders.ts).
CREATE OR REPLACE FUNCTION clinic_drop_reminders(p_clinic_id uuid, p_appointment_id uuid)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_jobs uuid[];
BEGIN
  WITH dropped AS (
    UPDATE appointment_reminders r SET status = 'dropped',
      updated_at = greatest(now(), ((r.updated_at AT TIME ZONE 'UTC') + interval '1 millisecond') AT TIME ZONE 'UTC')
    WHERE r.clinic_id = p_clinic_id AND r.appointment_id = p_appointment_id AND r.status = 'planned'
    RETURNING r.job_id)
  SELECT coalesce(array_agg(job_id), '{}') INTO v_jobs FROM dropped;
  IF cardinality(v_jobs) > 0 THEN
    DELETE FROM jobs WHERE clinic_id = p_clinic_id AND job_id = ANY (v_jobs);
  END IF;
END $function$;
