-- Plans the write-back of an appointment's change into its provider's own calendars (CONTRACT §18,
-- docs/calendars.md#write-back): a calendar-write-back job in the transaction of the change, when the
-- provider has a write_back calendar in the clinic or the appointment was written into one before
-- (a move to another provider, a cancellation: it comes out again). The job reads the appointment
-- as it then is, so one job per change is enough, whatever came before. Called by
-- clinic_record_event (the SQL writers) and by planWriteBacks (modules/calendars/writeBack.ts, the
-- TypeScript writers), for each appointment event.
CREATE OR REPLACE FUNCTION clinic_plan_write_back(p_clinic_id uuid, p_type text, p_data jsonb)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF p_type NOT IN ('appointment.booked', 'appointment.canceled', 'appointment.rescheduled', 'appointment.status_changed') THEN
    RETURN;
  END IF;
  IF EXISTS (SELECT 1 FROM calendars c
             WHERE c.clinic_id = p_clinic_id AND c.provider_id = (p_data->>'provider_id')::uuid AND c.write_back)
     OR EXISTS (SELECT 1 FROM calendar_writes w
                WHERE w.clinic_id = p_clinic_id AND w.appointment_id = (p_data->>'id')::uuid) THEN
    INSERT INTO jobs (clinic_id, job_id, queue, data)
    VALUES (p_clinic_id, gen_random_uuid(), 'calendar-write-back',
            jsonb_build_object('clinicId', p_clinic_id, 'appointmentId', p_data->>'id'));
  END IF;
END $function$;
