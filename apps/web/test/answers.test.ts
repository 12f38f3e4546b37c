import { describe, expect, it } from "vitest";
import { answersOf, answerText, checkDrafts, type Question } from "../src/answers.ts";

const questions: Question[] = [
  { key: "reason", label: "Reason", type: "text", required: true, max_length: 5 },
  { key: "areas", label: "Areas", type: "multi_choice", required: false, options: ["Back", "Neck", "Head"] },
  { key: "consent", label: "Consent", type: "boolean", required: true },
  { key: "first", label: "First visit?", type: "boolean", required: false },
  { key: "weight", label: "Weight", type: "number", required: false },
  { key: "phone", label: "Phone", type: "phone", required: false },
  { key: "insurance", label: "Insurance", type: "choice", required: false, options: ["Public"] },
];

describe("the booking page's answers (CONTRACT §19)", () => {
  it("sends typed values, leaves unanswered questions out, and keeps a multi-choice in the options' order", () => {
    expect(
      answersOf(questions, {
        reason: " Ache ",
        areas: ["Head", "Back"],
        consent: true,
        first: false,
        weight: "72.5",
        phone: "",
      }),
    ).toEqual({ reason: " Ache ", areas: ["Back", "Head"], consent: true, first: false, weight: 72.5 });
    // An unticked consent is no answer (the server names it as required), and an empty list none.
    expect(answersOf(questions, { consent: false, areas: [] })).toEqual({});
  });

  it("names what must be fixed before sending, in words for the patient", () => {
    expect(checkDrafts(questions, { consent: false, reason: "   " })).toEqual({
      reason: "Please answer this question: it is required.",
      consent: "Please accept this to book.",
    });
    expect(
      checkDrafts(questions, { reason: "123456", consent: true, weight: "abc", phone: "030 1234", insurance: "Gold" }),
    ).toEqual({
      reason: "Please shorten this answer to at most 5 characters.",
      weight: "Please enter a number.",
      phone: "Please enter the number in international form, e.g. +4930123456.",
      insurance: "Please choose one of the options.",
    });
    expect(checkDrafts(questions, { reason: "Ache", consent: true, phone: "+4930123456" })).toEqual({});
  });

  it("reads answers back for the patient", () => {
    expect(answerText({ value: true })).toBe("yes");
    expect(answerText({ value: false }, { yes: "ja", no: "nein" })).toBe("nein");
    expect(answerText({ value: ["Back", "Neck"] })).toBe("Back, Neck");
    expect(answerText({ value: 72.5 })).toBe("72.5");
  });
});
