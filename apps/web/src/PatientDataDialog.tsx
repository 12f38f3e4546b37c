import { useMutation } from "@tanstack/react-query";
import { type RouterInputs, type RouterOutputs, problemOf } from "@clinic/client";
import { Fragment, useEffect, useId, useRef, useState } from "react";
import { client, messageOf } from "./api.ts";
import { type ExportFormat, type PatientKey, downloadJson, exportFileName, patientExportUrl } from "./patientData.ts";

type Erasure = RouterOutputs["patientData"]["erase"];
type EraseInput = RouterInputs["patientData"]["erase"];

/** The three ways to name a patient (§21): label, input type and hint of each. */
const keys: Record<
  PatientKey,
  { choice: string; noun: string; label: string; type: "email" | "tel" | "text"; hint: string }
> = {
  email: {
    choice: "E-mail address",
    noun: "e-mail address",
    label: "The patient's e-mail address",
    type: "email",
    hint: "Any letter case: matched on appointments, waitlist entries, messages and accounts.",
  },
  phone_e164: {
    choice: "Phone number",
    noun: "phone number",
    label: "The patient's phone number",
    type: "tel",
    hint: "International form with the country code, e.g. +4930123456.",
  },
  patient_user_id: {
    choice: "Account (user id)",
    noun: "user id",
    label: "The patient's user id",
    type: "text",
    hint: "The id of their account, e.g. 0f8c…-…; their e-mail address and phone are matched too.",
  },
};
const keyOrder: readonly PatientKey[] = ["email", "phone_e164", "patient_user_id"];

/** X2's counts, in the words of the result and in its order. */
type Count = keyof Erasure["erased"];
const countOrder: readonly Count[] = [
  "appointments",
  "messages",
  "waitlist_entries",
  "events",
  "deliveries",
  "audit_entries",
];
const countLabels: Record<Count, string> = {
  appointments: "Appointments",
  messages: "Messages",
  waitlist_entries: "Waitlist entries",
  events: "Events",
  deliveries: "Webhook deliveries",
  audit_entries: "Audit entries",
};

/** A refused call, in words the desk can act on (X1/X2 answer 400, 403 or 404). */
function problemText(error: unknown): string {
  const problem = problemOf(error);
  if (problem?.code === "FORBIDDEN") return "Only a clinic administrator may export or erase a patient's data.";
  if (problem?.code === "NOT_FOUND") return "No patient with that identifier is known at this clinic.";
  return messageOf(error);
}

/** The field a VALIDATION_FAILED answer names, and its message; `undefined` for any other refusal. */
function fieldProblem(error: unknown): { path: string; message: string } | undefined {
  const problem = problemOf(error);
  if (problem?.code !== "VALIDATION_FAILED") return undefined;
  const first = problem.errors[0];
  return first ? { path: first.path, message: first.message } : { path: "", message: problem.detail };
}

type Step = "find" | "confirm" | "done";

/**
 * "Patient data" on the desk (§21, CLINIC_ADMIN): name a patient by e-mail, phone or user id, then
 * download what the clinic holds about them (X1, JSON or FHIR) or erase them (X2) after a
 * confirmation that says what erasure does and asks for a reason and an explicit "I understand".
 * A modal `<dialog>` like the calendars one: focus starts on its heading, Escape or Close ends it.
 */
export function PatientDataDialog(props: {
  clinicId: string;
  clinicName: string;
  /** A patient was erased: the grid's names, search results and free times may have changed. */
  onErased: () => void;
  onClose: () => void;
}) {
  const { clinicId, clinicName } = props;
  const id = useId();
  const dialog = useRef<HTMLDialogElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const confirmHeading = useRef<HTMLHeadingElement>(null);
  const resultHeading = useRef<HTMLHeadingElement>(null);
  const valueInput = useRef<HTMLInputElement>(null);
  const reasonInput = useRef<HTMLTextAreaElement>(null);
  const understoodInput = useRef<HTMLInputElement>(null);
  const eraseOpener = useRef<HTMLButtonElement>(null);

  const [key, setKey] = useState<PatientKey>("email");
  const [value, setValue] = useState("");
  const [valueError, setValueError] = useState<string | undefined>();
  const [step, setStep] = useState<Step>("find");
  const [reason, setReason] = useState("");
  const [reasonError, setReasonError] = useState<string | undefined>();
  const [understood, setUnderstood] = useState(false);
  const [understoodError, setUnderstoodError] = useState<string | undefined>();
  const [notice, setNotice] = useState("");
  const [problem, setProblem] = useState<string | undefined>();
  const [downloading, setDownloading] = useState<ExportFormat | undefined>();
  const [erased, setErased] = useState<{ who: string; result: Erasure } | undefined>();

  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) {
      element.showModal();
      heading.current?.focus();
    }
  }, []);
  // Each step takes the focus on its heading, so its first words are read: the warning, the result.
  useEffect(() => {
    if (step === "confirm") confirmHeading.current?.focus();
    if (step === "done") resultHeading.current?.focus();
  }, [step]);

  const trimmed = value.trim();
  const keyWords = keys[key];
  /** "the patient with the e-mail address a@b.c": who the confirmation is about. */
  const who = `the patient with the ${keyWords.noun} ${trimmed}`;

  /** An empty identifier is named at its field (which takes the focus); true when one is given. */
  const checkValue = (): boolean => {
    if (trimmed !== "") return true;
    setValueError(`Enter ${keyWords.label.replace(/^The /, "the ")} first.`);
    valueInput.current?.focus();
    return false;
  };
  /** A refusal: the field's own (400 naming it) under the field, anything else as an alert. */
  const showProblem = (error: unknown) => {
    const field = fieldProblem(error);
    if (field && (field.path === key || field.path === "")) {
      setValueError(`The ${keyWords.noun} ${field.message}.`);
      setProblem(undefined);
      setStep("find");
      requestAnimationFrame(() => valueInput.current?.focus());
      return;
    }
    if (field?.path === "reason") {
      setReasonError(`The reason ${field.message}.`);
      reasonInput.current?.focus();
      return;
    }
    setProblem(problemText(error));
  };

  const download = async (format: ExportFormat) => {
    setNotice("");
    setProblem(undefined);
    if (!checkValue()) return;
    setValueError(undefined);
    setDownloading(format);
    const fileName = exportFileName("patient-export", format, new Date());
    try {
      await downloadJson(patientExportUrl(clinicId, key, trimmed), format, fileName);
      setNotice(`Downloaded ${fileName} (${format === "fhir" ? "FHIR R4 Bundle" : "JSON"}).`);
    } catch (error) {
      showProblem(error);
    } finally {
      setDownloading(undefined);
    }
  };

  const erase = useMutation({
    mutationFn: (input: EraseInput) => client.patientData.erase.mutate(input),
    onSuccess: (result) => {
      setErased({ who, result });
      setStep("done");
      setReason("");
      setUnderstood(false);
      props.onErased();
    },
    onError: showProblem,
  });

  const openConfirmation = () => {
    setNotice("");
    setProblem(undefined);
    if (!checkValue()) return;
    setValueError(undefined);
    setReasonError(undefined);
    setUnderstoodError(undefined);
    setStep("confirm");
  };
  const keepData = () => {
    setStep("find");
    setProblem(undefined);
    requestAnimationFrame(() => eraseOpener.current?.focus());
  };
  const confirmErase = () => {
    const reasonText = reason.trim();
    const missingReason = reasonText === "" ? "Give the reason for the erasure (the audit trail keeps it)." : undefined;
    const notUnderstood = understood ? undefined : "Tick the box to confirm that the erasure cannot be undone.";
    setReasonError(missingReason);
    setUnderstoodError(notUnderstood);
    if (missingReason) {
      reasonInput.current?.focus();
      return;
    }
    if (notUnderstood) {
      understoodInput.current?.focus();
      return;
    }
    setProblem(undefined);
    const base = { clinic_id: clinicId, reason: reasonText };
    erase.mutate(
      key === "email"
        ? { ...base, email: trimmed }
        : key === "phone_e164"
          ? { ...base, phone_e164: trimmed }
          : { ...base, patient_user_id: trimmed },
    );
  };

  const valueId = `${id}-value`;
  const describedBy = (hint: string, error: string | undefined, errorId: string) =>
    error ? `${hint} ${errorId}` : hint;

  return (
    <dialog
      ref={dialog}
      className="calendars-dialog patient-data-dialog"
      aria-labelledby={`${id}-heading`}
      data-testid="patient-data-dialog"
      onClose={props.onClose}
    >
      <div className="dialog-head">
        <h2 id={`${id}-heading`} ref={heading} tabIndex={-1}>
          Patient data
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
      <p className="hint">
        What {clinicName} holds about one patient: download it (their right of access and to take it elsewhere), or
        erase it (their right to erasure). For clinic administrators.
      </p>
      <p role="status" className="cal-notice" data-testid="patient-data-notice">
        {downloading ? "Preparing the file…" : notice}
      </p>
      {problem && (
        <p role="alert" className="problem" data-testid="patient-data-problem">
          {problem}
        </p>
      )}
      {step === "done" && erased && (
        <section className="erase-result confirmation" aria-labelledby={`${id}-result`} data-testid="erase-result">
          <h3 id={`${id}-result`} ref={resultHeading} tabIndex={-1}>
            Erased: {erased.who} is now <span data-testid="erase-pseudonym">{erased.result.pseudonym}</span> at{" "}
            {clinicName}.
          </h3>
          <p>Rows whose personal values were removed:</p>
          <dl className="cal-facts" data-testid="erase-counts">
            {countOrder.map((count) => (
              <Fragment key={count}>
                <dt>{countLabels[count]}</dt>
                <dd data-count={count}>{erased.result.erased[count]}</dd>
              </Fragment>
            ))}
          </dl>
        </section>
      )}
      {step !== "confirm" && (
        <form
          noValidate
          aria-labelledby={`${id}-find`}
          onSubmit={(e) => {
            e.preventDefault();
            void download("json");
          }}
        >
          <h3 id={`${id}-find`}>Find the patient</h3>
          <fieldset className="patient-key">
            <legend>Find them by</legend>
            {keyOrder.map((k) => (
              <span key={k} className="choice">
                <input
                  id={`${id}-key-${k}`}
                  type="radio"
                  name={`${id}-key`}
                  value={k}
                  checked={key === k}
                  onChange={() => {
                    setKey(k);
                    setValueError(undefined);
                  }}
                />
                <label htmlFor={`${id}-key-${k}`}>{keys[k].choice}</label>
              </span>
            ))}
          </fieldset>
          <div className="field">
            <label htmlFor={valueId}>{keyWords.label}</label>
            <input
              ref={valueInput}
              id={valueId}
              type={keyWords.type}
              autoComplete="off"
              spellCheck={false}
              value={value}
              aria-invalid={valueError ? true : undefined}
              aria-describedby={describedBy(`${valueId}-hint`, valueError, `${valueId}-error`)}
              onChange={(e) => {
                setValue(e.target.value);
                setValueError(undefined);
              }}
            />
            <span id={`${valueId}-hint`} className="field-hint">
              {keyWords.hint}
            </span>
            {valueError && (
              <span id={`${valueId}-error`} className="field-error" data-testid="patient-value-error">
                {valueError}
              </span>
            )}
          </div>
          <div className="cal-actions">
            <button type="submit" disabled={downloading !== undefined}>
              Download export (JSON)
            </button>
            <button
              type="button"
              disabled={downloading !== undefined}
              onClick={() => {
                void download("fhir");
              }}
            >
              Download export (FHIR)
            </button>
            <button type="button" className="danger" ref={eraseOpener} onClick={openConfirmation}>
              Erase…
            </button>
          </div>
        </form>
      )}
      {step === "confirm" && (
        <form
          noValidate
          className="erase-confirm"
          aria-labelledby={`${id}-confirm`}
          aria-describedby={`${id}-consequences`}
          data-testid="erase-confirmation"
          onSubmit={(e) => {
            e.preventDefault();
            confirmErase();
          }}
        >
          <h3 id={`${id}-confirm`} ref={confirmHeading} tabIndex={-1}>
            Erase {who} from {clinicName}?
          </h3>
          <div id={`${id}-consequences`}>
            <p>Erasing them:</p>
            <ul>
              <li>cancels their future appointments at this clinic, without sending them a message;</li>
              <li>
                replaces their name by a pseudonym (<code>erased-…</code>) and removes their e-mail address, phone
                number, notes and answers from every appointment, message, waitlist entry, event and webhook delivery of
                this clinic;
              </li>
              <li>keeps the times, services, providers, statuses and report figures;</li>
              <li>stops the links in their e-mails from working;</li>
              <li>does not touch what other clinics hold about them.</li>
            </ul>
            <p>
              <strong>It cannot be undone.</strong>
            </p>
          </div>
          <div className="field">
            <label htmlFor={`${id}-reason`}>Reason for the erasure (kept in the audit trail)</label>
            <textarea
              ref={reasonInput}
              id={`${id}-reason`}
              rows={2}
              maxLength={500}
              value={reason}
              aria-invalid={reasonError ? true : undefined}
              aria-describedby={describedBy(`${id}-reason-hint`, reasonError, `${id}-reason-error`)}
              onChange={(e) => {
                setReason(e.target.value);
                setReasonError(undefined);
              }}
            />
            <span id={`${id}-reason-hint`} className="field-hint">
              For example &quot;the patient asked for erasure by letter of 3 March&quot;; up to 500 characters.
            </span>
            {reasonError && (
              <span id={`${id}-reason-error`} className="field-error" data-testid="reason-error">
                {reasonError}
              </span>
            )}
          </div>
          <div className="field">
            <span className="choice">
              <input
                ref={understoodInput}
                id={`${id}-understood`}
                type="checkbox"
                checked={understood}
                aria-invalid={understoodError ? true : undefined}
                aria-describedby={understoodError ? `${id}-understood-error` : undefined}
                onChange={(e) => {
                  setUnderstood(e.target.checked);
                  setUnderstoodError(undefined);
                }}
              />
              <label htmlFor={`${id}-understood`}>I understand that this cannot be undone</label>
            </span>
            {understoodError && (
              <span id={`${id}-understood-error`} className="field-error" data-testid="understood-error">
                {understoodError}
              </span>
            )}
          </div>
          <div className="cal-actions">
            <button type="submit" className="danger" disabled={erase.isPending}>
              {erase.isPending ? "Erasing…" : "Erase this patient"}
            </button>
            <button type="button" className="secondary" onClick={keepData}>
              Keep the data
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
}
