// Patient data in the pages (CONTRACT §21, docs/web.md "Patient data in the pages"): the exports
// (X1, X3) are asked of the /v1 routes themselves, with the `access_token` cookie and the Accept
// header of the form wanted, and saved through a Blob as the reports page saves its CSV — the typed
// client speaks JSON over /trpc and would re-encode the document (dates as objects, no FHIR form).
import { DownloadError } from "./reportDownload.ts";

/** How the front desk names the patient: X1/X2 take exactly one of these. */
export type PatientKey = "email" | "phone_e164" | "patient_user_id";

/** The two forms of X1: the service's JSON, or a FHIR R4 Bundle. */
export type ExportFormat = "json" | "fhir";

const mediaTypes: Record<ExportFormat, string> = { json: "application/json", fhir: "application/fhir+json" };

/** X1's address for one patient of a clinic. */
export function patientExportUrl(clinicId: string, key: PatientKey, value: string): string {
  const query = new URLSearchParams({ [key]: value });
  return `/v1/clinics/${encodeURIComponent(clinicId)}/patients/export?${query.toString()}`;
}

/** X3's address: the signed-in user's own data in every clinic. */
export const myExportUrl = "/v1/me/export";

/**
 * The file name of an export: what it is and the day it was taken, never who it is about (a
 * download folder, a browser's download list, are not places for a patient's e-mail address).
 */
export function exportFileName(prefix: string, format: ExportFormat, day: Date): string {
  const date = day.toISOString().slice(0, 10);
  return `${prefix}_${date}${format === "fhir" ? ".fhir" : ""}.json`;
}

/**
 * Fetches a JSON document (cookie-authenticated) in the given form and saves it under `fileName`;
 * rejects with `DownloadError`, whose problem+json `messageOf`/`problemOf` read.
 */
export async function downloadJson(url: string, format: ExportFormat, fileName: string): Promise<void> {
  const response = await fetch(url, { headers: { accept: mediaTypes[format] }, credentials: "same-origin" });
  if (!response.ok) {
    const body: unknown = await response.json().catch(() => undefined);
    throw new DownloadError(response.status, body);
  }
  const text = await response.text();
  const href = URL.createObjectURL(new Blob([text], { type: mediaTypes[format] }));
  const link = document.createElement("a");
  link.href = href;
  link.download = fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked a moment later: revoking at once can cancel the download in some browsers.
  setTimeout(() => {
    URL.revokeObjectURL(href);
  }, 10_000);
}
