// Patient data (§21, docs/patient-data.md): where it is, erasure (X2), export (X1, X3), retention.
export { type ErasureView, erasePatient, erasureOutput } from "./erase.ts";
export { type DataSubject, type PersonalColumn, isPersonalColumn, personalData } from "./personalData.ts";
export { type PatientMatch, identifierOf, pseudonymOf } from "./pseudonym.ts";
export {
  type RetentionCounts,
  type RetentionJob,
  type RetentionRun,
  type RetentionSettings,
  ensureRetentionJobs,
  nextDailyRun,
  retentionCounts,
  retentionJobId,
  runRetention,
  scheduleRetention,
} from "./retention.ts";
export {
  type MyExport,
  type PatientExport,
  exportMine,
  exportPatient,
  myExportOutput,
  patientExportOutput,
} from "./export.ts";
