// The areas of a clinic's setup, each a page at /desk/{clinic_id}/setup/{area} (docs/web.md
// "Clinic setup"). The nav lists them all; an area whose page is not built yet says so.
import type { RouterOutputs } from "@clinic/client";
import type { SetupAccess } from "./access.ts";

export const setupAreas = [
  { area: "services", label: "Services" },
  { area: "providers", label: "Providers" },
  { area: "hours", label: "Work hours" },
  { area: "clinic", label: "Clinic" },
] as const;

export type SetupArea = (typeof setupAreas)[number]["area"];

export const isSetupArea = (value: string): value is SetupArea => setupAreas.some((a) => a.area === value);

/** The address of an area's page. */
export const setupPath = (clinicId: string, area: SetupArea) => `/desk/${encodeURIComponent(clinicId)}/setup/${area}`;

export type Clinic = RouterOutputs["clinics"]["get"];

/** What the shell hands every area's page: the clinic, read once, and what the caller may do in it. */
export interface SetupAreaProps {
  clinicId: string;
  clinic: Clinic;
  /** `admin` may change everything here; `staff` reads (the shell shows no page to `none`). */
  access: Exclude<SetupAccess, "none">;
}
