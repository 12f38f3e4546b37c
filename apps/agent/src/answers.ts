// The service's questions (CONTRACT §19) in the conversation: the answers given with --answer, the
// others asked of the user; without a person to ask, the required ones left unanswered are named
// and nothing is booked.
import type { Outcome, UnansweredJson } from "./outcome.ts";
import { type AnswerValue, numbered, parseAnswer, type Question, questionPrompt, unanswerable } from "./questions.ts";
import type { Run, Service } from "./run.ts";

/** How many times a question is asked again after an answer that cannot be taken. */
const tries = 3;

/**
 * The `answers` of a booking of `service`: --answer first, then (interactively) each question not
 * answered yet, the optional ones skippable with Enter. An --answer for a question the service does
 * not ask, or with a value its question cannot take, is a usage error (exit 2). A required question
 * left without an answer, or a consent declined, ends the run with `questions_unanswered` (exit 3),
 * naming each such question; interactively the first one ends the asking.
 */
export async function answersFor(
  run: Run,
  service: Service,
): Promise<{ answers: Record<string, AnswerValue> } | Outcome> {
  const { questions } = service;
  const given = run.options.answers;
  const stray = given.find((a) => !questions.some((q) => q.key === a.key));
  if (stray) {
    return {
      status: "usage_error",
      message:
        `--answer ${stray.key}: "${service.name}" asks no question "${stray.key}"` +
        (questions.length > 0
          ? `; its questions: ${questions.map((q) => q.key).join(", ")}`
          : "; it asks no questions"),
    };
  }
  const answers: Record<string, AnswerValue> = {};
  if (questions.length === 0) return { answers };
  const fromFlags = flagAnswers(questions, given);
  if ("status" in fromFlags) return fromFlags;
  const toAsk = questions.filter((q) => !(q.key in fromFlags.values));
  if (run.interactive && toAsk.length > 0)
    run.say(
      `${service.name} asks ${toAsk.length === 1 ? "a question" : `${String(toAsk.length)} questions`} (Enter skips an optional one):`,
    );
  const unanswered: UnansweredJson[] = [];
  for (const question of questions) {
    let value: AnswerValue | undefined = fromFlags.values[question.key];
    if (!(question.key in fromFlags.values) && run.interactive) value = await ask(run, question);
    const reason = unanswerable(question, value);
    if (reason !== undefined) {
      unanswered.push({
        key: question.key,
        label: question.label,
        type: question.type,
        required: question.required,
        reason:
          value === undefined && !run.interactive
            ? `${reason}; pass --answer ${question.key}=${exampleOf(question)}`
            : reason,
      });
      // A person who could not (or would not) answer is not asked the rest.
      if (run.interactive) break;
      continue;
    }
    if (value !== undefined) answers[question.key] = value;
  }
  if (unanswered.length > 0) {
    return { status: "questions_unanswered", service: { id: service.id, name: service.name }, unanswered };
  }
  return { answers };
}

/** The values of --answer by key (several of a multi-choice add up); a value its question cannot take is a usage error. */
function flagAnswers(
  questions: readonly Question[],
  given: readonly { key: string; text: string }[],
): { values: Record<string, AnswerValue | undefined> } | Outcome {
  const values: Record<string, AnswerValue | undefined> = {};
  for (const question of questions) {
    const texts = given.filter((a) => a.key === question.key).map((a) => a.text);
    if (texts.length === 0) continue;
    if (texts.length > 1 && question.type !== "multi_choice")
      return { status: "usage_error", message: `--answer ${question.key} is given ${String(texts.length)} times` };
    const chosen = new Set<string>();
    let value: AnswerValue | undefined;
    for (const text of texts) {
      const parsed = parseAnswer(question, text);
      if (!parsed.ok) return { status: "usage_error", message: `--answer ${question.key}: ${parsed.message}` };
      value = parsed.value;
      if (Array.isArray(parsed.value)) for (const option of parsed.value) chosen.add(option);
    }
    values[question.key] =
      question.type === "multi_choice" ? (question.options ?? []).filter((o) => chosen.has(o)) : value;
  }
  return { values };
}

/** Asks one question until it gets an answer it can take (or gives up): the value, or undefined for none. */
async function ask(run: Run, question: Question): Promise<AnswerValue | undefined> {
  const prompt = run.io.ask;
  if (!prompt) return undefined;
  if (question.options) run.say(`  ${numbered(question.options)}`);
  for (let attempt = 0; attempt < tries; attempt++) {
    const parsed = parseAnswer(question, await prompt(questionPrompt(question)));
    // A consent is given by a yes; anything else declines it (as every yes/no question of the agent).
    if (question.type === "boolean" && question.required) return parsed.ok && parsed.value === true;
    if (!parsed.ok) {
      run.say(`Please answer again: ${question.label} ${parsed.message}.`);
      continue;
    }
    if (parsed.value === undefined && question.required) {
      run.say(`${question.label} is required to book.`);
      continue;
    }
    return parsed.value;
  }
  return undefined;
}

/** What --answer for a question looks like, for the message that asks for it. */
function exampleOf(question: Question): string {
  switch (question.type) {
    case "boolean":
      return "yes";
    case "choice":
    case "multi_choice":
      return `"${question.options?.[0] ?? "…"}"`;
    case "date":
      return "YYYY-MM-DD";
    case "number":
      return "<number>";
    case "email":
      return "<e-mail>";
    case "phone":
      return "+4930123456";
    default:
      return '"…"';
  }
}
