-- Appointments as the API shows them (the Appointment resource without answers), one row each of the
-- clinic's p_ids that it has: their snapshots (clinic_appointment_snapshots, the one query) rendered
-- by clinic_snapshot_json (the one shape). clinic_appointment_json answers one of them;
-- clinic_due_reminders reads a page of them in one statement. appointmentFromJson
-- (modules/booking/clinicFunctions.ts) parses it. Its twin is toAppointment
-- (modules/booking/appointments.ts: B2, B3, U1); packages/api/test/appointmentTwins.test.ts compares
-- the two field by field.
CREATE OR REPLACE FUNCTION clinic_appointments_json(p_clinic_id uuid, p_ids uuid[])
 RETURNS TABLE (id uuid, data jsonb)
 LANGUAGE plpgsql
 STABLE
AS $function$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT s.id, clinic_snapshot_json(p_clinic_id, s.snapshot) FROM clinic_appointment_snapshots(p_clinic_id, p_ids) s;
END $function$;
