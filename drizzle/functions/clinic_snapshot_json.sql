-- An appointment snapshot (the `appointment_snapshot` type, drizzle/0034_event_snapshots.sql) as the
-- API shows it: the one home of the Appointment resource's JSON without answers (§1 instants, §8
-- buffers and rescheduled_at, §9 patient_user_id and booked_by_user_id, §13 status, held_until and
-- status_history, §14 series_id and resources). clinic_appointments_json builds its rows with it, and
-- clinic_event_data renders an appointment event stored as a snapshot (docs/events.md#what-an-event-stores)
-- with it, so that an event read later shows the bytes its writer saw. SQL, STABLE (as
-- clinic_iso_instant), reading no table: inlined where it is called, and copied to every node on
-- Citus. Null for a null snapshot (no such appointment).
CREATE OR REPLACE FUNCTION clinic_snapshot_json(p_clinic_id uuid, p_snapshot appointment_snapshot)
 RETURNS jsonb
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
  SELECT CASE WHEN (p_snapshot).id IS NULL THEN NULL ELSE jsonb_build_object(
      'id', (p_snapshot).id, 'clinic_id', p_clinic_id, 'service_id', (p_snapshot).service_id,
      'service_name', (p_snapshot).service_name, 'provider_id', (p_snapshot).provider_id,
      'provider_name', (p_snapshot).provider_name, 'start', clinic_iso_instant((p_snapshot).starts_at),
      'end', clinic_iso_instant((p_snapshot).ends_at), 'status', (p_snapshot).status,
      'held_until', clinic_iso_instant((p_snapshot).held_until), 'status_history', (p_snapshot).status_history,
      'patient', jsonb_build_object('name', (p_snapshot).patient_name, 'email', (p_snapshot).patient_email,
                                    'phone_e164', (p_snapshot).patient_phone_e164),
      'notes', (p_snapshot).notes, 'buffer_before_min', (p_snapshot).buffer_before_min,
      'buffer_after_min', (p_snapshot).buffer_after_min, 'created_at', clinic_iso_instant((p_snapshot).created_at),
      'updated_at', clinic_iso_instant((p_snapshot).updated_at), 'canceled_at', clinic_iso_instant((p_snapshot).canceled_at),
      'rescheduled_at', clinic_iso_instant((p_snapshot).rescheduled_at), 'patient_user_id', (p_snapshot).patient_user_id,
      'booked_by_user_id', (p_snapshot).booked_by_user_id, 'series_id', (p_snapshot).series_id,
      'resources', (p_snapshot).resources) END
$function$;
