-- §10 reminders: plans one reminder per offset of the clinic (reminder_offsets_min) at start −
-- offset, none whose moment has passed at p_now. Each is a row of appointment_reminders and an
-- appointment-reminder job in the job queue, due at that moment; the job records the
-- appointment.reminder event exactly once (docs/events.md#reminders). Planning the same start
-- again re-plans the row with a new job. Called by clinic_book_appointment (booked),
-- clinic_set_status (a confirmation: pending → booked) and clinic_reschedule_appointment (after
-- clinic_drop_reminders, at the new start). Holds and pending appointments get none.
CREATE OR REPLACE FUNCTION clinic_plan_reminders(p_clinic_id uuid, p_appointment_id uuid, p_start timestamp with time zone, p_now timestamp with time zone)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_offset integer;
  v_at timestamptz;
  v_job uuid;
BEGIN
  FOR v_offset IN SELECT DISTINCT o FROM clinics c, unnest(c.reminder_offsets_min) AS o WHERE c.id = p_clinic_id ORDER BY o LOOP
    v_at := p_start - make_interval(mins => v_offset);
    CONTINUE WHEN v_at <= p_now;
    v_job := gen_random_uuid();
    INSERT INTO appointment_reminders AS r (clinic_id, appointment_id, offset_min, starts_at, job_id)
    VALUES (p_clinic_id, p_appointment_id, v_offset, p_start, v_job)
    ON CONFLICT (clinic_id, appointment_id, offset_min, starts_at) DO UPDATE
      SET job_id = excluded.job_id, status = 'planned',
          updated_at = greatest(excluded.updated_at, ((r.updated_at AT TIME ZONE 'UTC') + interval '1 millisecond') AT TIME ZONE 'UTC');
    INSERT INTO jobs (clinic_id, job_id, queue, data, run_at)
    VALUES (p_clinic_id, v_job, 'appointment-reminder',
            jsonb_build_object('clinicId', p_clinic_id, 'appointmentId', p_appointment_id, 'offsetMin', v_offset, 'startsAt', clinic_iso_instant(p_start)), v_at);
  END LOOP;
END $function$;
