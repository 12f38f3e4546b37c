import { forbidden } from "../../errors.ts";
import type { Caller, Membership } from "./clinicAccess.ts";
import { hasRole } from "./roles.ts";

/** The caller and their membership in the clinic at hand. */
export interface ClinicCaller {
  user: Caller;
  membership: Membership | null;
}

/** CLINIC_ADMIN or a global ADMIN: who manages everything of the clinic. */
export function isClinicAdminOrAbove(caller: ClinicCaller): boolean {
  return caller.user.isAdmin || (caller.membership !== null && hasRole(caller.membership.role, "CLINIC_ADMIN"));
}

/** Provider-scope writes (hours, closures, date overrides, feeds): CLINIC_ADMIN or ADMIN, or the provider for their own. */
export function assertMayManageProvider(caller: ClinicCaller, providerId: string | null): void {
  if (isClinicAdminOrAbove(caller) || caller.user.id === providerId) return;
  throw forbidden(
    providerId
      ? "only a CLINIC_ADMIN or the provider themself may change a provider's schedule"
      : "this needs the CLINIC_ADMIN role",
  );
}

/** STAFF, CLINIC_ADMIN or a global ADMIN: who sees and handles every appointment of the clinic. */
export function isStaffOrAbove(caller: ClinicCaller): boolean {
  return caller.user.isAdmin || (caller.membership !== null && hasRole(caller.membership.role, "STAFF"));
}

/**
 * Whether the caller may cancel or move any appointment of the clinic (STAFF and above), or only
 * the ones they booked themselves (a custom role).
 */
export const mayHandleAnyAppointment = isStaffOrAbove;

/** Provider-scope reads: STAFF or higher, or the provider reading their own. */
export function assertMayReadProvider(caller: ClinicCaller, providerId: string): void {
  if (caller.user.isAdmin || caller.user.id === providerId) return;
  if (caller.membership && hasRole(caller.membership.role, "STAFF")) return;
  throw forbidden("reading a provider's schedule needs the STAFF role");
}
