import { useMutation, useQuery } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import { client } from "../api.ts";
import { type Provider, type ProviderAction, blockingServices, runAction, statusWords } from "./providerActions.ts";
import { problemText, useFieldProblems } from "./problem.tsx";

/** One service's move was refused: which, and the refusal. */
class ServiceRefused extends Error {
  constructor(
    readonly serviceId: string,
    readonly refusal: unknown,
  ) {
    super("the service's move was refused");
  }
}

/** Where a blocking service goes: another provider (user id), any provider, or out of booking. */
type Destination = "" | "any" | "deactivate" | `provider:${string}`;

/**
 * `PROVIDER_HAS_SERVICES` answered (§2: the body lists `service_ids`): the services that keep the
 * provider from leaving, each with where it goes — another provider, any provider, or not bookable
 * any more — and one button that moves them (S2 each) and then asks the removal again. A refusal
 * of one service lands at its choice; a service assigned meanwhile joins the list.
 */
export function ReassignDialog(props: {
  clinicId: string;
  provider: Provider;
  action: ProviderAction;
  serviceIds: string[];
  detail: string;
  providers: Provider[];
  onDone: (text: string) => Promise<void>;
  onClose: () => void;
}) {
  const { clinicId, provider } = props;
  const id = useId();
  const dialog = useRef<HTMLDialogElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const [serviceIds, setServiceIds] = useState(props.serviceIds);
  const [destinations, setDestinations] = useState<Record<string, Destination>>({});
  const services = useQuery({
    queryKey: ["setup-services", clinicId, "list"],
    queryFn: () => client.services.list.query({ clinic_id: clinicId, include_inactive: true, limit: 500 }),
  });
  const blocking = (services.data?.services ?? []).filter((s) => serviceIds.includes(s.id));
  const fields = serviceIds.map((s) => `service.${s}`);
  const problems = useFieldProblems({ fields });
  const others = props.providers.filter((p) => p.user_id !== provider.user_id && p.status !== "suspended");
  const verb = props.action === "reject" ? "reject" : "remove";

  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) {
      element.showModal();
      heading.current?.focus();
    }
  }, []);

  const move = useMutation({
    mutationFn: async () => {
      for (const s of blocking) {
        const to = destinations[s.id] ?? "";
        try {
          if (to === "deactivate")
            await client.services.update.mutate({ clinic_id: clinicId, id: s.id, is_active: false });
          else
            await client.services.update.mutate({
              clinic_id: clinicId,
              id: s.id,
              provider_id: to === "any" ? null : to.slice("provider:".length),
            });
        } catch (error) {
          throw new ServiceRefused(s.id, error);
        }
      }
      await runAction(clinicId, provider.user_id, props.action);
    },
    onSuccess: async () => {
      const moved = blocking.length;
      await props.onDone(
        `${provider.full_name} is no longer a provider; ${String(moved)} service${moved === 1 ? "" : "s"} moved first.`,
      );
    },
    onError: (error) => {
      if (error instanceof ServiceRefused) {
        problems.check({ [`service.${error.serviceId}`]: problemText(error.refusal) });
        return;
      }
      // Another service was assigned meanwhile: it joins the list, and the person chooses again.
      const still = blockingServices(error);
      if (still) {
        setServiceIds(still);
        problems.check(
          Object.fromEntries(
            still
              .filter((s) => !serviceIds.includes(s))
              .map((s) => [`service.${s}`, "Assigned meanwhile: choose where it goes too."]),
          ),
        );
        return;
      }
      problems.show(error);
    },
  });

  return (
    <dialog
      ref={dialog}
      className="setup-dialog"
      aria-labelledby={`${id}-heading`}
      data-testid="reassign-dialog"
      onClose={props.onClose}
    >
      <h2 id={`${id}-heading`} ref={heading} tabIndex={-1} className="focus-heading">
        {provider.full_name} still provides{" "}
        {serviceIds.length === 1 ? "a service" : `${String(serviceIds.length)} services`}
      </h2>
      <p role="alert" className="problem" data-testid="reassign-detail">
        {props.detail}
      </p>
      <p>
        To {verb} {provider.full_name}, choose for each service where it goes: to another provider, to any provider, or
        out of booking (it keeps its provider, inactive).
      </p>
      {services.isError ? (
        <p role="alert" className="problem">
          {problemText(services.error)}
        </p>
      ) : !services.data ? (
        <p role="status">Loading the services…</p>
      ) : (
        <form
          ref={problems.formRef}
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            const missing = Object.fromEntries(
              blocking
                .filter((s) => (destinations[s.id] ?? "") === "")
                .map((s) => [`service.${s.id}`, `Choose where “${s.name}” goes.`]),
            );
            if (Object.keys(missing).length > 0) problems.check(missing);
            else move.mutate();
          }}
        >
          <ul className="reassign-list" data-testid="blocking-services">
            {blocking.map((s) => {
              const field = `service.${s.id}`;
              return (
                <li key={s.id} className="field" data-testid="blocking-service">
                  <label htmlFor={problems.idOf(field)}>Where “{s.name}” goes</label>
                  <select
                    {...problems.props(field)}
                    value={destinations[s.id] ?? ""}
                    onChange={(e) => {
                      const value = e.target.value;
                      const to: Destination =
                        value === "any" || value === "deactivate"
                          ? value
                          : value.startsWith("provider:")
                            ? `provider:${value.slice("provider:".length)}`
                            : "";
                      setDestinations((d) => ({ ...d, [s.id]: to }));
                      problems.clear(field);
                    }}
                  >
                    <option value="">Choose…</option>
                    {others.map((p) => (
                      <option key={p.user_id} value={`provider:${p.user_id}`}>
                        {p.full_name}
                        {p.status === "approved" ? "" : ` (${statusWords[p.status].toLowerCase()})`}
                      </option>
                    ))}
                    <option value="any">Any provider</option>
                    <option value="deactivate">Not bookable (inactive, stays with {provider.full_name})</option>
                  </select>
                  {problems.error(field)}
                </li>
              );
            })}
          </ul>
          {problems.alert}
          <div className="dialog-actions">
            <button type="submit" disabled={move.isPending}>
              Move the services and {verb} {provider.full_name}
            </button>
            <button
              type="button"
              className="secondary"
              onClick={() => {
                dialog.current?.close();
              }}
            >
              Cancel
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
}
