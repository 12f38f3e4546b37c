import { useEffect, useId, useRef } from "react";
import { type Answer, type AnswerErrors, answerText, type Draft, type Drafts, type Question } from "./answers.ts";

/** Up to this many options a single choice is a radio group; more, a select. */
const maxRadios = 5;

/**
 * The service's questions (CONTRACT §19) as a form's controls, one per question: text → a text
 * input with the question's max length, long_text → a textarea, choice → a radio group (a select
 * past five options), multi_choice → a group of checkboxes, a required boolean (a consent) → one
 * checkbox, an optional boolean → a yes/no radio group (so "not answered" stays possible), date,
 * number, email and phone (with its +E.164 hint) → inputs of those types. Each is labelled
 * (a group by its legend), a required one is marked in words and with aria-required, and an error
 * is shown under its question, tied to it by aria-describedby and aria-invalid. When `attempt`
 * changes (a refused booking), the first question with an error takes the focus.
 */
export function QuestionsFields(props: {
  questions: readonly Question[];
  drafts: Drafts;
  errors: AnswerErrors;
  onChange: (key: string, draft: Draft) => void;
  /** Counts the refused bookings: each moves the focus to the first question in error. */
  attempt: number;
  disabled?: boolean | undefined;
}) {
  const id = useId();
  const box = useRef<HTMLFieldSetElement>(null);
  const { attempt, errors, questions } = props;
  useEffect(() => {
    if (attempt === 0) return;
    const first = questions.find((q) => errors[q.key] !== undefined);
    if (!first) return;
    const field = box.current?.querySelector<HTMLElement>(`[data-question="${first.key}"]`);
    // A group's focus goes to its checked control, else its first.
    const control =
      field?.querySelector<HTMLElement>("input:checked") ??
      field?.querySelector<HTMLElement>("input, textarea, select");
    control?.focus();
    // Only a new attempt moves the focus, not the errors cleared while the patient types.
  }, [attempt]);
  if (questions.length === 0) return null;
  const anyRequired = questions.some((q) => q.required);
  return (
    <fieldset className="questions" ref={box} disabled={props.disabled} data-testid="questions">
      <legend>Questions from the clinic</legend>
      {anyRequired && <p className="hint">Questions marked (required) must be answered to book.</p>}
      {questions.map((q) => (
        <QuestionField
          key={q.key}
          id={`${id}-${q.key}`}
          question={q}
          draft={props.drafts[q.key]}
          error={props.errors[q.key]}
          onChange={(draft) => {
            props.onChange(q.key, draft);
          }}
        />
      ))}
    </fieldset>
  );
}

function Required({ required }: { required: boolean }) {
  return required ? <span className="required"> (required)</span> : null;
}

/** One question's control, its hint and its error. */
function QuestionField(props: {
  id: string;
  question: Question;
  draft: Draft;
  error: string | undefined;
  onChange: (draft: Draft) => void;
}) {
  const { id, question: q, draft, error } = props;
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const hint = hintOf(q);
  const describedBy = [hint ? hintId : undefined, error ? errorId : undefined].filter(Boolean).join(" ") || undefined;
  const tied = {
    "aria-invalid": error ? true : undefined,
    "aria-describedby": describedBy,
  } as const;
  const text = typeof draft === "string" ? draft : "";
  const after = (
    <>
      {hint && (
        <span id={hintId} className="field-hint">
          {hint}
        </span>
      )}
      {error && (
        <span id={errorId} className="field-error" data-testid={`question-error-${q.key}`}>
          {error}
        </span>
      )}
    </>
  );

  if (q.type === "boolean" && q.required) {
    return (
      <div className="field consent" data-question={q.key}>
        <span className="choice">
          <input
            id={id}
            type="checkbox"
            checked={draft === true}
            aria-required="true"
            {...tied}
            onChange={(e) => {
              props.onChange(e.target.checked);
            }}
          />
          <label htmlFor={id}>
            {q.label}
            <Required required />
          </label>
        </span>
        {after}
      </div>
    );
  }
  const options =
    q.type === "boolean" ? ["yes", "no"] : q.type === "choice" || q.type === "multi_choice" ? (q.options ?? []) : [];
  if (q.type === "multi_choice" || q.type === "boolean" || (q.type === "choice" && options.length <= maxRadios)) {
    const multi = q.type === "multi_choice";
    const checkedOf = (option: string) =>
      multi
        ? Array.isArray(draft) && draft.includes(option)
        : q.type === "boolean"
          ? draft === (option === "yes")
          : draft === option;
    return (
      <fieldset
        className="question-group"
        data-question={q.key}
        // A radio group can say it is required; a group of checkboxes says it in its legend.
        {...(multi ? {} : { role: "radiogroup", "aria-required": q.required ? true : undefined })}
        {...tied}
      >
        <legend>
          {q.label}
          <Required required={q.required} />
        </legend>
        {options.map((option, i) => (
          <span className="choice" key={option}>
            <input
              id={`${id}-${String(i)}`}
              type={multi ? "checkbox" : "radio"}
              name={id}
              value={option}
              checked={checkedOf(option)}
              onChange={(e) => {
                if (q.type === "boolean") props.onChange(option === "yes");
                else if (!multi) props.onChange(option);
                else {
                  const ticked = Array.isArray(draft) ? draft : [];
                  props.onChange(e.target.checked ? [...ticked, option] : ticked.filter((o) => o !== option));
                }
              }}
            />
            <label htmlFor={`${id}-${String(i)}`}>
              {q.type === "boolean" ? (option === "yes" ? "Yes" : "No") : option}
            </label>
          </span>
        ))}
        {after}
      </fieldset>
    );
  }
  const common = {
    id,
    value: text,
    "aria-required": q.required ? true : undefined,
    ...tied,
    onChange: (e: { target: { value: string } }) => {
      props.onChange(e.target.value);
    },
  };
  const label = (
    <label htmlFor={id}>
      {q.label}
      <Required required={q.required} />
    </label>
  );
  if (q.type === "choice") {
    return (
      <div className="field" data-question={q.key}>
        {label}
        <select {...common}>
          <option value="">{q.required ? "Choose one…" : "No answer"}</option>
          {options.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
        {after}
      </div>
    );
  }
  if (q.type === "long_text") {
    return (
      <div className="field" data-question={q.key}>
        {label}
        <textarea {...common} rows={4} maxLength={q.max_length} />
        {after}
      </div>
    );
  }
  return (
    <div className="field" data-question={q.key}>
      {label}
      <input {...common} {...inputAttributes(q)} />
      {after}
    </div>
  );
}

/** The input's type and the browser's help for a single-line question. */
function inputAttributes(q: Question) {
  switch (q.type) {
    case "date":
      return { type: "date" };
    case "number":
      // Any number the server takes: decimals and negatives too.
      return { type: "number", step: "any", inputMode: "decimal" as const };
    case "email":
      return { type: "email", inputMode: "email" as const, spellCheck: false };
    case "phone":
      return { type: "tel", inputMode: "tel" as const };
    default:
      return { type: "text", maxLength: q.max_length };
  }
}

/** The line under a question that says what form its answer takes, where that is not plain. */
function hintOf(q: Question): string | undefined {
  switch (q.type) {
    case "phone":
      return "International form, starting with + and the country code, e.g. +4930123456.";
    case "email":
      return "e.g. name@example.com";
    case "multi_choice":
      return q.required ? "Choose at least one." : "Choose any that apply.";
    case "long_text":
      return q.max_length === undefined ? undefined : `Up to ${String(q.max_length)} characters.`;
    default:
      return undefined;
  }
}

/**
 * The patient's own answers to an appointment's questions, as they were given at booking (§19: the
 * patient may see them): a list, in a disclosure under `words.heading` unless `bare` (where the
 * page names it itself); nothing when there are none.
 */
export function AnswersList(props: {
  answers: readonly Answer[];
  words?: { heading: string; yes: string; no: string };
  bare?: boolean;
}) {
  const words = props.words ?? { heading: "Your answers", yes: "yes", no: "no" };
  if (props.answers.length === 0) return null;
  const list = (
    <dl className="answer-list" data-testid="answers">
      {props.answers.map((a) => (
        <div key={a.key}>
          <dt>{a.label}</dt>
          <dd>{answerText(a, words)}</dd>
        </div>
      ))}
    </dl>
  );
  if (props.bare) return list;
  return (
    <details className="answers">
      <summary>{words.heading}</summary>
      {list}
    </details>
  );
}
