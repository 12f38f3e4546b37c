// A service's questions (CONTRACT §19) as the agent handles them, without I/O: a typed answer from
// what a person typed or passed with --answer, the same checks the server makes (which stays the
// judge), and the question as the agent puts it.
import type { Service } from "./run.ts";
import { fold } from "./words.ts";

export type Question = Service["questions"][number];
/** An answer as the API takes it: text, the chosen options, yes/no, or a number. */
export type AnswerValue = string | string[] | boolean | number;

/** What a typed answer is: a value, no answer (empty), or why it cannot be taken. */
export type ParsedAnswer = { ok: true; value: AnswerValue | undefined } | { ok: false; message: string };

const yes = new Set(["y", "yes", "true", "j", "ja", "1"]);
const no = new Set(["n", "no", "false", "nein", "0"]);
const e164 = /^\+[1-9]\d{1,14}$/;
const email = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Reads `text` as an answer to `question`. Empty text is no answer. A choice is an option's text
 * (case and accents ignored) or its number; a multi-choice takes several, separated by commas, kept
 * in the options' order; a yes/no takes y/yes/ja/true or n/no/nein/false; a date YYYY-MM-DD or
 * DD.MM.YYYY; a number with a decimal point or comma; a phone in E.164 (spaces, dashes and
 * brackets are dropped). A declined consent reads as `false`: `unanswerable` says it cannot book.
 */
export function parseAnswer(question: Question, text: string): ParsedAnswer {
  const raw = question.type === "text" || question.type === "long_text" ? text : text.trim();
  if (raw.trim() === "") return { ok: true, value: undefined };
  const options = question.options ?? [];
  switch (question.type) {
    case "text":
    case "long_text": {
      const max = question.max_length ?? (question.type === "text" ? 200 : 2000);
      if (Array.from(raw).length > max) return { ok: false, message: `must be at most ${String(max)} characters` };
      return { ok: true, value: raw };
    }
    case "choice": {
      const option = optionOf(options, raw);
      return option === undefined
        ? { ok: false, message: `must be one of: ${numbered(options)}` }
        : { ok: true, value: option };
    }
    case "multi_choice": {
      // An option with a comma in its name is taken whole before the text is split.
      const whole = optionOf(options, raw);
      const parts =
        whole === undefined
          ? raw
              .split(",")
              .map((p) => p.trim())
              .filter((p) => p !== "")
          : [whole];
      const chosen = new Set<string>();
      for (const part of parts) {
        const option = optionOf(options, part);
        if (option === undefined) return { ok: false, message: `"${part}" is not one of: ${numbered(options)}` };
        chosen.add(option);
      }
      return { ok: true, value: options.filter((o) => chosen.has(o)) };
    }
    case "boolean": {
      const word = fold(raw);
      if (yes.has(word)) return { ok: true, value: true };
      if (no.has(word)) return { ok: true, value: false };
      return { ok: false, message: "must be yes or no" };
    }
    case "date": {
      const german = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(raw);
      const date = german
        ? `${german[3] ?? ""}-${(german[2] ?? "").padStart(2, "0")}-${(german[1] ?? "").padStart(2, "0")}`
        : raw;
      if (!isDate(date)) return { ok: false, message: "must be a date YYYY-MM-DD" };
      return { ok: true, value: date };
    }
    case "number": {
      const n = /^[+-]?(\d+([.,]\d*)?|[.,]\d+)$/.test(raw) ? Number(raw.replace(",", ".")) : Number.NaN;
      if (!Number.isFinite(n)) return { ok: false, message: "must be a number" };
      return { ok: true, value: n };
    }
    case "email":
      if (!email.test(raw)) return { ok: false, message: "must be an e-mail address" };
      return { ok: true, value: raw };
    case "phone": {
      const phone = raw.replace(/[\s\-()/.]/g, "");
      if (!e164.test(phone)) return { ok: false, message: "must be a phone number in E.164 form, e.g. +4930123456" };
      return { ok: true, value: phone };
    }
  }
}

/**
 * Why an answer (or its absence) cannot book, or undefined when it can: a required question needs
 * an answer, and a required yes/no is a consent that only "yes" gives.
 */
export function unanswerable(question: Question, value: AnswerValue | undefined): string | undefined {
  if (!question.required) return undefined;
  if (question.type === "boolean" && value === false) return "declined: this consent is required to book";
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return "required, and not answered";
  return undefined;
}

/** "Reason for your visit (required)", with the kind of answer it takes. */
export function questionPrompt(question: Question): string {
  const kind: Record<Question["type"], string> = {
    text: "text",
    long_text: "text",
    choice: "a number or the option",
    multi_choice: "numbers or options, separated by commas",
    boolean: question.required ? "y to agree" : "y/n",
    date: "YYYY-MM-DD",
    number: "a number",
    email: "an e-mail address",
    phone: "E.164, e.g. +4930123456",
  };
  const skip = question.required ? "" : ", Enter = skip";
  return `${question.label}${question.required ? " (required)" : ""} [${kind[question.type]}${skip}]: `;
}

/** "1. Public, 2. Private": a question's options, numbered as the agent asks for them. */
export function numbered(options: readonly string[]): string {
  return options.map((o, i) => `${String(i + 1)}. ${o}`).join(", ");
}

/** The option `text` names: its number, or its text with case and accents ignored. */
function optionOf(options: readonly string[], text: string): string | undefined {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) {
    const byNumber = options[Number(trimmed) - 1];
    if (byNumber !== undefined) return byNumber;
  }
  const folded = fold(trimmed);
  return options.find((o) => fold(o) === folded);
}

/** A real calendar date YYYY-MM-DD. */
function isDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const at = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 10) === text;
}
