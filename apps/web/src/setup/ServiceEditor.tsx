import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { RouterOutputs } from "@clinic/client";
import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { client } from "../api.ts";
import { answerTypeWords, QuestionsEditor } from "./QuestionsEditor.tsx";
import type { Clinic, SetupAreaProps } from "./areas.ts";
import { ConfirmDialog } from "./ConfirmDialog.tsx";
import { minutesText } from "./format.ts";
import { hrefWith } from "./location.ts";
import { suggestName } from "./naming.ts";
import { problemText, useFieldProblems } from "./problem.tsx";
import { ServiceHistory } from "./ServiceHistory.tsx";
import {
  type Service,
  type ServiceDraft,
  type ServiceFields,
  draftOf,
  fieldsOf,
  patchOf,
  serviceFieldLabel,
  serviceFields,
  serviceLabels,
} from "./serviceForm.ts";

type Provider = RouterOutputs["providers"]["list"]["providers"][number];

const statusWords: Record<Provider["status"], string> = {
  approved: "approved",
  pending: "pending approval",
  suspended: "suspended",
};

/** A provider as the provider select names them: their status when it keeps them from being booked. */
const providerLabel = (p: Provider) =>
  p.status === "approved" ? p.full_name : `${p.full_name} (${statusWords[p.status]})`;

/**
 * One service's page: the form (CLINIC_ADMIN) or its facts (STAFF), then for CLINIC_ADMIN "Delete
 * service…" and its history (A1). `serviceId` undefined: a new service.
 */
export function ServiceEditor(props: {
  clinicId: string;
  clinic: Clinic;
  access: SetupAreaProps["access"];
  serviceId: string | undefined;
  notice: string;
  onNotice: (text: string) => void;
  onOpen: (id: string | null) => void;
}) {
  const { clinicId, serviceId, access } = props;
  const queryClient = useQueryClient();
  const heading = useRef<HTMLHeadingElement>(null);
  const [deleting, setDeleting] = useState(false);
  const service = useQuery({
    queryKey: ["setup-services", clinicId, "get", serviceId],
    queryFn: () => client.services.get.query({ clinic_id: clinicId, id: serviceId ?? "" }),
    enabled: serviceId !== undefined,
  });
  const providers = useQuery({
    queryKey: ["setup-providers", clinicId, "list"],
    queryFn: () => client.providers.list.query({ clinic_id: clinicId, limit: 500 }),
  });
  const services = useQuery({
    queryKey: ["setup-services", clinicId, "list"],
    queryFn: () => client.services.list.query({ clinic_id: clinicId, include_inactive: true, limit: 500 }),
  });
  const resources = useQuery({
    queryKey: ["setup-resources", clinicId],
    queryFn: () => client.resources.list.query({ clinic_id: clinicId }),
  });
  const remove = useMutation({
    mutationFn: (id: string) => client.services.remove.mutate({ clinic_id: clinicId, id }),
    onSuccess: async () => {
      const name = service.data?.name ?? "The service";
      await queryClient.invalidateQueries({ queryKey: ["setup-services", clinicId] });
      props.onOpen(null);
      props.onNotice(`Deleted “${name}”: it is no longer offered; appointments made for it keep it.`);
    },
  });
  // The page's heading takes the focus when a service opens, so a screen reader starts there.
  useEffect(() => {
    heading.current?.focus();
  }, [service.isSuccess]);

  const back = (
    <p>
      <a
        href={hrefWith("service", null)}
        onClick={(e) => {
          e.preventDefault();
          props.onOpen(null);
        }}
      >
        Back to all services
      </a>
    </p>
  );
  const failed = service.error ?? providers.error ?? services.error ?? resources.error;
  if (failed) {
    return (
      <>
        {back}
        <p role="alert" className="problem">
          {problemText(failed)}
        </p>
      </>
    );
  }
  if ((serviceId !== undefined && !service.data) || !providers.data || !services.data || !resources.data)
    return (
      <>
        {back}
        <p role="status">Loading…</p>
      </>
    );
  const title = service.data ? service.data.name : "New service";
  return (
    <>
      {back}
      <h2 ref={heading} tabIndex={-1} className="focus-heading" data-testid="service-heading">
        {title}
      </h2>
      <p role="status" className="setup-notice" data-testid="service-notice">
        {props.notice}
      </p>
      {access === "admin" ? (
        <ServiceForm
          clinicId={clinicId}
          service={service.data}
          providers={providers.data.providers}
          services={services.data.services}
          kinds={[...new Set(resources.data.resources.filter((r) => r.is_active).map((r) => r.kind))]}
          onSaved={async (saved, created) => {
            await queryClient.invalidateQueries({ queryKey: ["setup-services", clinicId] });
            await queryClient.invalidateQueries({ queryKey: ["setup-audit", clinicId, saved.id] });
            if (created) props.onOpen(saved.id);
            props.onNotice(created ? `Created “${saved.name}”.` : `Saved “${saved.name}”.`);
          }}
          onNotice={props.onNotice}
        />
      ) : (
        service.data && <ServiceFacts service={service.data} />
      )}
      {access === "admin" && serviceId !== undefined && service.data && (
        <section aria-labelledby="service-delete" className="setup-section">
          <h3 id="service-delete">Delete</h3>
          <p className="hint">
            A deleted service leaves the lists, search and booking; appointments made for it keep it. To stop bookings
            for a while, untick “Bookable (active)” instead.
          </p>
          <button
            type="button"
            className="secondary"
            id="service-delete-open"
            onClick={() => {
              remove.reset();
              setDeleting(true);
            }}
          >
            Delete service…
          </button>
          {deleting && (
            <ConfirmDialog
              title={`Delete “${service.data.name}”?`}
              confirmLabel="Yes, delete it"
              busy={remove.isPending}
              problem={
                remove.error ? (
                  <p role="alert" className="problem">
                    {problemText(remove.error)}
                  </p>
                ) : undefined
              }
              onConfirm={() => {
                remove.mutate(serviceId);
              }}
              onClose={() => {
                setDeleting(false);
                document.getElementById("service-delete-open")?.focus();
              }}
            >
              <p>Patients can no longer book it, and it leaves every list. Appointments already made keep it.</p>
            </ConfirmDialog>
          )}
        </section>
      )}
      {service.data &&
        (access === "admin" ? (
          <ServiceHistory clinicId={clinicId} clinic={props.clinic} serviceId={service.data.id} />
        ) : (
          <p className="hint">The history of changes to a service is for clinic administrators.</p>
        ))}
    </>
  );
}

/** A labelled number input with a hint; its messages from `problems`. */
function NumberField(props: {
  field: keyof ServiceDraft & keyof typeof serviceLabels;
  value: string;
  hint: string;
  min: number;
  max: number;
  problems: ReturnType<typeof useFieldProblems>;
  onChange: (value: string) => void;
}) {
  const { field, problems } = props;
  const hintId = `${problems.idOf(field)}-hint`;
  return (
    <div className="field">
      <label htmlFor={problems.idOf(field)}>{serviceLabels[field]}</label>
      <input
        {...problems.props(field, hintId)}
        type="number"
        inputMode="numeric"
        min={props.min}
        max={props.max}
        step={1}
        value={props.value}
        onChange={(e) => {
          props.onChange(e.target.value);
          problems.clear(field);
        }}
      />
      <span id={hintId} className="field-hint">
        {props.hint}
      </span>
      {problems.error(field)}
    </div>
  );
}

/**
 * S1/S2's form: every field of a service, grouped as the contract groups them (§4, §8, §14, §19).
 * `noValidate`: the server judges, and its refusal lands at the field it names (problem.tsx).
 */
function ServiceForm(props: {
  clinicId: string;
  service: Service | undefined;
  providers: Provider[];
  services: RouterOutputs["services"]["list"]["services"];
  kinds: string[];
  onSaved: (service: Service, created: boolean) => Promise<void>;
  onNotice: (text: string) => void;
}) {
  const { service, providers } = props;
  const id = useId();
  const [draft, setDraft] = useState<ServiceDraft>(() => draftOf(service));
  const [newKind, setNewKind] = useState("");
  const problems = useFieldProblems({
    fields: serviceFields(draft),
    labelOf: serviceFieldLabel,
    codes: { NOT_A_PROVIDER: "provider_id", SERVICE_INACTIVE: "is_active" },
  });
  const save = useMutation({
    mutationFn: async (fields: ServiceFields): Promise<{ service: Service; created: boolean } | undefined> => {
      if (!service) {
        return {
          service: await client.services.create.mutate({ clinic_id: props.clinicId, ...fields }),
          created: true,
        };
      }
      const patch = patchOf(fields, service);
      if (Object.keys(patch).length === 0) return undefined;
      return {
        service: await client.services.update.mutate({ clinic_id: props.clinicId, id: service.id, ...patch }),
        created: false,
      };
    },
    onSuccess: async (result) => {
      problems.clear();
      if (!result) {
        props.onNotice("Nothing to save: the form is as the service is.");
        return;
      }
      setDraft(draftOf(result.service));
      await props.onSaved(result.service, result.created);
    },
    onError: (error) => {
      problems.show(error);
    },
  });
  const set = <K extends keyof ServiceDraft>(field: K, value: ServiceDraft[K]) => {
    setDraft((d) => ({ ...d, [field]: value }));
    problems.clear(field);
  };

  const providerNames = providers.map((p) => p.full_name);
  const chosen = providers.find((p) => p.user_id === draft.provider_id);
  const suggestion = suggestName({
    serviceId: service?.id,
    name: draft.name,
    providerName: draft.provider === "one" ? (chosen?.full_name ?? null) : null,
    services: props.services,
    providerNames,
  });
  // A provider who is no longer one (an inactive service may keep them) stays visible as chosen.
  const lost = draft.provider_id !== "" && !chosen ? (service?.provider_name ?? "a former provider") : undefined;
  const kinds = [...new Set([...props.kinds, ...draft.required_resource_kinds])].sort();
  const field = (name: string, label: ReactNode, control: ReactNode, hint?: string) => (
    <div className="field">
      <label htmlFor={problems.idOf(name)}>{label}</label>
      {control}
      {hint && (
        <span id={`${problems.idOf(name)}-hint`} className="field-hint">
          {hint}
        </span>
      )}
      {problems.error(name)}
    </div>
  );
  const hintOf = (name: string) => `${problems.idOf(name)}-hint`;

  return (
    <form
      ref={problems.formRef}
      className="setup-form"
      noValidate
      aria-label={service ? `Edit ${service.name}` : "New service"}
      onSubmit={(e) => {
        e.preventDefault();
        const result = fieldsOf(draft);
        if ("problems" in result) problems.check(result.problems);
        else save.mutate(result.fields);
      }}
    >
      <fieldset>
        <legend>The service</legend>
        {field(
          "name",
          serviceLabels.name,
          <input
            {...problems.props("name", hintOf("name"))}
            value={draft.name}
            maxLength={200}
            autoComplete="off"
            onChange={(e) => {
              set("name", e.target.value);
            }}
          />,
          "What patients, the desk and the booking agent see. Several providers offering the same: append the provider, “Massage - Anna Berg”.",
        )}
        <div aria-live="polite" data-testid="name-suggestion-region">
          {suggestion && (
            <div className="name-suggestion" data-testid="name-suggestion">
              <p>
                Other services offer “{suggestion.offering}” too. The clinic&apos;s naming convention appends the
                provider&apos;s name, so patients and the booking agent can tell them apart.
              </p>
              {suggestion.taken !== undefined ? (
                <p className="hint" data-testid="name-taken">
                  “{suggestion.taken}” is already this provider&apos;s service for “{suggestion.offering}”: is this one
                  needed too?
                </p>
              ) : (
                suggestion.name !== draft.name.trim() && (
                  <button
                    type="button"
                    className="secondary"
                    onClick={() => {
                      set("name", suggestion.name);
                    }}
                  >
                    Use “{suggestion.name}”
                  </button>
                )
              )}
              {suggestion.unnamed.length > 0 && (
                <p className="hint">
                  {suggestion.unnamed.map((u) => `“${u.name}” could become “${u.suggestion}”`).join("; ")}.
                </p>
              )}
            </div>
          )}
        </div>
        <NumberField
          field="duration_min"
          value={draft.duration_min}
          min={1}
          max={1440}
          hint="1 to 1440 minutes. Start times follow it unless “Start times every” says otherwise."
          problems={problems}
          onChange={(v) => {
            set("duration_min", v);
          }}
        />
        {field(
          "price",
          serviceLabels.price,
          <input
            {...problems.props("price", hintOf("price"))}
            inputMode="decimal"
            autoComplete="off"
            value={draft.price}
            onChange={(e) => {
              set("price", e.target.value);
            }}
          />,
          "An amount such as 49.90; empty: no price.",
        )}
        <div className="field">
          <span className="choice">
            <input
              {...problems.props("is_active", hintOf("is_active"))}
              type="checkbox"
              checked={draft.is_active}
              onChange={(e) => {
                set("is_active", e.target.checked);
              }}
            />
            <label htmlFor={problems.idOf("is_active")}>{serviceLabels.is_active}</label>
          </span>
          <span id={hintOf("is_active")} className="field-hint">
            Untick to stop bookings without deleting the service.
          </span>
          {problems.error("is_active")}
        </div>
      </fieldset>

      <fieldset aria-describedby={`${id}-provider-hint`}>
        <legend>Who provides it</legend>
        <p id={`${id}-provider-hint`} className="field-hint">
          One provider: the service is booked with them, in their hours within the clinic&apos;s. Any provider: every
          approved provider of the clinic may be booked for it.
        </p>
        <span className="choice">
          <input
            id={`${id}-any`}
            type="radio"
            name={`${id}-provider`}
            checked={draft.provider === "any"}
            onChange={() => {
              set("provider", "any");
              problems.clear("provider_id");
            }}
          />
          <label htmlFor={`${id}-any`}>Any provider</label>
        </span>
        <span className="choice">
          <input
            id={`${id}-one`}
            type="radio"
            name={`${id}-provider`}
            checked={draft.provider === "one"}
            onChange={() => {
              set("provider", "one");
            }}
          />
          <label htmlFor={`${id}-one`}>One provider</label>
        </span>
        {draft.provider === "one" &&
          field(
            "provider_id",
            serviceLabels.provider_id,
            <select
              {...problems.props("provider_id")}
              value={draft.provider_id}
              onChange={(e) => {
                set("provider_id", e.target.value);
              }}
            >
              <option value="">Choose a provider…</option>
              {lost !== undefined && <option value={draft.provider_id}>{lost} (no longer a provider)</option>}
              {providers.map((p) => (
                <option key={p.user_id} value={p.user_id}>
                  {providerLabel(p)}
                </option>
              ))}
            </select>,
          )}
      </fieldset>

      <fieldset>
        <legend>Booking rules</legend>
        <NumberField
          field="buffer_before_min"
          value={draft.buffer_before_min}
          min={0}
          max={240}
          hint="0 to 240: time kept free before each appointment."
          problems={problems}
          onChange={(v) => {
            set("buffer_before_min", v);
          }}
        />
        <NumberField
          field="buffer_after_min"
          value={draft.buffer_after_min}
          min={0}
          max={240}
          hint="0 to 240: time kept free after each appointment."
          problems={problems}
          onChange={(v) => {
            set("buffer_after_min", v);
          }}
        />
        <NumberField
          field="slot_step_min"
          value={draft.slot_step_min}
          min={5}
          max={1440}
          hint="5 to 1440; empty: every duration (a 30-minute service starts at 9:00, 9:30, …)."
          problems={problems}
          onChange={(v) => {
            set("slot_step_min", v);
          }}
        />
        <NumberField
          field="min_notice_min"
          value={draft.min_notice_min}
          min={0}
          max={525_600}
          hint="0 to 525600: how long before its start a time can still be booked."
          problems={problems}
          onChange={(v) => {
            set("min_notice_min", v);
          }}
        />
        <NumberField
          field="booking_horizon_days"
          value={draft.booking_horizon_days}
          min={1}
          max={730}
          hint="1 to 730 days after today; empty: no limit."
          problems={problems}
          onChange={(v) => {
            set("booking_horizon_days", v);
          }}
        />
        <div className="field">
          <span className="choice">
            <input
              {...problems.props("requires_confirmation")}
              type="checkbox"
              checked={draft.requires_confirmation}
              onChange={(e) => {
                set("requires_confirmation", e.target.checked);
              }}
            />
            <label htmlFor={problems.idOf("requires_confirmation")}>{serviceLabels.requires_confirmation}</label>
          </span>
          {problems.error("requires_confirmation")}
        </div>
      </fieldset>

      <fieldset>
        <legend>Group sessions, rooms and equipment</legend>
        <NumberField
          field="capacity"
          value={draft.capacity}
          min={1}
          max={200}
          hint="1 to 200 patients at one time; more than 1 makes it a group session."
          problems={problems}
          onChange={(v) => {
            set("capacity", v);
          }}
        />
        <fieldset className="kinds" {...problems.props("required_resource_kinds", `${id}-kinds-hint`)}>
          <legend>{serviceLabels.required_resource_kinds}</legend>
          <p id={`${id}-kinds-hint`} className="field-hint">
            A booking takes one free resource of each kind ticked; without a free one, the time is not offered.
          </p>
          {kinds.length === 0 && <p className="hint">The clinic has no rooms or equipment yet.</p>}
          {kinds.map((kind) => {
            const known = props.kinds.includes(kind);
            return (
              <span className="choice" key={kind}>
                <input
                  id={`${id}-kind-${kind}`}
                  type="checkbox"
                  checked={draft.required_resource_kinds.includes(kind)}
                  onChange={(e) => {
                    set(
                      "required_resource_kinds",
                      e.target.checked
                        ? [...draft.required_resource_kinds, kind]
                        : draft.required_resource_kinds.filter((k) => k !== kind),
                    );
                  }}
                />
                <label htmlFor={`${id}-kind-${kind}`}>
                  {kind}
                  {known ? "" : " (the clinic has no active resource of this kind)"}
                </label>
              </span>
            );
          })}
          <div className="inline-add">
            <label htmlFor={`${id}-new-kind`}>Another kind</label>
            <input
              id={`${id}-new-kind`}
              value={newKind}
              autoComplete="off"
              onChange={(e) => {
                setNewKind(e.target.value);
              }}
              onKeyDown={(e) => {
                if (e.key === "Enter") {
                  e.preventDefault();
                  const kind = newKind.trim();
                  if (kind && !draft.required_resource_kinds.includes(kind))
                    set("required_resource_kinds", [...draft.required_resource_kinds, kind]);
                  setNewKind("");
                }
              }}
            />
            <button
              type="button"
              className="secondary"
              onClick={() => {
                const kind = newKind.trim();
                if (kind && !draft.required_resource_kinds.includes(kind))
                  set("required_resource_kinds", [...draft.required_resource_kinds, kind]);
                setNewKind("");
              }}
            >
              Add the kind
            </button>
          </div>
          {problems.error("required_resource_kinds")}
        </fieldset>
      </fieldset>

      <QuestionsEditor
        questions={draft.questions}
        problems={problems}
        onChange={(questions) => {
          setDraft((d) => ({ ...d, questions }));
        }}
      />

      {problems.alert}
      <button type="submit" disabled={save.isPending}>
        {service ? "Save changes" : "Create service"}
      </button>
    </form>
  );
}

/** A service as STAFF reads it: every field, nothing to change. */
function ServiceFacts({ service }: { service: Service }) {
  const row = (label: string, value: ReactNode) => (
    <>
      <dt>{label}</dt>
      <dd>{value}</dd>
    </>
  );
  return (
    <>
      <p className="hint" data-testid="read-only">
        You can see this service; only a clinic administrator can change it.
      </p>
      <dl className="facts" data-testid="service-facts">
        {row(serviceLabels.name, service.name)}
        {row(serviceLabels.duration_min, minutesText(service.duration_min))}
        {row(serviceLabels.price, service.price ?? "no price")}
        {row(serviceLabels.provider_id, service.provider_name ?? "Any provider")}
        {row(serviceLabels.is_active, service.is_active ? "Yes" : "No")}
        {row(serviceLabels.buffer_before_min, String(service.buffer_before_min))}
        {row(serviceLabels.buffer_after_min, String(service.buffer_after_min))}
        {row(
          serviceLabels.slot_step_min,
          service.slot_step_min === null ? "every duration" : String(service.slot_step_min),
        )}
        {row(serviceLabels.min_notice_min, String(service.min_notice_min))}
        {row(
          serviceLabels.booking_horizon_days,
          service.booking_horizon_days === null ? "no limit" : String(service.booking_horizon_days),
        )}
        {row(serviceLabels.requires_confirmation, service.requires_confirmation ? "Yes" : "No")}
        {row(serviceLabels.capacity, String(service.capacity))}
        {row(
          serviceLabels.required_resource_kinds,
          service.required_resource_kinds.length > 0 ? service.required_resource_kinds.join(", ") : "none",
        )}
      </dl>
      <h3>Questions</h3>
      {service.questions.length === 0 ? (
        <p>It asks no questions.</p>
      ) : (
        <ol className="facts-questions">
          {service.questions.map((q) => (
            <li key={q.key}>
              {q.label} ({answerTypeWords(q)}
              {q.required ? ", required" : ""})
            </li>
          ))}
        </ol>
      )}
    </>
  );
}
