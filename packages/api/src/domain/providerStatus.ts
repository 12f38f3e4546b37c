/**
 * The provider lifecycle of one clinic membership (docs/providers-services.md#p3p7--provider-lifecycle),
 * pure: no I/O. "removed" is not stored as a status: it means the membership's `is_provider`
 * flag is false (the member stays in the clinic, only the provider role goes).
 */

export const providerStatuses = ["pending", "approved", "suspended"] as const;
export type ProviderStatus = (typeof providerStatuses)[number];

/** Where a transition can lead: one of the statuses, or out of the providers list. */
export type ProviderState = ProviderStatus | "removed";

export const providerActions = ["approve", "reject", "suspend", "reactivate", "remove"] as const;
export type ProviderAction = (typeof providerActions)[number];

/**
 * Every legal transition, and nothing else. `remove` (P7, DELETE) is legal from any status:
 * a provider leaves the list from any state (see the lifecycle table in the doc above).
 */
export const providerTransitions: Readonly<
  Record<ProviderAction, Readonly<Partial<Record<ProviderStatus, ProviderState>>>>
> = {
  approve: { pending: "approved" },
  reject: { pending: "removed" },
  suspend: { approved: "suspended" },
  reactivate: { suspended: "approved" },
  remove: { pending: "removed", approved: "removed", suspended: "removed" },
};

/** The state `action` leads to from `status`, or null when the transition is illegal. */
export function nextProviderState(status: ProviderStatus, action: ProviderAction): ProviderState | null {
  return providerTransitions[action][status] ?? null;
}

/** The actions allowed from `status` (for error messages and clients that render buttons). */
export function allowedProviderActions(status: ProviderStatus): ProviderAction[] {
  return providerActions.filter((action) => nextProviderState(status, action) !== null);
}
