// The provider lifecycle as the providers page offers it (CONTRACT §5 P3–P7): which actions a
// status allows, their words, and the call of each through the typed client.
import { type RouterOutputs, problemOf } from "@clinic/client";
import { client } from "../api.ts";

export type Provider = RouterOutputs["providers"]["list"]["providers"][number];
export type Status = Provider["status"];
/** A lifecycle action of P3–P7. */
export type ProviderAction = "approve" | "reject" | "suspend" | "reactivate" | "remove";

/** What each status allows (the contract's table, §5 P3–P7), in the order the buttons stand. */
export const actionsOf: Record<Status, ProviderAction[]> = {
  pending: ["approve", "reject", "remove"],
  approved: ["suspend", "remove"],
  suspended: ["reactivate", "remove"],
};
export const actionWords: Record<ProviderAction, string> = {
  approve: "Approve",
  reject: "Reject",
  suspend: "Suspend",
  reactivate: "Reactivate",
  remove: "Remove",
};
export const statusWords: Record<Status, string> = {
  approved: "Approved",
  pending: "Pending approval",
  suspended: "Suspended",
};
/** What happened, for the status line. */
export const doneWords: Record<ProviderAction, (name: string) => string> = {
  approve: (name) => `${name} is approved: their hours now offer times.`,
  reject: (name) => `${name} was rejected: they stay a member of the clinic, not a provider.`,
  suspend: (name) => `${name} is suspended: none of their times are offered until they are reactivated.`,
  reactivate: (name) => `${name} is reactivated: their times are offered again.`,
  remove: (name) => `${name} is no longer a provider: they stay a member of the clinic.`,
};
/** Leaving the providers list asks first. */
export const asksFirst = new Set<ProviderAction>(["reject", "remove"]);

/** One lifecycle action through the typed client. */
export function runAction(clinicId: string, userId: string, action: ProviderAction): Promise<unknown> {
  const key = { clinic_id: clinicId, user_id: userId };
  switch (action) {
    case "approve":
      return client.providers.approve.mutate(key);
    case "reject":
      return client.providers.reject.mutate(key);
    case "suspend":
      return client.providers.suspend.mutate(key);
    case "reactivate":
      return client.providers.reactivate.mutate(key);
    case "remove":
      return client.providers.remove.mutate(key);
  }
}

/** `service_ids` of a PROVIDER_HAS_SERVICES refusal (§2: the body lists them), else undefined. */
export function blockingServices(error: unknown): string[] | undefined {
  const problem = problemOf(error);
  if (problem?.code !== "PROVIDER_HAS_SERVICES") return undefined;
  const ids = problem.extra.service_ids;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : [];
}
