import { useMutation, useQuery } from "@tanstack/react-query";
import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { client } from "../api.ts";
import { minutesText } from "./format.ts";
import { type Provider, statusWords } from "./providerActions.ts";
import { problemText, useFieldProblems } from "./problem.tsx";
import { RoleField } from "./RoleField.tsx";

const memberLabels: Record<string, string> = {
  email: "E-mail",
  full_name: "Full name in this clinic",
  phone_e164: "Phone",
  clinic_role: "Role",
  is_provider: "Provider",
  notes: "Notes",
  max_daily_appointments: "Most appointments a day",
};
const phoneHint = "International form: + and the country code, e.g. +4930123456. Optional.";

/** A text field of the member forms, its label, hint and message tied to it. */
function TextField(props: {
  field: string;
  value: string;
  problems: ReturnType<typeof useFieldProblems>;
  type?: "email" | "tel" | "text" | "number";
  hint?: string;
  autoComplete?: string;
  multiline?: boolean;
  onChange: (value: string) => void;
}) {
  const { field, problems } = props;
  const hintId = props.hint ? `${problems.idOf(field)}-hint` : undefined;
  const common = {
    ...problems.props(field, hintId),
    value: props.value,
    onChange: (e: { target: { value: string } }) => {
      props.onChange(e.target.value);
      problems.clear(field);
    },
  };
  return (
    <div className="field">
      <label htmlFor={problems.idOf(field)}>{memberLabels[field] ?? field}</label>
      {props.multiline ? (
        <textarea {...common} rows={3} maxLength={5000} />
      ) : (
        <input {...common} type={props.type ?? "text"} autoComplete={props.autoComplete ?? "off"} />
      )}
      {props.hint && (
        <span id={hintId} className="field-hint">
          {props.hint}
        </span>
      )}
      {problems.error(field)}
    </div>
  );
}

/**
 * M1 from the providers page: a person is added by e-mail (linked when the service knows them,
 * else created), with their name in this clinic, phone, role, notes and whether they are a
 * provider (then pending until approved). Behind a disclosure button, so the list comes first.
 * `ALREADY_MEMBER` lands at the e-mail; validation failures at their fields.
 */
export function AddMemberForm(props: {
  clinicId: string;
  onAdded: (text: string) => Promise<void>;
  /** Whether "A provider" starts ticked (the providers page: yes; the members list: no). */
  asProvider?: boolean;
}) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [email, setEmail] = useState("");
  const [fullName, setFullName] = useState("");
  const [phone, setPhone] = useState("");
  const [role, setRole] = useState("STAFF");
  const [isProvider, setIsProvider] = useState(props.asProvider ?? true);
  const [notes, setNotes] = useState("");
  const problems = useFieldProblems({
    fields: Object.keys(memberLabels),
    labelOf: (f) => memberLabels[f],
    codes: { ALREADY_MEMBER: "email" },
  });
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (open) heading.current?.focus();
  }, [open]);
  const add = useMutation({
    mutationFn: () =>
      client.members.add.mutate({
        clinic_id: props.clinicId,
        email: email.trim(),
        full_name: fullName,
        ...(phone.trim() ? { phone_e164: phone.trim() } : {}),
        clinic_role: role,
        is_provider: isProvider,
        ...(notes.trim() ? { notes } : {}),
      }),
    onSuccess: async (m) => {
      problems.clear();
      setEmail("");
      setFullName("");
      setPhone("");
      setNotes("");
      await props.onAdded(
        m.is_provider
          ? `Added ${m.full_name} (${m.email}) as a provider, pending approval: approve them in the list to offer their times.`
          : `Added ${m.full_name} (${m.email}) as ${m.clinic_role}, not a provider: the clinic's members list shows them.`,
      );
    },
    onError: (error) => {
      problems.show(error);
    },
  });
  return (
    <section className="setup-section add-member" aria-labelledby={`${id}-heading`}>
      <button
        type="button"
        className="secondary"
        aria-expanded={open}
        aria-controls={`${id}-form`}
        onClick={() => {
          setOpen((o) => !o);
        }}
      >
        Add a member or provider
      </button>
      <div id={`${id}-form`} hidden={!open}>
        <h3 id={`${id}-heading`} ref={heading} tabIndex={-1} className="focus-heading">
          Add a member or provider
        </h3>
        <form
          ref={problems.formRef}
          className="setup-form"
          noValidate
          aria-labelledby={`${id}-heading`}
          onSubmit={(e) => {
            e.preventDefault();
            add.mutate();
          }}
        >
          <TextField
            field="email"
            type="email"
            value={email}
            problems={problems}
            hint="Someone who already has an account here is linked to it; anyone else gets one, used when they sign in with this address."
            onChange={setEmail}
          />
          <TextField field="full_name" value={fullName} problems={problems} onChange={setFullName} />
          <TextField
            field="phone_e164"
            type="tel"
            value={phone}
            problems={problems}
            hint={phoneHint}
            onChange={setPhone}
          />
          <RoleField value={role} problems={problems} onChange={setRole} />
          <div className="field">
            <span className="choice">
              <input
                {...problems.props("is_provider", `${id}-provider-hint`)}
                type="checkbox"
                checked={isProvider}
                onChange={(e) => {
                  setIsProvider(e.target.checked);
                  problems.clear("is_provider");
                }}
              />
              <label htmlFor={problems.idOf("is_provider")}>A provider (patients book them)</label>
            </span>
            <span id={`${id}-provider-hint`} className="field-hint">
              A new provider is pending until approved.
            </span>
            {problems.error("is_provider")}
          </div>
          <TextField field="notes" value={notes} problems={problems} multiline onChange={setNotes} />
          {problems.alert}
          <button type="submit" disabled={add.isPending}>
            Add
          </button>
        </form>
      </div>
    </section>
  );
}

/**
 * One provider in a modal `<dialog>` (P2): name, e-mail, phone, role, status, notes, daily limit
 * and assigned services. CLINIC_ADMIN edits the per-clinic part (M3: name, phone, role, notes,
 * daily limit); STAFF reads. Focus starts on the heading; Escape or Close ends it.
 */
export function ProviderDialog(props: {
  clinicId: string;
  provider: Provider;
  admin: boolean;
  onSaved: (text: string) => Promise<void>;
  onClose: () => void;
}) {
  const { clinicId, provider } = props;
  const id = useId();
  const dialog = useRef<HTMLDialogElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const detail = useQuery({
    queryKey: ["setup-providers", clinicId, "get", provider.user_id],
    queryFn: () => client.providers.get.query({ clinic_id: clinicId, user_id: provider.user_id }),
  });
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) {
      element.showModal();
      heading.current?.focus();
    }
  }, []);
  const title = props.admin ? `Edit ${provider.full_name}` : provider.full_name;
  return (
    <dialog
      ref={dialog}
      className="setup-dialog"
      aria-labelledby={`${id}-heading`}
      data-testid="provider-dialog"
      onClose={props.onClose}
    >
      <div className="dialog-head">
        <h2 id={`${id}-heading`} ref={heading} tabIndex={-1} className="focus-heading">
          {title}
        </h2>
        <button
          type="button"
          className="secondary"
          onClick={() => {
            dialog.current?.close();
          }}
        >
          Close
        </button>
      </div>
      {detail.isError ? (
        <p role="alert" className="problem">
          {problemText(detail.error)}
        </p>
      ) : !detail.data ? (
        <p role="status">Loading…</p>
      ) : (
        <>
          <dl className="facts">
            <dt>E-mail</dt>
            <dd>{detail.data.email}</dd>
            <dt>Status</dt>
            <dd>{statusWords[detail.data.status]}</dd>
            {!props.admin && (
              <>
                <dt>Phone</dt>
                <dd>{detail.data.phone_e164 ?? "—"}</dd>
                <dt>Role</dt>
                <dd>{detail.data.clinic_role}</dd>
                <dt>Notes</dt>
                <dd className="notes">{detail.data.notes ?? "—"}</dd>
                <dt>{memberLabels.max_daily_appointments}</dt>
                <dd>{detail.data.max_daily_appointments ?? "no limit"}</dd>
              </>
            )}
            <dt>Services</dt>
            <dd>
              {detail.data.services.length === 0
                ? "none assigned (any-provider services aside)"
                : detail.data.services.map((s) => `${s.name} (${minutesText(s.duration_min)})`).join(", ")}
            </dd>
          </dl>
          {props.admin && (
            <EditMemberForm
              clinicId={clinicId}
              provider={{ ...provider, ...detail.data }}
              onSaved={async (text) => {
                await props.onSaved(text);
                await detail.refetch();
              }}
            />
          )}
        </>
      )}
    </dialog>
  );
}

type Detail = Provider & { notes: string | null };

function EditMemberForm(props: { clinicId: string; provider: Detail; onSaved: (text: string) => Promise<void> }) {
  const { provider } = props;
  const [fullName, setFullName] = useState(provider.full_name);
  const [phone, setPhone] = useState(provider.phone_e164 ?? "");
  const [role, setRole] = useState(provider.clinic_role);
  const [notes, setNotes] = useState(provider.notes ?? "");
  const [limit, setLimit] = useState(
    provider.max_daily_appointments === null ? "" : String(provider.max_daily_appointments),
  );
  const [saved, setSaved] = useState<ReactNode>(null);
  const problems = useFieldProblems({ fields: Object.keys(memberLabels), labelOf: (f) => memberLabels[f] });
  const save = useMutation({
    mutationFn: () =>
      client.members.update.mutate({
        clinic_id: props.clinicId,
        user_id: provider.user_id,
        full_name: fullName,
        phone_e164: phone.trim() === "" ? null : phone.trim(),
        clinic_role: role,
        notes: notes === "" ? null : notes,
        max_daily_appointments: limit.trim() === "" ? null : Number(limit),
      }),
    onSuccess: async (m) => {
      problems.clear();
      setSaved(`Saved ${m.full_name}.`);
      await props.onSaved(`Saved ${m.full_name}.`);
    },
    onError: (error) => {
      setSaved(null);
      problems.show(error);
    },
  });
  return (
    <form
      ref={problems.formRef}
      className="setup-form"
      noValidate
      aria-label={`Details of ${provider.full_name} in this clinic`}
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <TextField
        field="full_name"
        value={fullName}
        problems={problems}
        hint="Only this clinic sees it: the same person may carry another name elsewhere."
        onChange={setFullName}
      />
      <TextField field="phone_e164" type="tel" value={phone} problems={problems} hint={phoneHint} onChange={setPhone} />
      <RoleField value={role} problems={problems} onChange={setRole} />
      <TextField field="notes" value={notes} problems={problems} multiline onChange={setNotes} />
      <TextField
        field="max_daily_appointments"
        type="number"
        value={limit}
        problems={problems}
        hint="1 to 100 appointments a day in this clinic; empty: no limit."
        onChange={setLimit}
      />
      {problems.alert}
      <p role="status" className="setup-notice">
        {saved}
      </p>
      <button type="submit" disabled={save.isPending}>
        Save
      </button>
    </form>
  );
}
