// The service form without React (docs/web.md "Services"): what the form holds while an
// administrator types (strings, as inputs give them), what S1 and S2 are sent, and the few checks
// the page makes itself. Every other rule is the server's, whose refusal lands at its field.
import type { RouterInputs, RouterOutputs } from "@clinic/client";

export type Service = RouterOutputs["services"]["get"];
export type ServiceFields = Omit<RouterInputs["services"]["create"], "clinic_id">;
export type QuestionType = Service["questions"][number]["type"];
type QuestionInput = NonNullable<ServiceFields["questions"]>[number];

/** Every question type of §19 with what the editor calls it (a missing type fails to compile). */
export const questionTypeLabels: Record<QuestionType, string> = {
  text: "Short text",
  long_text: "Long text",
  choice: "One of several options",
  multi_choice: "Any of several options",
  boolean: "Yes or no (a consent when required)",
  date: "Date",
  number: "Number",
  email: "E-mail address",
  phone: "Phone number",
};
export const questionTypes = Object.keys(questionTypeLabels).filter((t): t is QuestionType => t in questionTypeLabels);

export const isChoice = (type: QuestionType) => type === "choice" || type === "multi_choice";
export const isText = (type: QuestionType) => type === "text" || type === "long_text";
/** §19's longest answers: the default when the editor leaves max_length empty, and its bound. */
export const textLimits = { text: { default: 200, max: 2000 }, long_text: { default: 2000, max: 10_000 } } as const;
export const MAX_QUESTIONS = 30;

/** A question while it is edited; `uid` keeps React's key when questions move. */
export interface QuestionDraft {
  uid: string;
  key: string;
  /** The key was typed (or saved): the label no longer suggests it. */
  keyTouched: boolean;
  label: string;
  type: QuestionType;
  required: boolean;
  /** One option a line (choice, multi_choice). */
  options: string;
  /** Empty: the type's default. */
  max_length: string;
}

export interface ServiceDraft {
  name: string;
  duration_min: string;
  price: string;
  is_active: boolean;
  provider: "any" | "one";
  provider_id: string;
  buffer_before_min: string;
  buffer_after_min: string;
  slot_step_min: string;
  min_notice_min: string;
  booking_horizon_days: string;
  requires_confirmation: boolean;
  capacity: string;
  required_resource_kinds: string[];
  questions: QuestionDraft[];
}

/** The form's fields by the API's names, as labelled on the page (the question fields are built per index). */
export const serviceLabels = {
  name: "Name",
  duration_min: "Duration (minutes)",
  price: "Price",
  is_active: "Bookable (active)",
  provider_id: "Provider",
  buffer_before_min: "Preparation before (minutes)",
  buffer_after_min: "Clean-up after (minutes)",
  slot_step_min: "Start times every (minutes)",
  min_notice_min: "Notice needed (minutes)",
  booking_horizon_days: "Bookable up to (days ahead)",
  requires_confirmation: "Online bookings wait for the clinic's confirmation",
  capacity: "Seats per time (capacity)",
  required_resource_kinds: "Rooms and equipment needed",
  questions: "Questions",
} satisfies Record<string, string>;
const labelByField: ReadonlyMap<string, string> = new Map(Object.entries(serviceLabels));

const questionPropLabels: Record<string, string> = {
  key: "key",
  label: "question",
  type: "answer type",
  required: "required",
  options: "options",
  max_length: "longest answer",
};

/** The label of any field of the form, the questions' included ("Question 2, key"). */
export function serviceFieldLabel(field: string): string | undefined {
  const question = /^questions\.(\d+)(?:\.(\w+))?/.exec(field);
  if (question) {
    const n = Number(question[1]) + 1;
    const prop = question[2];
    return prop ? `Question ${String(n)}, ${questionPropLabels[prop] ?? prop}` : `Question ${String(n)}`;
  }
  return labelByField.get(field);
}

/** Every field a refusal can land on, for `problemsOf`. */
export function serviceFields(draft: ServiceDraft): string[] {
  return [
    ...Object.keys(serviceLabels),
    ...draft.questions.flatMap((_q, i) =>
      ["", ...Object.keys(questionPropLabels).map((p) => `.${p}`)].map((p) => `questions.${String(i)}${p}`),
    ),
  ];
}

let uids = 0;
const newUid = () => `q${String(++uids)}`;

/** A question's key from its label: lower-case ASCII words joined by `_`, starting with a letter. */
export function keyFromLabel(label: string, taken: readonly string[] = []): string {
  const words = label
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  let base = (/^[a-z]/.test(words) ? words : `q_${words}`).slice(0, 36).replace(/_+$/, "");
  if (base === "q_" || base === "q") base = "question";
  let key = base;
  for (let n = 2; taken.includes(key); n++) key = `${base}_${String(n)}`;
  return key;
}

export function newQuestion(taken: readonly string[]): QuestionDraft {
  return {
    uid: newUid(),
    key: keyFromLabel("", taken),
    keyTouched: false,
    label: "",
    type: "text",
    required: false,
    options: "",
    max_length: "",
  };
}

const text = (n: number | null) => (n === null ? "" : String(n));

/** The form as it opens: the service's values, or a new service's defaults (§4, §8, §14). */
export function draftOf(service?: Service): ServiceDraft {
  return {
    name: service?.name ?? "",
    duration_min: service ? String(service.duration_min) : "30",
    price: service?.price ?? "",
    is_active: service?.is_active ?? true,
    provider: service?.provider_id ? "one" : "any",
    provider_id: service?.provider_id ?? "",
    buffer_before_min: String(service?.buffer_before_min ?? 0),
    buffer_after_min: String(service?.buffer_after_min ?? 0),
    slot_step_min: text(service?.slot_step_min ?? null),
    min_notice_min: String(service?.min_notice_min ?? 0),
    booking_horizon_days: text(service?.booking_horizon_days ?? null),
    requires_confirmation: service?.requires_confirmation ?? false,
    capacity: String(service?.capacity ?? 1),
    required_resource_kinds: [...(service?.required_resource_kinds ?? [])],
    questions: (service?.questions ?? []).map((q) => ({
      uid: newUid(),
      key: q.key,
      keyTouched: true,
      label: q.label,
      type: q.type,
      required: q.required,
      options: (q.options ?? []).join("\n"),
      max_length: q.max_length === undefined ? "" : String(q.max_length),
    })),
  };
}

/** A number field: empty gives `empty`; anything else the number typed (the server judges its range). */
const numberOf = <E>(value: string, empty: E): number | E => (value.trim() === "" ? empty : Number(value));

/** The options of a choice, one a line, blank lines left out. */
export const optionsOf = (lines: string) =>
  lines
    .split("\n")
    .map((o) => o.trim())
    .filter((o) => o !== "");

function questionOf(q: QuestionDraft): QuestionInput {
  const maxLength = numberOf(q.max_length, undefined);
  return {
    key: q.key.trim(),
    label: q.label,
    type: q.type,
    required: q.required,
    ...(isChoice(q.type) ? { options: optionsOf(q.options) } : {}),
    ...(isText(q.type) && maxLength !== undefined ? { max_length: maxLength } : {}),
  };
}

/**
 * What S1 is sent for the form (S2 gets the part that differs, `patchOf`), or the page's own
 * refusals by field: a duration left empty, "one provider" without one chosen.
 */
export function fieldsOf(draft: ServiceDraft): { fields: ServiceFields } | { problems: Record<string, string> } {
  const problems: Record<string, string> = {};
  if (draft.duration_min.trim() === "") problems.duration_min = "Duration (minutes): enter how many minutes it takes.";
  if (draft.provider === "one" && draft.provider_id === "")
    problems.provider_id = "Provider: choose the provider, or “Any provider”.";
  if (Object.keys(problems).length > 0) return { problems };
  return {
    fields: {
      name: draft.name,
      duration_min: Number(draft.duration_min),
      price: draft.price.trim() === "" ? null : draft.price.trim(),
      provider_id: draft.provider === "one" ? draft.provider_id : null,
      is_active: draft.is_active,
      buffer_before_min: numberOf(draft.buffer_before_min, 0),
      buffer_after_min: numberOf(draft.buffer_after_min, 0),
      slot_step_min: numberOf(draft.slot_step_min, null),
      min_notice_min: numberOf(draft.min_notice_min, 0),
      booking_horizon_days: numberOf(draft.booking_horizon_days, null),
      requires_confirmation: draft.requires_confirmation,
      capacity: numberOf(draft.capacity, 1),
      required_resource_kinds: draft.required_resource_kinds,
      questions: draft.questions.map(questionOf),
    },
  };
}

const sameKinds = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().every((k, i) => k === [...b].sort()[i]);

/** Whether the form's value of a field is what the service has (a price compared as an amount). */
function sameAs(field: keyof ServiceFields, value: unknown, service: Service): boolean {
  if (field === "price") {
    const price = typeof value === "string" ? value : null;
    return price === null || service.price === null ? price === service.price : Number(price) === Number(service.price);
  }
  if (field === "required_resource_kinds")
    return Array.isArray(value) && sameKinds(value.map(String), service.required_resource_kinds);
  if (field === "questions") return JSON.stringify(value) === JSON.stringify(service.questions.map(storedQuestion));
  return value === service[field];
}

/** A stored question written the way the form sends it, so that an untouched list compares equal. */
const storedQuestion = (q: Service["questions"][number]): QuestionInput => ({
  key: q.key,
  label: q.label,
  type: q.type,
  required: q.required,
  ...(q.options === undefined ? {} : { options: q.options }),
  ...(q.max_length === undefined ? {} : { max_length: q.max_length }),
});

/** What S2 is sent: the fields whose value differs from the service's (the audit trail names exactly these). */
export function patchOf(fields: ServiceFields, service: Service): Partial<ServiceFields> {
  const patch: Partial<ServiceFields> = {};
  for (const field of Object.keys(fields) as (keyof ServiceFields)[]) {
    const value = fields[field];
    if (value !== undefined && !sameAs(field, value, service)) Object.assign(patch, { [field]: value });
  }
  return patch;
}
