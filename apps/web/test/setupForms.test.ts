// The setup pages' logic without a browser (docs/web.md "Clinic setup"): where a refusal lands on a
// form (problem.tsx), the seed's naming convention (naming.ts), and what the service form sends
// (serviceForm.ts).
import type { ClinicErrorCode } from "@clinic/client";
import { describe, expect, it } from "vitest";
import { offeringOf, suggestName } from "../src/setup/naming.ts";
import { fieldOfPath, problemsOf, problemText } from "../src/setup/problem.tsx";
import {
  type Service,
  draftOf,
  fieldsOf,
  keyFromLabel,
  patchOf,
  serviceFieldLabel,
  serviceFields,
} from "../src/setup/serviceForm.ts";

/** What a client call rejects with for a §2 problem (the shape `problemOf` reads). */
function refusal(
  code: ClinicErrorCode,
  detail: string,
  options: { errors?: { path: string; message: string }[]; extra?: Record<string, unknown> } = {},
) {
  return {
    message: detail,
    data: { domain_code: code, httpStatus: 409, errors: options.errors ?? null, extra: options.extra ?? null },
  };
}

const service: Service = {
  id: "11111111-1111-4111-8111-111111111111",
  clinic_id: "22222222-2222-4222-8222-222222222222",
  name: "Massage",
  duration_min: 30,
  price: "49.90",
  provider_id: "33333333-3333-4333-8333-333333333333",
  provider_name: "Anna Berg",
  is_active: true,
  buffer_before_min: 0,
  buffer_after_min: 5,
  slot_step_min: null,
  min_notice_min: 0,
  booking_horizon_days: null,
  requires_confirmation: false,
  capacity: 1,
  required_resource_kinds: ["room"],
  questions: [
    { key: "reason", label: "Reason", type: "text", required: true, max_length: 200 },
    { key: "kind", label: "Kind", type: "choice", required: false, options: ["A", "B"] },
  ],
  created_at: new Date("2026-11-01T10:00:00.000Z"),
  updated_at: new Date("2026-11-01T10:00:00.000Z"),
};

describe("where a refusal lands (problem.tsx)", () => {
  const fields = [
    "name",
    "duration_min",
    "questions",
    "questions.0",
    "questions.0.key",
    "questions.0.options",
    "email",
  ];

  it("finds a path's field, or the nearest enclosing one", () => {
    expect(fieldOfPath("duration_min", fields)).toBe("duration_min");
    expect(fieldOfPath("questions.0.options.3", fields)).toBe("questions.0.options");
    expect(fieldOfPath("questions.0.label", fields)).toBe("questions.0");
    expect(fieldOfPath("questions.7.key", fields)).toBe("questions");
    expect(fieldOfPath("price", fields)).toBeUndefined();
  });

  it("puts each validation message under its field with the field's label, the rest in the alert", () => {
    const error = refusal("VALIDATION_FAILED", "duration_min: Too big", {
      errors: [
        { path: "duration_min", message: "Too big: expected number to be <=1440" },
        { path: "questions.0.key", message: "must be a lower-case letter" },
        { path: "price", message: "must be a decimal" },
      ],
    });
    const result = problemsOf(error, { fields, labelOf: serviceFieldLabel });
    expect(result.fields).toEqual({
      duration_min: "Duration (minutes): Too big: expected number to be <=1440.",
      "questions.0.key": "Question 1, key: must be a lower-case letter.",
    });
    expect(result.alert).toBe("Please check the marked entries, and: Price: must be a decimal");
  });

  it("puts a refusal whose detail concerns one field there, with the §2 detail", () => {
    const taken = refusal("ALREADY_MEMBER", "the user is already a member of this clinic");
    expect(problemsOf(taken, { fields, codes: { ALREADY_MEMBER: "email" } })).toEqual({
      fields: { email: "Already a member: the user is already a member of this clinic." },
      alert: "Please check the marked entries.",
    });
    // Without a field for it, the same words are the alert.
    expect(problemsOf(taken, { fields })).toEqual({
      fields: {},
      alert: "Already a member: the user is already a member of this clinic.",
    });
    // A refusal with field errors but another code: its detail at the field its errors name.
    const notProvider = refusal("NOT_A_PROVIDER", "provider_id 3 is not the user id of a provider of this clinic", {
      errors: [{ path: "provider_id", message: "must be the user id of a member with is_provider true" }],
    });
    expect(problemsOf(notProvider, { fields: ["provider_id"] }).fields).toEqual({
      provider_id: "Not a provider of this clinic: provider_id 3 is not the user id of a provider of this clinic.",
    });
  });

  it("says a refusal in words with its detail, and what the pages say for being signed out", () => {
    expect(
      problemText(
        refusal("INVALID_TRANSITION", "cannot approve a provider whose status is approved (allowed: suspend, remove)"),
      ),
    ).toBe(
      "That change is not possible now: cannot approve a provider whose status is approved (allowed: suspend, remove).",
    );
    expect(problemText(refusal("UNAUTHENTICATED", "no token"))).toBe("Please sign in first.");
    expect(problemText(new Error("network"))).toBe("Something went wrong. Please try again.");
  });
});

describe("the seed's naming convention (naming.ts)", () => {
  const providers = ["Anna Berg", "Ben Kluge"];
  const services = [
    { id: "a", name: "Massage", provider_name: "Anna Berg" },
    { id: "b", name: "Check-up", provider_name: null },
  ];

  it("strips a provider's name to find the offering", () => {
    expect(offeringOf("Massage - Anna Berg", providers)).toBe("Massage");
    expect(offeringOf("massage - ben kluge ", providers)).toBe("massage");
    expect(offeringOf("Massage - Someone Else", providers)).toBe("Massage - Someone Else");
  });

  it("suggests “offering - provider” when another service offers the same, and names the others lacking it", () => {
    expect(
      suggestName({
        serviceId: undefined,
        name: "massage",
        providerName: "Ben Kluge",
        services,
        providerNames: providers,
      }),
    ).toEqual({
      offering: "massage",
      name: "massage - Ben Kluge",
      unnamed: [{ name: "Massage", suggestion: "Massage - Anna Berg" }],
      taken: undefined,
    });
    // The conventional name is another service's already: said, not offered again.
    expect(
      suggestName({
        serviceId: "a",
        name: "Massage",
        providerName: "Ben Kluge",
        services: [...services, { id: "c", name: "massage - Ben Kluge", provider_name: "Ben Kluge" }],
        providerNames: providers,
      }),
    ).toMatchObject({ name: "Massage - Ben Kluge", taken: "massage - Ben Kluge" });
    // Nobody else offers it, no provider, or the service itself: nothing to suggest.
    for (const input of [
      { serviceId: undefined, name: "Physio", providerName: "Ben Kluge" },
      { serviceId: undefined, name: "Massage", providerName: null },
      { serviceId: "a", name: "Massage", providerName: "Anna Berg" },
    ])
      expect(suggestName({ ...input, services, providerNames: providers })).toBeUndefined();
    // Already conventional and the others too: nothing left to say.
    expect(
      suggestName({
        serviceId: undefined,
        name: "Massage - Ben Kluge",
        providerName: "Ben Kluge",
        services: [{ id: "a", name: "Massage - Anna Berg", provider_name: "Anna Berg" }],
        providerNames: providers,
      }),
    ).toBeUndefined();
  });
});

describe("the service form (serviceForm.ts)", () => {
  it("sends what the form holds, with empty optional numbers as their meaning", () => {
    const draft = { ...draftOf(), name: "Yoga", duration_min: "60", slot_step_min: "", capacity: "", price: " " };
    const result = fieldsOf(draft);
    expect(result).toEqual({
      fields: expect.objectContaining({
        name: "Yoga",
        duration_min: 60,
        price: null,
        provider_id: null,
        slot_step_min: null,
        booking_horizon_days: null,
        capacity: 1,
        buffer_before_min: 0,
        questions: [],
      }) as unknown,
    });
  });

  it("refuses an empty duration and one provider without one, before asking", () => {
    expect(fieldsOf({ ...draftOf(), duration_min: " ", provider: "one", provider_id: "" })).toEqual({
      problems: {
        duration_min: "Duration (minutes): enter how many minutes it takes.",
        provider_id: "Provider: choose the provider, or “Any provider”.",
      },
    });
  });

  it("patches only what differs from the service (an amount compared as an amount)", () => {
    const untouched = fieldsOf(draftOf(service));
    if (!("fields" in untouched)) throw new Error("refused");
    expect(patchOf(untouched.fields, service)).toEqual({});
    const draft = draftOf(service);
    const changed = fieldsOf({
      ...draft,
      price: "49.9",
      duration_min: "45",
      provider: "any",
      questions: draft.questions.map((q) => (q.key === "kind" ? { ...q, options: "A\nB\n\nC" } : q)),
    });
    if (!("fields" in changed)) throw new Error("refused");
    expect(patchOf(changed.fields, service)).toEqual({
      duration_min: 45,
      provider_id: null,
      questions: [
        { key: "reason", label: "Reason", type: "text", required: true, max_length: 200 },
        { key: "kind", label: "Kind", type: "choice", required: false, options: ["A", "B", "C"] },
      ],
    });
  });

  it("makes a question's key from its wording, unique in the service", () => {
    expect(keyFromLabel("Reason for your visit?")).toBe("reason_for_your_visit");
    expect(keyFromLabel("Über 18?")).toBe("uber_18");
    expect(keyFromLabel("1st visit")).toBe("q_1st_visit");
    expect(keyFromLabel("", ["question"])).toBe("question_2");
    expect(keyFromLabel("Reason", ["reason", "reason_2"])).toBe("reason_3");
    expect(keyFromLabel("x".repeat(60))).toHaveLength(36);
  });

  it("lists every field a refusal may name, the questions' included", () => {
    const fields = serviceFields(draftOf(service));
    expect(fields).toContain("questions.1.options");
    expect(fields).toContain("slot_step_min");
    expect(serviceFieldLabel("questions.1.options")).toBe("Question 2, options");
  });
});
