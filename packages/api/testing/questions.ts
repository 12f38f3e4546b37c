import type { z } from "zod";
import type { questionsInput } from "../src/schemas/questions.ts";

/** A question as S1/S2 take it (§19). */
export type QuestionInput = z.input<typeof questionsInput>[number];

/** One question of every type of §19, the first four required. */
export const questionsOfEveryType: QuestionInput[] = [
  { key: "reason", label: "Reason for the visit", type: "text", required: true },
  { key: "insurance", label: "Insurance", type: "choice", required: true, options: ["public", "private", "none"] },
  { key: "consent", label: "I agree to the treatment terms", type: "boolean", required: true },
  { key: "born", label: "Date of birth", type: "date", required: true },
  { key: "history", label: "Medical history", type: "long_text", max_length: 50 },
  { key: "symptoms", label: "Symptoms", type: "multi_choice", options: ["fever", "cough", "pain"] },
  { key: "weight", label: "Weight (kg)", type: "number" },
  { key: "contact_email", label: "Another e-mail", type: "email" },
  { key: "contact_phone", label: "Another phone", type: "phone" },
];
