// Who may do what on the setup pages (CONTRACT §3, §23). The API names no role of the caller, so
// the pages ask the routes themselves, once per page: A1 (the audit log) answers CLINIC_ADMIN and
// global ADMIN only, M2 (the members list) STAFF and above. The typed client sends both in one
// batched request. Asking the thing itself cannot disagree with the server (docs/web.md).
import { useQuery } from "@tanstack/react-query";
import { client, errorCodeOf } from "../api.ts";

/**
 * What the caller may do in a clinic's setup: `admin` everything (CLINIC_ADMIN or global ADMIN),
 * `staff` read (STAFF), `none` nothing (a custom role: only the "member" rights of §3).
 */
export type SetupAccess = "admin" | "staff" | "none";

/** A refused probe says "not this role"; any other failure (signed out, offline) is the answer's error. */
async function allowed(probe: Promise<unknown>): Promise<boolean> {
  try {
    await probe;
    return true;
  } catch (error) {
    if (errorCodeOf(error) === "FORBIDDEN") return false;
    throw error;
  }
}

/** The caller's setup access in a clinic; cached for the page's life (a role change needs a reload). */
export async function setupAccessOf(clinicId: string): Promise<SetupAccess> {
  const [admin, staff] = await Promise.all([
    allowed(client.audit.list.query({ clinic_id: clinicId, limit: 1 })),
    allowed(client.members.list.query({ clinic_id: clinicId, limit: 1 })),
  ]);
  return admin ? "admin" : staff ? "staff" : "none";
}

/** `setupAccessOf` as a query, shared by the desk's link and the setup pages. */
export function useSetupAccess(clinicId: string, enabled = true) {
  return useQuery({
    queryKey: ["setup-access", clinicId],
    queryFn: () => setupAccessOf(clinicId),
    staleTime: Infinity,
    enabled,
  });
}
