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

/** The areas a custom-role provider may open: their own work hours and closures (§3). */
const providerAreas: readonly SetupArea[] = ["hours"];

/** The areas open to a caller: all of them to STAFF and CLINIC_ADMIN, a provider's own hours to a provider. */
export function areasFor(access: SetupAccess): readonly (typeof setupAreas)[number][] {
  if (access === "admin" || access === "staff") return setupAreas;
  if (access === "provider") return setupAreas.filter((a) => providerAreas.includes(a.area));
  return [];
}

/** The area `/desk/{id}/setup` opens for a caller. */
export const firstAreaFor = (access: SetupAccess): SetupArea => areasFor(access)[0]?.area ?? "services";

export type SetupArea = (typeof setupAreas)[number]["area"];

export const isSetupArea = (value: string): value is SetupArea => setupAreas.some((a) => a.area === value);

/** The address of an area's page. */
export const setupPath = (clinicId: string, area: SetupArea) => `/desk/${encodeURIComponent(clinicId)}/setup/${area}`;

export type Clinic = RouterOutputs["clinics"]["get"];

/** What the shell hands every area's page: the clinic, read once, and what the caller may do in it. */
export interface SetupAreaProps {
  clinicId: string;
  clinic: Clinic;
  /**
   * `admin` may change everything here; `staff` reads; `provider` keeps their own hours (the shell
   * shows them no other area, and no page to `none`).
   */
  access: Exclude<SetupAccess, "none">;
}
