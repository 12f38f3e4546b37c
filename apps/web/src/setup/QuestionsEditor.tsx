import { useEffect, useId, useRef, useState } from "react";
import type { useFieldProblems } from "./problem.tsx";
import {
  MAX_QUESTIONS,
  type QuestionDraft,
  type QuestionType,
  type Service,
  isChoice,
  isText,
  keyFromLabel,
  newQuestion,
  optionsOf,
  questionTypeLabels,
  questionTypes,
  textLimits,
} from "./serviceForm.ts";

/** "Short text", "One of several options (3 options)", "Yes or no (a consent)": a stored question's kind in words. */
export function answerTypeWords(q: Service["questions"][number]): string {
  if (q.type === "boolean" && q.required) return "a consent: only a tick answers it";
  const options = q.options ? ` (${String(q.options.length)} option${q.options.length === 1 ? "" : "s"})` : "";
  return `${questionTypeLabels[q.type]}${options}`;
}

/**
 * The questions a booking asks (§19): each question a group with its wording, key, answer type,
 * "required", the options (choice types, one a line) or the longest answer (text types); add,
 * move and remove by buttons. A refusal at `questions.<i>.<field>` lands under that field.
 */
export function QuestionsEditor(props: {
  questions: QuestionDraft[];
  problems: ReturnType<typeof useFieldProblems>;
  onChange: (questions: QuestionDraft[]) => void;
}) {
  const { questions, problems } = props;
  const id = useId();
  const list = useRef<HTMLOListElement>(null);
  const addButton = useRef<HTMLButtonElement>(null);
  // Where the focus goes after the list changed: a new question's wording, a moved question's button.
  const [focus, setFocus] = useState<{ selector: string } | undefined>();
  useEffect(() => {
    if (!focus) return;
    if (focus.selector === "add") addButton.current?.focus();
    else list.current?.querySelector<HTMLElement>(focus.selector)?.focus();
    setFocus(undefined);
  }, [focus]);

  const update = (index: number, change: Partial<QuestionDraft>) => {
    props.onChange(
      questions.map((q, i) => {
        if (i !== index) return q;
        const next = { ...q, ...change };
        // Until its key is typed, a question's key follows its wording.
        if (change.label !== undefined && !q.keyTouched)
          next.key = keyFromLabel(
            change.label,
            questions.filter((_o, j) => j !== index).map((o) => o.key),
          );
        return next;
      }),
    );
    for (const field of Object.keys(change)) problems.clear(`questions.${String(index)}.${field}`);
    problems.clear(`questions.${String(index)}`);
  };
  const move = (index: number, by: -1 | 1) => {
    const to = index + by;
    const moved = questions[index];
    if (!moved || to < 0 || to >= questions.length) return;
    const next = questions.filter((_q, i) => i !== index);
    next.splice(to, 0, moved);
    props.onChange(next);
    problems.clear();
    const edge = by < 0 ? to === 0 : to === questions.length - 1;
    // Keep the focus on the button pressed, or on its twin when the question reached the edge.
    setFocus({
      selector: `[data-uid="${moved.uid}"] [data-move="${edge ? (by < 0 ? "down" : "up") : by < 0 ? "up" : "down"}"]`,
    });
  };

  return (
    <fieldset className="questions-editor" {...problems.props("questions", `${id}-hint`)}>
      <legend>Questions for the patient</legend>
      <p id={`${id}-hint`} className="field-hint">
        Asked on the booking page when this service is booked (reason for the visit, insurance, a consent). Up to{" "}
        {MAX_QUESTIONS}. Answers are kept with the appointment as they were asked.
      </p>
      {problems.error("questions")}
      {questions.length === 0 && <p>This service asks no questions.</p>}
      <ol ref={list} className="question-list">
        {questions.map((q, i) => {
          const at = `questions.${String(i)}`;
          const f = (name: string) => `${at}.${name}`;
          const n = String(i + 1);
          const name = q.label.trim() || `question ${n}`;
          return (
            <li key={q.uid} data-uid={q.uid} data-testid="question-draft">
              <fieldset {...problems.props(at)} className="question-draft">
                <legend>Question {n}</legend>
                {problems.error(at)}
                <div className="field">
                  <label htmlFor={problems.idOf(f("label"))}>Question {n}: wording</label>
                  <input
                    {...problems.props(f("label"))}
                    data-focus="label"
                    value={q.label}
                    maxLength={500}
                    autoComplete="off"
                    onChange={(e) => {
                      update(i, { label: e.target.value });
                    }}
                  />
                  {problems.error(f("label"))}
                </div>
                <div className="field">
                  <label htmlFor={problems.idOf(f("key"))}>Question {n}: key</label>
                  <input
                    {...problems.props(f("key"), `${id}-key-hint`)}
                    value={q.key}
                    maxLength={40}
                    autoComplete="off"
                    spellCheck={false}
                    onChange={(e) => {
                      update(i, { key: e.target.value, keyTouched: true });
                    }}
                  />
                  <span id={`${id}-key-hint`} className="field-hint">
                    Names the answer in the API and the exports: a–z, 0–9 and _, starting with a letter, different for
                    each question.
                  </span>
                  {problems.error(f("key"))}
                </div>
                <div className="field">
                  <label htmlFor={problems.idOf(f("type"))}>Question {n}: answer type</label>
                  <select
                    {...problems.props(f("type"))}
                    value={q.type}
                    onChange={(e) => {
                      const type = questionTypes.find((t) => t === e.target.value);
                      if (type) update(i, { type });
                    }}
                  >
                    {questionTypes.map((t: QuestionType) => (
                      <option key={t} value={t}>
                        {questionTypeLabels[t]}
                      </option>
                    ))}
                  </select>
                  {problems.error(f("type"))}
                </div>
                <div className="field">
                  <span className="choice">
                    <input
                      {...problems.props(f("required"))}
                      type="checkbox"
                      checked={q.required}
                      onChange={(e) => {
                        update(i, { required: e.target.checked });
                      }}
                    />
                    <label htmlFor={problems.idOf(f("required"))}>
                      {q.type === "boolean"
                        ? `Question ${n}: required — a consent, only a tick answers it`
                        : `Question ${n}: required`}
                    </label>
                  </span>
                  {problems.error(f("required"))}
                </div>
                {isChoice(q.type) && (
                  <div className="field">
                    <label htmlFor={problems.idOf(f("options"))}>Question {n}: options, one a line</label>
                    <textarea
                      {...problems.props(f("options"), `${id}-options-hint-${q.uid}`)}
                      rows={Math.max(3, optionsOf(q.options).length + 1)}
                      value={q.options}
                      onChange={(e) => {
                        update(i, { options: e.target.value });
                      }}
                    />
                    <span id={`${id}-options-hint-${q.uid}`} className="field-hint">
                      1 to 50 options, each different, in the order patients see them (
                      {String(optionsOf(q.options).length)} now).
                    </span>
                    {problems.error(f("options"))}
                  </div>
                )}
                {isText(q.type) && (
                  <div className="field">
                    <label htmlFor={problems.idOf(f("max_length"))}>Question {n}: longest answer (characters)</label>
                    <input
                      {...problems.props(f("max_length"), `${id}-max-hint-${q.uid}`)}
                      type="number"
                      inputMode="numeric"
                      min={1}
                      max={textLimits[q.type === "text" ? "text" : "long_text"].max}
                      value={q.max_length}
                      onChange={(e) => {
                        update(i, { max_length: e.target.value });
                      }}
                    />
                    <span id={`${id}-max-hint-${q.uid}`} className="field-hint">
                      Empty: {String(textLimits[q.type === "text" ? "text" : "long_text"].default)}; at most{" "}
                      {String(textLimits[q.type === "text" ? "text" : "long_text"].max)}.
                    </span>
                    {problems.error(f("max_length"))}
                  </div>
                )}
                <div className="question-actions">
                  <button
                    type="button"
                    className="secondary"
                    data-move="up"
                    disabled={i === 0}
                    aria-label={`Move up: “${name}”`}
                    onClick={() => {
                      move(i, -1);
                    }}
                  >
                    Move up
                  </button>
                  <button
                    type="button"
                    className="secondary"
                    data-move="down"
                    disabled={i === questions.length - 1}
                    aria-label={`Move down: “${name}”`}
                    onClick={() => {
                      move(i, 1);
                    }}
                  >
                    Move down
                  </button>
                  <button
                    type="button"
                    className="secondary"
                    aria-label={`Remove: “${name}”`}
                    onClick={() => {
                      props.onChange(questions.filter((_q, j) => j !== i));
                      problems.clear();
                      setFocus({ selector: "add" });
                    }}
                  >
                    Remove
                  </button>
                </div>
              </fieldset>
            </li>
          );
        })}
      </ol>
      {questions.length >= MAX_QUESTIONS ? (
        <p className="hint">A service asks at most {MAX_QUESTIONS} questions.</p>
      ) : (
        <button
          type="button"
          className="secondary"
          ref={addButton}
          onClick={() => {
            const added = newQuestion(questions.map((q) => q.key));
            props.onChange([...questions, added]);
            setFocus({ selector: `[data-uid="${added.uid}"] [data-focus="label"]` });
          }}
        >
          Add a question
        </button>
      )}
    </fieldset>
  );
}
