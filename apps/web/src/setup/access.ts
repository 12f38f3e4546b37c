// Who may do what on the setup pages (CONTRACT §3, §23). The API names no role of the caller, so
// the pages ask the routes themselves, once per page: A1 (the audit log) answers CLINIC_ADMIN and
// global ADMIN only, M2 (the members list) STAFF and above. The typed client sends both in one
// batched request. Asking the thing itself cannot disagree with the server (docs/web.md). A caller
// refused both may still be a provider of the clinic with a custom role, who keeps their own work
// hours and closures (§3): GET /v1/me names them, and K2 of their own calendars answers only for a
// provider and says whether they may change their schedule.
import { type QueryClient, useQuery, useQueryClient } from "@tanstack/react-query";
import { client, errorCodeOf } from "../api.ts";

/**
 * What the caller may do in a clinic's setup: `admin` everything (CLINIC_ADMIN or global ADMIN),
 * `staff` read (STAFF), `provider` their own work hours and closures (a provider with a custom
 * role), `none` nothing (a custom role who is no provider: only the "member" rights of §3).
 */
export type SetupAccess = "admin" | "staff" | "provider" | "none";

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

/** GET /v1/me (who the caller is, whichever way they signed in), cached for the page's life. */
export const meQuery = {
  queryKey: ["me"],
  queryFn: () => client.me.profile.query(),
  staleTime: Infinity,
} as const;

/** The signed-in caller's user id and e-mail. */
export function useMe() {
  return useQuery(meQuery);
}

/** The caller's setup access in a clinic; cached for the page's life (a role change needs a reload). */
export async function setupAccessOf(clinicId: string, queryClient: QueryClient): Promise<SetupAccess> {
  const [admin, staff] = await Promise.all([
    allowed(client.audit.list.query({ clinic_id: clinicId, limit: 1 })),
    allowed(client.members.list.query({ clinic_id: clinicId, limit: 1 })),
  ]);
  if (admin) return "admin";
  if (staff) return "staff";
  // K2 answers NOT_FOUND for a member who is no provider here; a provider reads their own.
  const me = await queryClient.query(meQuery);
  const own = await client.calendars.list.query({ clinic_id: clinicId, user_id: me.id }).catch((error: unknown) => {
    if (errorCodeOf(error) === "NOT_FOUND" || errorCodeOf(error) === "FORBIDDEN") return undefined;
    throw error;
  });
  return own?.may_manage ? "provider" : "none";
}

/** `setupAccessOf` as a query, shared by the desk's link and the setup pages. */
export function useSetupAccess(clinicId: string, enabled = true) {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: ["setup-access", clinicId],
    queryFn: () => setupAccessOf(clinicId, queryClient),
    staleTime: Infinity,
    enabled,
  });
}
