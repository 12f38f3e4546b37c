/** Clinic roles from weakest to strongest; any custom role string ranks as "MEMBER" (any member of the clinic). */
export type MinRole = "MEMBER" | "STAFF" | "CLINIC_ADMIN";

const rank: Record<MinRole, number> = { MEMBER: 1, STAFF: 2, CLINIC_ADMIN: 3 };

/** The rank of a membership's role: CLINIC_ADMIN > STAFF > any other (custom) role. */
export function roleRank(role: string): number {
  return role === "CLINIC_ADMIN" ? rank.CLINIC_ADMIN : role === "STAFF" ? rank.STAFF : rank.MEMBER;
}

/** True when `role` is at least `minRole`. */
export function hasRole(role: string, minRole: MinRole): boolean {
  return roleRank(role) >= rank[minRole];
}

/** The roles that are at least `minRole`, for a check in SQL; null when any role is (MEMBER). */
export function rolesAtLeast(minRole: MinRole): string[] | null {
  if (minRole === "MEMBER") return null;
  return ["STAFF", "CLINIC_ADMIN"].filter((role) => hasRole(role, minRole));
}
