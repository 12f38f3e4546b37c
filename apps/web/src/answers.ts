// A booking's answers to its service's questions (CONTRACT §19, docs/web.md "Questions on the
// booking page"), without React: what the form holds while the patient types, the `answers` the
// booking sends, the checks made before sending (the server's are the ones that count) and the
// server's refusals at `answers.<key>`, by question.
import { type RouterOutputs, problemOf } from "@clinic/client";

/** A question of a service as the online services list (O2) shows it. */
export type Question = RouterOutputs["onlineBooking"]["services"]["services"][number]["questions"][number];

/** An appointment's answer as the API shows it to the patient (U1, L1). */
export type Answer = RouterOutputs["me"]["appointments"]["appointments"][number]["answers"][number];

/**
 * What a control holds: the typed text (text, long_text, choice, date, number, email, phone), the
 * ticked options (multi_choice), or for a boolean true / false / undefined (not answered yet).
 */
export type Draft = string | string[] | boolean | undefined;
export type Drafts = Readonly<Record<string, Draft>>;

/** Errors by question key: a sentence shown under the question (and read with it). */
export type AnswerErrors = Readonly<Record<string, string>>;

const e164 = /^\+[1-9]\d{1,14}$/;
// The browser's own test of type=email (HTML's "valid e-mail address"); the server's is the judge.
const email =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;

/** A draft that says nothing: empty text, no ticked option, an untouched yes/no. */
function isEmpty(draft: Draft): boolean {
  if (draft === undefined) return true;
  if (typeof draft === "string") return draft.trim() === "";
  if (Array.isArray(draft)) return draft.length === 0;
  return false;
}

/**
 * The `answers` of a booking: `{key: value}` with a string, a string[] (multi_choice), a boolean or
 * a number (number). A question left unanswered is left out, and so is an unticked consent (the
 * server then names it as required). Multi-choice options keep the question's order.
 */
export function answersOf(
  questions: readonly Question[],
  drafts: Drafts,
): Record<string, string | string[] | boolean | number> {
  const answers: Record<string, string | string[] | boolean | number> = {};
  for (const q of questions) {
    const draft = drafts[q.key];
    if (isEmpty(draft)) continue;
    if (q.type === "boolean") {
      if (typeof draft !== "boolean") continue;
      // A consent is ticked or not given: an unticked one is no answer, not a "no".
      if (q.required && !draft) continue;
      answers[q.key] = draft;
    } else if (q.type === "multi_choice") {
      if (!Array.isArray(draft)) continue;
      answers[q.key] = (q.options ?? []).filter((o) => draft.includes(o));
    } else if (q.type === "number") {
      if (typeof draft !== "string") continue;
      const n = Number(draft.trim());
      // A number the browser could not read stays text: the check before sending names it.
      answers[q.key] = Number.isFinite(n) ? n : draft;
    } else if (typeof draft === "string") {
      answers[q.key] = q.type === "text" || q.type === "long_text" ? draft : draft.trim();
    }
  }
  return answers;
}

/**
 * The checks made before a booking is sent, in words for the patient: a required question not
 * answered (a consent not ticked), and the forms a browser can tell (number, date, e-mail, phone,
 * a text's length). Empty when the answers may be sent; the server checks them all again.
 */
export function checkDrafts(questions: readonly Question[], drafts: Drafts): AnswerErrors {
  const errors: Record<string, string> = {};
  for (const q of questions) {
    const draft = drafts[q.key];
    if (isEmpty(draft) || (q.type === "boolean" && q.required && draft !== true)) {
      if (q.required)
        errors[q.key] =
          q.type === "boolean" ? "Please accept this to book." : "Please answer this question: it is required.";
      continue;
    }
    if (typeof draft !== "string") continue;
    const value = draft.trim();
    switch (q.type) {
      case "text":
      case "long_text":
        // Counted in code points, as the server counts.
        if (q.max_length !== undefined && Array.from(draft).length > q.max_length)
          errors[q.key] = `Please shorten this answer to at most ${String(q.max_length)} characters.`;
        break;
      case "number":
        if (!Number.isFinite(Number(value))) errors[q.key] = "Please enter a number.";
        break;
      case "date":
        if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) errors[q.key] = "Please enter a date.";
        break;
      case "email":
        if (!email.test(value)) errors[q.key] = "Please enter an e-mail address, e.g. name@example.com.";
        break;
      case "phone":
        if (!e164.test(value)) errors[q.key] = "Please enter the number in international form, e.g. +4930123456.";
        break;
      case "choice":
        if (!(q.options ?? []).includes(value)) errors[q.key] = "Please choose one of the options.";
        break;
      default:
        break;
    }
  }
  return errors;
}

/**
 * The server's refusals of answers (400 VALIDATION_FAILED at `answers.<key>`) by question key, or
 * undefined when the error is not about an answer. An error at a key the page does not show (the
 * service's questions changed meanwhile) is kept under its key; the page says it in its message.
 */
export function answerErrorsOf(error: unknown): AnswerErrors | undefined {
  const problem = problemOf(error);
  if (problem?.code !== "VALIDATION_FAILED") return undefined;
  const errors: Record<string, string> = {};
  for (const e of problem.errors) {
    const key = /^answers\.(.+)$/.exec(e.path)?.[1];
    if (key === undefined) continue;
    // The server's message continues its path ("answers.reason is required"): here, the answer.
    errors[key] ??= `This answer ${e.message}${e.message.endsWith(".") ? "" : "."}`;
  }
  return Object.keys(errors).length > 0 ? errors : undefined;
}

/** An answer as the patient reads it back: yes or no (in the page's words), options joined, a number as written. */
export function answerText(
  answer: Pick<Answer, "value">,
  words: { yes: string; no: string } = { yes: "yes", no: "no" },
): string {
  const { value } = answer;
  if (typeof value === "boolean") return value ? words.yes : words.no;
  if (Array.isArray(value)) return value.join(", ");
  return String(value);
}
