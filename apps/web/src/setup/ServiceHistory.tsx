import { useQuery } from "@tanstack/react-query";
import type { RouterOutputs } from "@clinic/client";
import { useId } from "react";
import { client } from "../api.ts";
import type { Clinic } from "./areas.ts";
import { instantText } from "./format.ts";
import { problemText } from "./problem.tsx";
import { serviceFieldLabel } from "./serviceForm.ts";

type Entry = RouterOutputs["audit"]["list"]["entries"][number];

const actionWords: Record<Entry["action"], string> = {
  SERVICE_CREATED: "Created",
  SERVICE_UPDATED: "Changed",
  SERVICE_DELETED: "Deleted",
  PATIENT_ERASED: "Patient erased",
  RETENTION_APPLIED: "Retention applied",
};

const stringOrNull = (value: unknown) => (typeof value === "string" ? value : null);

/** A provider change of an audit entry (A1's details), when it has one. */
export function providerChangeOf(
  entry: Pick<Entry, "details">,
): { from: string | null; to: string | null; toName: string | null } | undefined {
  const d = entry.details;
  if (!("new_provider_id" in d)) return undefined;
  return {
    from: stringOrNull(d.old_provider_id),
    to: stringOrNull(d.new_provider_id),
    toName: stringOrNull(d.provider_name),
  };
}

/** The fields an entry names as changed, in the form's words, the provider apart (it has its own line). */
function changedWords(entry: Entry): string {
  const fields = Array.isArray(entry.details.changed_fields) ? entry.details.changed_fields : [];
  return fields
    .filter((f): f is string => typeof f === "string" && f !== "provider_id" && f !== "deleted_at")
    .map((f) => (serviceFieldLabel(f) ?? f).toLowerCase())
    .join(", ");
}

/**
 * A service's history (A1, newest first): when (clinic time), who (the acting user's e-mail), and
 * what — created, the fields changed, deleted — with a provider change as "from Anna Berg to Ben
 * Kluge" ("any provider" for none). An earlier provider's name is the member's name in this clinic
 * (M2), else the name an earlier entry recorded for them, else "a former member".
 */
export function ServiceHistory(props: { clinicId: string; clinic: Clinic; serviceId: string }) {
  const { clinicId, serviceId } = props;
  const id = useId();
  const audit = useQuery({
    queryKey: ["setup-audit", clinicId, serviceId],
    queryFn: () =>
      client.audit.list.query({ clinic_id: clinicId, resource_type: "service", resource_id: serviceId, limit: 100 }),
  });
  const members = useQuery({
    queryKey: ["setup-members", clinicId],
    queryFn: () => client.members.list.query({ clinic_id: clinicId, limit: 500 }),
  });
  const names = new Map<string, string>();
  for (const e of [...(audit.data?.entries ?? [])].reverse()) {
    const change = providerChangeOf(e);
    if (change?.to && change.toName) names.set(change.to, change.toName);
  }
  for (const m of members.data?.members ?? []) names.set(m.user_id, m.full_name);
  const who = (userId: string | null) => (userId === null ? "any provider" : (names.get(userId) ?? "a former member"));
  const captionId = `${id}-caption`;

  return (
    <section aria-labelledby={`${id}-heading`} className="setup-section" data-testid="service-history">
      <h3 id={`${id}-heading`}>History</h3>
      {audit.isError ? (
        <p role="alert" className="problem">
          {problemText(audit.error)}
        </p>
      ) : !audit.data || members.isPending ? (
        <p role="status">Loading the history…</p>
      ) : audit.data.entries.length === 0 ? (
        <p>No changes recorded.</p>
      ) : (
        <div className="table-scroll" role="region" tabIndex={0} aria-labelledby={captionId}>
          <table className="setup-table history-table">
            <caption id={captionId}>
              Changes to this service, newest first (clinic time, {props.clinic.timezone})
            </caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
              </tr>
            </thead>
            <tbody>
              {audit.data.entries.map((e) => {
                const change = providerChangeOf(e);
                const fields = changedWords(e);
                return (
                  <tr key={e.id} data-testid="history-entry">
                    <th scope="row">{instantText(e.created_at, props.clinic.timezone)}</th>
                    <td>{e.user_email}</td>
                    <td>
                      {actionWords[e.action]}
                      {e.action === "SERVICE_UPDATED" && fields ? `: ${fields}` : ""}
                      {change && (
                        <span className="provider-change" data-testid="provider-change">
                          {e.action === "SERVICE_CREATED"
                            ? ` for ${who(change.to)}`
                            : `${fields ? "; " : ": "}provider from ${who(change.from)} to ${who(change.to)}`}
                        </span>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
