import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { client } from "../api.ts";
import type { SetupAreaProps } from "./areas.ts";
import {
  type ClinicDraft,
  clinicHints,
  clinicLabels,
  draftOf,
  draftProblems,
  localeWords,
  patchOf,
} from "./clinicForm.ts";
import { MembersSection } from "./MembersSection.tsx";
import { useFieldProblems } from "./problem.tsx";
import { WebhooksSection } from "./WebhooksSection.tsx";

const fields = Object.keys(clinicLabels) as (keyof ClinicDraft)[];

/**
 * The clinic `/desk/{clinic_id}/setup/clinic` (CONTRACT §23): its settings (C4: name, time zone,
 * locale, online booking and its limits, guest holds, retention), its webhooks (§10, H1–H7) and
 * its members and their roles (M1–M3). CLINIC_ADMIN changes them; STAFF reads the settings and the
 * members (webhooks are the clinic administrator's alone).
 */
export function ClinicPage({ clinicId, clinic, access }: SetupAreaProps) {
  const admin = access === "admin";
  const [notice, setNotice] = useState("");
  return (
    <>
      <p role="status" className="setup-notice" data-testid="clinic-notice">
        {notice}
      </p>
      {admin ? (
        <SettingsForm clinicId={clinicId} clinic={clinic} onNotice={setNotice} />
      ) : (
        <SettingsFacts clinic={clinic} />
      )}
      {admin ? (
        <WebhooksSection clinicId={clinicId} timeZone={clinic.timezone} onNotice={setNotice} />
      ) : (
        <section className="setup-section" aria-labelledby="webhooks-heading">
          <h2 id="webhooks-heading">Webhooks</h2>
          <p>The clinic&apos;s webhooks are for its clinic administrators.</p>
        </section>
      )}
      <MembersSection clinicId={clinicId} clinic={clinic} admin={admin} onNotice={setNotice} />
    </>
  );
}

function SettingsFacts({ clinic }: { clinic: SetupAreaProps["clinic"] }) {
  const d = draftOf(clinic);
  const shown = (f: keyof ClinicDraft): string => {
    if (f === "online_booking") return d.online_booking ? "Yes" : "No";
    if (f === "locale") return localeWords[d.locale] ?? d.locale;
    const value = d[f];
    if (value !== "") return value;
    return f === "retention_days" ? "Kept" : "None";
  };
  return (
    <section className="setup-section" aria-labelledby="settings-heading">
      <h2 id="settings-heading">Settings</h2>
      <p className="hint">Only a clinic administrator can change them.</p>
      <dl className="facts" data-testid="settings-facts">
        {fields.map((f) => (
          <div key={f}>
            <dt>{clinicLabels[f]}</dt>
            <dd>{shown(f)}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function SettingsForm(props: { clinicId: string; clinic: SetupAreaProps["clinic"]; onNotice: (t: string) => void }) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<ClinicDraft>(() => draftOf(props.clinic));
  const problems = useFieldProblems({ fields, labelOf: (f) => clinicLabels[f as keyof ClinicDraft] });
  const save = useMutation({
    mutationFn: () => client.clinics.update.mutate({ clinic_id: props.clinicId, ...patchOf(props.clinic, draft) }),
    onMutate: () => {
      problems.clear();
      props.onNotice("");
    },
    onSuccess: async (saved) => {
      setDraft(draftOf(saved));
      queryClient.setQueryData(["desk-clinic", props.clinicId], saved);
      props.onNotice("Saved the clinic's settings.");
      await queryClient.invalidateQueries({ queryKey: ["desk-clinic", props.clinicId] });
    },
    onError: (error) => {
      problems.show(error);
    },
  });
  const set = <K extends keyof ClinicDraft>(field: K, value: ClinicDraft[K]) => {
    setDraft((d) => ({ ...d, [field]: value }));
    problems.clear(field);
  };
  const hintId = (f: keyof ClinicDraft) => (clinicHints[f] ? `${problems.idOf(f)}-hint` : undefined);
  const text = (f: keyof ClinicDraft, options: { numeric?: boolean } = {}) => {
    const value = draft[f];
    return (
      <div className="field">
        <label htmlFor={problems.idOf(f)}>{clinicLabels[f]}</label>
        <input
          {...problems.props(f, hintId(f))}
          type="text"
          inputMode={options.numeric ? "numeric" : undefined}
          autoComplete="off"
          value={typeof value === "string" ? value : ""}
          onChange={(e) => {
            set(f, e.target.value);
          }}
        />
        {clinicHints[f] && (
          <span id={hintId(f)} className="field-hint">
            {clinicHints[f]}
          </span>
        )}
        {problems.error(f)}
      </div>
    );
  };
  return (
    <section className="setup-section" aria-labelledby="settings-heading">
      <h2 id="settings-heading">Settings</h2>
      <form
        ref={problems.formRef}
        className="setup-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          const own = draftProblems(draft);
          if (Object.keys(own).length > 0) {
            problems.check(own);
            return;
          }
          if (Object.keys(patchOf(props.clinic, draft)).length === 0) {
            props.onNotice("Nothing to save: the settings are as they were.");
            return;
          }
          save.mutate();
        }}
      >
        <fieldset>
          <legend>The clinic</legend>
          {text("name")}
          {text("timezone")}
          <div className="field">
            <label htmlFor={problems.idOf("locale")}>{clinicLabels.locale}</label>
            <select
              {...problems.props("locale")}
              value={draft.locale}
              onChange={(e) => {
                set("locale", e.target.value);
              }}
            >
              {Object.entries(localeWords).map(([value, words]) => (
                <option key={value} value={value}>
                  {words}
                </option>
              ))}
            </select>
            {problems.error("locale")}
          </div>
        </fieldset>
        <fieldset>
          <legend>Online booking</legend>
          <div className="field">
            <span className="choice">
              <input
                {...problems.props("online_booking")}
                type="checkbox"
                checked={draft.online_booking}
                onChange={(e) => {
                  set("online_booking", e.target.checked);
                }}
              />
              <label htmlFor={problems.idOf("online_booking")}>{clinicLabels.online_booking}</label>
            </span>
            {problems.error("online_booking")}
          </div>
          {text("patient_cancel_cutoff_min", { numeric: true })}
          {text("max_open_bookings_per_patient", { numeric: true })}
          {text("hold_minutes", { numeric: true })}
          {text("no_show_limit", { numeric: true })}
          {text("offer_minutes", { numeric: true })}
          {text("reminder_offsets_min")}
          {text("guest_holds_max", { numeric: true })}
        </fieldset>
        <fieldset>
          <legend>Patient data</legend>
          {text("retention_days", { numeric: true })}
        </fieldset>
        {problems.alert}
        <button type="submit" disabled={save.isPending}>
          Save the settings
        </button>
      </form>
    </section>
  );
}
