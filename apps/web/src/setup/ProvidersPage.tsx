import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import { client } from "../api.ts";
import { CalendarsDialog } from "../CalendarsDialog.tsx";
import { strings } from "../i18n.ts";
import type { SetupAreaProps } from "./areas.ts";
import { ConfirmDialog } from "./ConfirmDialog.tsx";
import { AddMemberForm, ProviderDialog } from "./ProviderForms.tsx";
import { ReassignDialog } from "./ReassignDialog.tsx";
import { problemText } from "./problem.tsx";
import {
  type Provider,
  type ProviderAction,
  actionWords,
  actionsOf,
  asksFirst,
  blockingServices,
  doneWords,
  runAction,
  statusWords,
} from "./providerActions.ts";

/**
 * The providers of a clinic `/desk/{clinic_id}/setup/providers` (CONTRACT §23): the seed's list
 * (name, e-mail, phone, role, status) with each one's calendars (§18, the desk's dialog) and
 * details; for CLINIC_ADMIN also adding a member or provider by e-mail (M1), the lifecycle actions
 * (P3–P7, each refusal's §2 answer in the row; PROVIDER_HAS_SERVICES opens the services to
 * reassign) and the per-clinic name, phone, role, notes and daily limit (M3).
 */
export function ProvidersPage({ clinicId, clinic, access }: SetupAreaProps) {
  const id = useId();
  const queryClient = useQueryClient();
  const admin = access === "admin";
  const heading = useRef<HTMLHeadingElement>(null);
  const table = useRef<HTMLTableElement>(null);
  const [notice, setNotice] = useState("");
  const [rowProblem, setRowProblem] = useState<{ userId: string; text: string } | undefined>();
  const [confirming, setConfirming] = useState<{ provider: Provider; action: ProviderAction } | undefined>();
  const [reassign, setReassign] = useState<
    { provider: Provider; action: ProviderAction; serviceIds: string[]; detail: string } | undefined
  >();
  const [details, setDetails] = useState<Provider | undefined>();
  const [calendarsOf, setCalendarsOf] = useState<Provider | undefined>();
  const [focusRow, setFocusRow] = useState<string | undefined>();

  const providers = useQuery({
    queryKey: ["setup-providers", clinicId, "list"],
    queryFn: () => client.providers.list.query({ clinic_id: clinicId, limit: 500 }),
  });
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ["setup-providers", clinicId] }),
      queryClient.invalidateQueries({ queryKey: ["setup-services", clinicId] }),
      queryClient.invalidateQueries({ queryKey: ["setup-members", clinicId] }),
    ]);
  // After an action the row's buttons change: the focus goes to the row's first one (or, when the
  // row left the list, to the heading), never to the page's start.
  useEffect(() => {
    if (focusRow === undefined || !providers.data) return;
    const button = table.current?.querySelector<HTMLElement>(`[data-row="${focusRow}"] .row-actions button`);
    (button ?? heading.current)?.focus();
    setFocusRow(undefined);
  }, [focusRow, providers.data]);

  const act = useMutation({
    mutationFn: (input: { provider: Provider; action: ProviderAction }) =>
      runAction(clinicId, input.provider.user_id, input.action),
    onMutate: () => {
      setRowProblem(undefined);
      setNotice("");
    },
    onSuccess: async (_answer, input) => {
      setConfirming(undefined);
      setNotice(doneWords[input.action](input.provider.full_name));
      await refresh();
      setFocusRow(input.provider.user_id);
    },
    onError: async (error, input) => {
      const serviceIds = blockingServices(error);
      setConfirming(undefined);
      if (serviceIds) {
        setReassign({ ...input, serviceIds, detail: problemText(error) });
        return;
      }
      setRowProblem({ userId: input.provider.user_id, text: problemText(error) });
      // The list may be out of date (someone else acted meanwhile): show what is true now.
      await refresh();
      setFocusRow(input.provider.user_id);
    },
  });

  const list = providers.data?.providers ?? [];
  const captionId = `${id}-caption`;
  const words = strings.en;

  return (
    <>
      <h2 ref={heading} tabIndex={-1} className="focus-heading" id={`${id}-heading`}>
        All providers
      </h2>
      <p className="hint">
        The clinic&apos;s providers: the people patients book. A new provider is pending until approved; only approved
        providers are offered. {admin ? "" : "You can see them; only a clinic administrator can change them."}
      </p>
      <p role="status" className="setup-notice" data-testid="providers-notice">
        {notice}
      </p>
      {admin && (
        <AddMemberForm
          clinicId={clinicId}
          onAdded={async (text) => {
            setNotice(text);
            await refresh();
          }}
        />
      )}
      {providers.isError ? (
        <p role="alert" className="problem">
          {problemText(providers.error)}
        </p>
      ) : !providers.data ? (
        <p role="status">Loading the providers…</p>
      ) : list.length === 0 ? (
        <p>The clinic has no providers yet.</p>
      ) : (
        <div className="table-scroll" role="region" tabIndex={0} aria-labelledby={captionId}>
          <table className="setup-table providers-table" ref={table} data-testid="providers-table">
            <caption id={captionId}>Providers of {clinic.name}, by name</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">E-mail</th>
                <th scope="col">Phone</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.map((p) => {
                const problemId = `${id}-problem-${p.user_id}`;
                const problem = rowProblem?.userId === p.user_id ? rowProblem.text : undefined;
                return (
                  <tr key={p.user_id} data-row={p.user_id} data-testid="provider-row">
                    <th scope="row">{p.full_name}</th>
                    <td>{p.email}</td>
                    <td>{p.phone_e164 ?? "—"}</td>
                    <td>{p.clinic_role}</td>
                    <td data-testid="provider-status" data-status={p.status}>
                      {statusWords[p.status]}
                    </td>
                    <td>
                      <div className="row-actions">
                        {admin &&
                          actionsOf[p.status].map((action) => (
                            <button
                              key={action}
                              type="button"
                              className={action === "remove" || action === "reject" ? "secondary" : undefined}
                              aria-label={`${actionWords[action]} ${p.full_name}`}
                              aria-describedby={problem ? problemId : undefined}
                              disabled={act.isPending}
                              onClick={() => {
                                if (asksFirst.has(action)) setConfirming({ provider: p, action });
                                else act.mutate({ provider: p, action });
                              }}
                            >
                              {actionWords[action]}
                            </button>
                          ))}
                        <button
                          type="button"
                          className="secondary"
                          id={`details-${p.user_id}`}
                          aria-label={`${admin ? "Edit" : "Details of"} ${p.full_name}`}
                          onClick={() => {
                            setDetails(p);
                          }}
                        >
                          {admin ? "Edit" : "Details"}
                        </button>
                        <button
                          type="button"
                          className="secondary"
                          id={`calendars-${p.user_id}`}
                          aria-label={words.calendarsOf(p.full_name)}
                          onClick={() => {
                            setCalendarsOf(p);
                          }}
                        >
                          {words.calendars}
                        </button>
                      </div>
                      {problem && (
                        <p id={problemId} role="alert" className="field-error" data-testid="row-problem">
                          {problem}
                        </p>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {confirming && (
        <ConfirmDialog
          title={
            confirming.action === "reject"
              ? `Reject ${confirming.provider.full_name} as a provider?`
              : `Remove ${confirming.provider.full_name} as a provider?`
          }
          confirmLabel={confirming.action === "reject" ? "Yes, reject" : "Yes, remove"}
          busy={act.isPending}
          onConfirm={() => {
            act.mutate(confirming);
          }}
          onClose={() => {
            const opener = confirming.provider.user_id;
            setConfirming(undefined);
            if (!act.isPending) setFocusRow(opener);
          }}
        >
          <p>
            They stay a member of {clinic.name}, but are no longer offered for booking; their hours are kept, should
            they become a provider again (then pending approval). Appointments already made stay as they are.
          </p>
        </ConfirmDialog>
      )}
      {reassign && (
        <ReassignDialog
          clinicId={clinicId}
          provider={reassign.provider}
          action={reassign.action}
          serviceIds={reassign.serviceIds}
          detail={reassign.detail}
          providers={list}
          onDone={async (text) => {
            setReassign(undefined);
            setNotice(text);
            await refresh();
            setFocusRow(reassign.provider.user_id);
          }}
          onClose={() => {
            const opener = reassign.provider.user_id;
            setReassign(undefined);
            void refresh();
            setFocusRow(opener);
          }}
        />
      )}
      {details && (
        <ProviderDialog
          clinicId={clinicId}
          provider={details}
          admin={admin}
          onSaved={async (text) => {
            setNotice(text);
            await refresh();
          }}
          onClose={() => {
            const opener = details.user_id;
            setDetails(undefined);
            document.getElementById(`details-${opener}`)?.focus();
          }}
        />
      )}
      {calendarsOf && (
        <CalendarsDialog
          clinicId={clinicId}
          provider={calendarsOf}
          timeZone={clinic.timezone}
          onChanged={() => undefined}
          onClose={() => {
            const opener = calendarsOf.user_id;
            setCalendarsOf(undefined);
            document.getElementById(`calendars-${opener}`)?.focus();
          }}
        />
      )}
    </>
  );
}
