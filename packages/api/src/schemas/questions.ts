// Booking questions (CONTRACT §19, docs/questions.md): the one schema of a service's questions
// (validated when the service is saved; it also types the client package through the router) and
// the one validator of a booking's answers, which every booking route calls (B1, O4, T3→B1 with
// hold_id, R1, L2's hold made at O4, FHIR $book).
import { z } from "zod";
import { type BookingAnswer, type QuestionType, questionTypes } from "@clinic/db";
import { validationFailed } from "../errors.ts";
import { localDate, phoneE164 } from "./wire.ts";

/** The most questions a service may ask (the services_questions_list check says the same). */
export const MAX_QUESTIONS = 30;

/** Each text type's longest answer: the default when max_length is left out, and its upper bound. */
const textLimits = {
  text: { default: 200, max: 2000 },
  long_text: { default: 2000, max: 10_000 },
} as const;

const option = z.string().trim().min(1).max(200);

/** One question as a service stores and shows it (max_length filled in for the text types). */
export const questionOutput = z.object({
  key: z.string(),
  label: z.string(),
  type: z.enum(questionTypes),
  required: z.boolean(),
  options: z.array(z.string()).optional(),
  max_length: z.number().int().optional(),
});
export type Question = z.infer<typeof questionOutput>;

const questionInput = z
  .strictObject({
    key: z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, "must be a lower-case letter, then up to 39 of a-z, 0-9 and _"),
    label: z.string().trim().min(1).max(500),
    type: z.enum(questionTypes),
    required: z.boolean().default(false),
    options: z.array(option).min(1).max(50).optional(),
    max_length: z.number().int().min(1).optional(),
  })
  .superRefine((q, ctx) => {
    const choice = q.type === "choice" || q.type === "multi_choice";
    if (choice && q.options === undefined)
      ctx.addIssue({ code: "custom", path: ["options"], message: `is required for type ${q.type}` });
    if (!choice && q.options !== undefined)
      ctx.addIssue({ code: "custom", path: ["options"], message: `is only for choice and multi_choice` });
    if (q.options !== undefined && new Set(q.options).size !== q.options.length)
      ctx.addIssue({ code: "custom", path: ["options"], message: "must be distinct" });
    if (q.max_length !== undefined) {
      if (q.type !== "text" && q.type !== "long_text")
        ctx.addIssue({ code: "custom", path: ["max_length"], message: "is only for text and long_text" });
      else if (q.max_length > textLimits[q.type].max)
        ctx.addIssue({ code: "custom", path: ["max_length"], message: `must be at most ${textLimits[q.type].max}` });
    }
  })
  .transform((q): Question => ({
    key: q.key,
    label: q.label,
    type: q.type,
    required: q.required,
    ...(q.options === undefined ? {} : { options: q.options }),
    ...(q.type === "text" || q.type === "long_text" ? { max_length: q.max_length ?? textLimits[q.type].default } : {}),
  }));

/** A service's questions as the API takes them (S1/S2): up to 30, keys unique. */
export const questionsInput = z
  .array(questionInput)
  .max(MAX_QUESTIONS)
  .superRefine((questions, ctx) => {
    const seen = new Set<string>();
    questions.forEach((q, i) => {
      if (seen.has(q.key)) ctx.addIssue({ code: "custom", path: [i, "key"], message: "must be unique in the service" });
      seen.add(q.key);
    });
  });

/** The answers of a booking as the API takes them: `{key: value}`; the validator checks each value. */
export const answersInput = z.record(z.string(), z.unknown());

/** An appointment's answers as the API shows them (§19): as asked and answered at booking. */
export const answersOutput = z.array(
  z.object({
    key: z.string(),
    label: z.string(),
    type: z.enum(questionTypes),
    value: z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]),
  }) satisfies z.ZodType<BookingAnswer>,
);

/** The stored questions of a service (written by questionsInput): parsed, so a bad row fails loudly. */
export const storedQuestions = z.array(questionOutput);

const emailAnswer = z.email().max(320);

/**
 * Checks a booking's answers against the service's questions as they are now and returns them as
 * they are kept with the appointment: `[{key, label, type, value}]` in the questions' order, only the
 * answered ones. 400 VALIDATION_FAILED at `answers.<key>` for an unknown key, a missing required
 * answer (a required boolean is a consent: only `true` answers it), a wrong type, an option not
 * offered or a value too long. `null` (or "" for the text types) is no answer.
 */
export function checkAnswers(questions: readonly Question[], answers: Record<string, unknown> | undefined) {
  const given = answers ?? {};
  const known = new Set(questions.map((q) => q.key));
  for (const key of Object.keys(given))
    if (!known.has(key)) throw validationFailed(`answers.${key}`, "is not a question of this service");
  const kept: BookingAnswer[] = [];
  for (const question of questions) {
    const value = answerValue(question, given[question.key]);
    if (value === undefined) {
      if (question.required) throw validationFailed(`answers.${question.key}`, "is required");
      continue;
    }
    kept.push({ key: question.key, label: question.label, type: question.type, value });
  }
  return kept;
}

/** One answer checked against its question: its kept value, or undefined when not answered. */
function answerValue(question: Question, raw: unknown): BookingAnswer["value"] | undefined {
  const path = `answers.${question.key}`;
  const wrong = (message: string) => validationFailed(path, message);
  if (raw === undefined || raw === null) return undefined;
  const type: QuestionType = question.type;
  switch (type) {
    case "text":
    case "long_text": {
      if (typeof raw !== "string") throw wrong("must be text");
      if (raw.trim() === "") return undefined;
      const max = question.max_length ?? textLimits[type].default;
      if (raw.length > max) throw wrong(`must be at most ${max} characters`);
      return raw;
    }
    case "choice": {
      if (typeof raw !== "string") throw wrong("must be one of the options");
      if (!(question.options ?? []).includes(raw)) throw wrong("is not one of the options");
      return raw;
    }
    case "multi_choice": {
      if (!Array.isArray(raw) || !raw.every((v): v is string => typeof v === "string"))
        throw wrong("must be a list of options");
      if (new Set(raw).size !== raw.length) throw wrong("must not name an option twice");
      const options = question.options ?? [];
      const stray = raw.find((v) => !options.includes(v));
      if (stray !== undefined) throw wrong(`"${stray}" is not one of the options`);
      if (raw.length === 0) return undefined;
      // Kept in the options' order, so the same choice reads the same.
      return options.filter((o) => raw.includes(o));
    }
    case "boolean": {
      if (typeof raw !== "boolean") throw wrong("must be true or false");
      if (question.required && !raw) throw wrong("must be accepted (true)");
      return raw;
    }
    case "date": {
      if (typeof raw !== "string" || !localDate.safeParse(raw).success) throw wrong("must be a date YYYY-MM-DD");
      return raw;
    }
    case "number": {
      if (typeof raw !== "number" || !Number.isFinite(raw)) throw wrong("must be a number");
      return raw;
    }
    case "email": {
      if (typeof raw !== "string" || !emailAnswer.safeParse(raw).success) throw wrong("must be an e-mail address");
      return raw;
    }
    case "phone": {
      if (typeof raw !== "string" || !phoneE164.safeParse(raw).success)
        throw wrong("must be a phone number in E.164 form, e.g. +4930123456");
      return raw;
    }
  }
}
