// CSV downloads of the reports page (CONTRACT §20, RP1 and RP2 with `Accept: text/csv`). The typed
// client speaks JSON over /trpc, so a CSV is asked of the /v1 route itself, with the same
// `access_token` cookie, and handed to the browser as a file through a Blob.

/** A failed download, shaped like a client error so `messageOf` reads its problem+json (docs/web.md). */
export class DownloadError extends Error {
  readonly meta: { responseJSON: unknown };
  constructor(status: number, body: unknown) {
    super(`the download failed (HTTP ${String(status)})`);
    this.meta = { responseJSON: body };
  }
}

/** The /v1 address of a report with its query (`undefined` values left out). */
export function reportUrl(
  clinicId: string,
  report: "utilization" | "appointments",
  query: Record<string, string | undefined>,
): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, value);
  return `/v1/clinics/${encodeURIComponent(clinicId)}/reports/${report}?${params.toString()}`;
}

/** Fetches a report as CSV (cookie-authenticated) and saves it under `fileName`; rejects with `DownloadError`. */
export async function downloadCsv(url: string, fileName: string): Promise<void> {
  const response = await fetch(url, { headers: { accept: "text/csv" }, credentials: "same-origin" });
  if (!response.ok) {
    const body: unknown = await response.json().catch(() => undefined);
    throw new DownloadError(response.status, body);
  }
  const blob = await response.blob();
  const href = URL.createObjectURL(blob.type ? blob : new Blob([blob], { type: "text/csv" }));
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
