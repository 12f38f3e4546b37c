-- Patient data (CONTRACT §21, issue 40, docs/patient-data.md): a clinic's retention period, and
-- the audit actions of an erasure and of a retention run.
ALTER TABLE "audit_log" DROP CONSTRAINT "audit_log_action_check";--> statement-breakpoint
ALTER TABLE "clinics" ADD COLUMN "retention_days" integer;--> statement-breakpoint
ALTER TABLE "clinics" ADD CONSTRAINT "clinics_retention_days_range" CHECK ("retention_days" is null or "retention_days" between 30 and 3650);--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_action_check" CHECK ("action" in ('SERVICE_CREATED', 'SERVICE_UPDATED', 'SERVICE_DELETED', 'PATIENT_ERASED', 'RETENTION_APPLIED'));