// Where a refusal of the API lands on a setup form (CONTRACT §2, §23: "every refusal shows the §2
// detail at the field it concerns"). `problemsOf` is pure: it reads the problem and sorts its
// messages onto the form's fields; `useFieldProblems` keeps them, ties each to its field
// (aria-invalid, aria-describedby) and moves the focus to the first field in error.
import { type ClinicErrorCode, problemOf } from "@clinic/client";
import { type ReactNode, useCallback, useEffect, useId, useRef, useState } from "react";
import { messageOf } from "../messages.ts";

/** The messages of one refusal: one per field it concerns, and what concerns no field (an alert). */
export interface FormProblems {
  fields: Readonly<Record<string, string>>;
  alert: string | undefined;
}

export const noProblems: FormProblems = { fields: {}, alert: undefined };

/** What a form tells `problemsOf` about itself. */
export interface ProblemPlaces {
  /** The form's fields, named by the API's paths: `duration_min`, `questions.0.key`. */
  fields: readonly string[];
  /** A field's name as the person reads it ("Duration (minutes)"); the path itself when absent. */
  labelOf?: (field: string) => string | undefined;
  /**
   * Refusals without field errors whose §2 `detail` concerns one field, e.g. `ALREADY_MEMBER` →
   * `email`. (A refusal whose `errors` name a field, like `NOT_A_PROVIDER` at `provider_id`, lands
   * there without this.)
   */
  codes?: Partial<Record<ClinicErrorCode, string>>;
}

/** Leads for the §2 answers the setup pages meet, before the server's own `detail`. */
const leads: Partial<Record<ClinicErrorCode, string>> = {
  INVALID_TRANSITION: "That change is not possible now",
  PROVIDER_HAS_SERVICES: "Still assigned to services",
  NOT_FOUND: "Not found (removed meanwhile?)",
  FORBIDDEN: "Your account may not do this here",
  ALREADY_MEMBER: "Already a member",
  NOT_A_PROVIDER: "Not a provider of this clinic",
  ALREADY_ASSIGNED: "Already assigned",
  STALE_UPDATED_AT: "Someone else changed this meanwhile",
  WORK_HOUR_OVERLAP: "Overlaps another period",
  INVALID_TIME_RANGE: "The end must come after the start",
  VALIDATION_FAILED: "Please check your entries",
};

/** Codes whose words in `api.ts` tell a person what to do better than the detail (signed out, busy). */
const actionable = new Set<ClinicErrorCode>(["UNAUTHENTICATED", "RATE_LIMITED", "UNAVAILABLE", "INTERNAL"]);

const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/**
 * A refusal in words for an alert or a row: a lead for its code, then the §2 `detail` as the
 * server wrote it ("That change is not possible now: cannot approve a provider whose status is
 * approved (allowed: suspend, remove)."). Failures without a problem say what `api.ts` says.
 */
export function problemText(error: unknown): string {
  const problem = problemOf(error);
  if (!problem || actionable.has(problem.code)) return messageOf(error);
  const lead = leads[problem.code];
  return sentence(lead ? `${lead}: ${problem.detail}` : problem.detail);
}

/**
 * The field a path of a field error concerns: the field of that name, else the nearest enclosing
 * one (`questions.2.options.1` → `questions.2.options` → `questions.2` → `questions`).
 */
export function fieldOfPath(path: string, fields: readonly string[]): string | undefined {
  const known = new Set(fields);
  const parts = path.split(".");
  for (let n = parts.length; n > 0; n--) {
    const candidate = parts.slice(0, n).join(".");
    if (known.has(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Sorts one refusal onto a form: each field error under its field ("Duration (minutes): Too big:
 * expected number to be <=1440"), a refusal whose detail concerns one field (`codes`) under that
 * field, and the rest in the alert. The first message of a field wins.
 */
export function problemsOf(error: unknown, places: ProblemPlaces): FormProblems {
  const problem = problemOf(error);
  if (!problem) return { fields: {}, alert: messageOf(error) };
  const label = (field: string) => places.labelOf?.(field) ?? field;
  const fields: Record<string, string> = {};
  const elsewhere: string[] = [];
  if (problem.code === "VALIDATION_FAILED" || problem.errors.length > 0) {
    for (const e of problem.errors) {
      const field = fieldOfPath(e.path, places.fields);
      // A validation failure names its own messages; any other refusal's words are its detail.
      const text = problem.code === "VALIDATION_FAILED" ? `${label(e.path)}: ${e.message}` : problemText(error);
      if (field === undefined) elsewhere.push(text);
      else fields[field] ??= sentence(text);
    }
  }
  const codeField = places.codes?.[problem.code];
  if (codeField !== undefined && fields[codeField] === undefined) fields[codeField] = problemText(error);
  const mapped = Object.keys(fields).length > 0;
  if (!mapped)
    return {
      fields,
      alert: elsewhere.length > 0 ? `${problemText(error)} ${elsewhere.join("; ")}` : problemText(error),
    };
  return {
    fields,
    alert:
      elsewhere.length > 0
        ? `Please check the marked entries, and: ${elsewhere.join("; ")}`
        : "Please check the marked entries.",
  };
}

/** The props that tie a control to its messages (spread onto the input, select or fieldset). */
export interface FieldProps {
  id: string;
  "aria-invalid": true | undefined;
  "aria-describedby": string | undefined;
}

/**
 * A form's problems as state: `show(error)` sorts a refusal onto the fields, `check(messages)` sets
 * the page's own checks the same way; `props(field)` ties a control to its message, `error(field)`
 * renders it; after either, the first control in error takes the focus (or the alert, when no field
 * is in error). Editing a field clears its message (`clear(field)`).
 */
export function useFieldProblems(places: ProblemPlaces) {
  const prefix = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const placesRef = useRef(places);
  placesRef.current = places;
  const [problems, setProblems] = useState<FormProblems>(noProblems);
  const [focusTurn, setFocusTurn] = useState(0);

  useEffect(() => {
    if (focusTurn === 0) return;
    const form = formRef.current;
    const first = form?.querySelector<HTMLElement>("[aria-invalid='true']");
    if (first) {
      // A group's first control, so the keyboard lands where the answer is given.
      const target = first.matches("fieldset") ? first.querySelector<HTMLElement>("input, select, textarea") : first;
      (target ?? first).focus();
    } else form?.querySelector<HTMLElement>("[data-form-alert]")?.focus();
  }, [focusTurn]);

  const idOf = useCallback((field: string) => `${prefix}-${field}`, [prefix]);
  const errorIdOf = (field: string) => `${prefix}-${field}-error`;
  const show = useCallback((error: unknown) => {
    setProblems(problemsOf(error, placesRef.current));
    setFocusTurn((n) => n + 1);
  }, []);
  const check = useCallback((fields: Record<string, string>) => {
    setProblems({ fields, alert: "Please check the marked entries." });
    setFocusTurn((n) => n + 1);
  }, []);
  const clear = useCallback((field?: string) => {
    setProblems((current) => {
      if (field === undefined) return noProblems;
      if (current.fields[field] === undefined) return current;
      const { [field]: _gone, ...rest } = current.fields;
      return { fields: rest, alert: Object.keys(rest).length > 0 ? current.alert : undefined };
    });
  }, []);
  const props = (field: string, ...hints: (string | undefined)[]): FieldProps => {
    const invalid = problems.fields[field] !== undefined;
    const described = [...hints, invalid ? errorIdOf(field) : undefined].filter(Boolean).join(" ");
    return { id: idOf(field), "aria-invalid": invalid ? true : undefined, "aria-describedby": described || undefined };
  };
  const error = (field: string): ReactNode => {
    const text = problems.fields[field];
    return text === undefined ? null : (
      <span id={errorIdOf(field)} className="field-error" data-testid={`field-error-${field}`}>
        {text}
      </span>
    );
  };
  const alert: ReactNode = problems.alert ? (
    <p role="alert" className="problem" tabIndex={-1} data-form-alert data-testid="form-alert">
      {problems.alert}
    </p>
  ) : null;
  return { formRef, problems, show, check, clear, props, error, alert, idOf };
}
