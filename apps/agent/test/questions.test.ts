import { describe, expect, it } from "vitest";
import { type Question, parseAnswer, questionPrompt, unanswerable } from "../src/questions.ts";

const q = (question: Partial<Question> & Pick<Question, "type">): Question => ({
  key: "k",
  label: "Label",
  required: false,
  ...question,
});

describe("parseAnswer (CONTRACT §19 answers from typed text)", () => {
  it("takes empty text as no answer, for every type", () => {
    for (const type of [
      "text",
      "long_text",
      "choice",
      "multi_choice",
      "boolean",
      "date",
      "number",
      "email",
      "phone",
    ] as const)
      expect(parseAnswer(q({ type, options: ["A"] }), "  ")).toEqual({ ok: true, value: undefined });
  });

  it("keeps text as typed, up to its max length in code points", () => {
    expect(parseAnswer(q({ type: "text", max_length: 5 }), " hi ")).toEqual({ ok: true, value: " hi " });
    expect(parseAnswer(q({ type: "text", max_length: 3 }), "😀😀😀")).toEqual({ ok: true, value: "😀😀😀" });
    expect(parseAnswer(q({ type: "text", max_length: 3 }), "abcd")).toEqual({
      ok: false,
      message: "must be at most 3 characters",
    });
  });

  it("reads a choice by number or by text (case and accents ignored)", () => {
    const choice = q({ type: "choice", options: ["Öffentlich", "Privat"] });
    expect(parseAnswer(choice, "2")).toEqual({ ok: true, value: "Privat" });
    expect(parseAnswer(choice, "offentlich")).toEqual({ ok: true, value: "Öffentlich" });
    expect(parseAnswer(choice, "3")).toEqual({ ok: false, message: "must be one of: 1. Öffentlich, 2. Privat" });
  });

  it("reads a multi-choice as a comma list in the options' order, an option with a comma whole", () => {
    const multi = q({ type: "multi_choice", options: ["Back", "Neck, shoulders", "Head"] });
    expect(parseAnswer(multi, "3, back, 3")).toEqual({ ok: true, value: ["Back", "Head"] });
    expect(parseAnswer(multi, "neck, shoulders")).toEqual({ ok: true, value: ["Neck, shoulders"] });
    expect(parseAnswer(multi, "back, knee")).toEqual({
      ok: false,
      message: '"knee" is not one of: 1. Back, 2. Neck, shoulders, 3. Head',
    });
  });

  it("reads yes/no in English and German; a declined consent cannot book", () => {
    const consent = q({ type: "boolean", required: true });
    expect(parseAnswer(consent, "Ja")).toEqual({ ok: true, value: true });
    expect(parseAnswer(consent, "no")).toEqual({ ok: true, value: false });
    expect(parseAnswer(consent, "maybe")).toEqual({ ok: false, message: "must be yes or no" });
    expect(unanswerable(consent, false)).toBe("declined: this consent is required to book");
    expect(unanswerable(consent, true)).toBeUndefined();
    expect(unanswerable(q({ type: "boolean" }), false)).toBeUndefined();
  });

  it("reads dates (ISO or German), numbers (point or comma), e-mail and E.164 phones", () => {
    expect(parseAnswer(q({ type: "date" }), "7.5.1980")).toEqual({ ok: true, value: "1980-05-07" });
    expect(parseAnswer(q({ type: "date" }), "2027-02-29")).toEqual({ ok: false, message: "must be a date YYYY-MM-DD" });
    expect(parseAnswer(q({ type: "number" }), "72,5")).toEqual({ ok: true, value: 72.5 });
    expect(parseAnswer(q({ type: "number" }), "-3")).toEqual({ ok: true, value: -3 });
    expect(parseAnswer(q({ type: "number" }), "12kg")).toEqual({ ok: false, message: "must be a number" });
    expect(parseAnswer(q({ type: "email" }), " pat@example.test ")).toEqual({ ok: true, value: "pat@example.test" });
    expect(parseAnswer(q({ type: "email" }), "pat")).toEqual({ ok: false, message: "must be an e-mail address" });
    expect(parseAnswer(q({ type: "phone" }), "+49 (30) 123-456")).toEqual({ ok: true, value: "+4930123456" });
    expect(parseAnswer(q({ type: "phone" }), "030 123456")).toMatchObject({ ok: false });
  });

  it("names a required question without an answer, and puts each question with its kind of answer", () => {
    expect(unanswerable(q({ type: "text", required: true }), undefined)).toBe("required, and not answered");
    expect(unanswerable(q({ type: "multi_choice", required: true }), [])).toBe("required, and not answered");
    expect(unanswerable(q({ type: "text" }), undefined)).toBeUndefined();
    expect(questionPrompt(q({ type: "date", label: "Date of birth" }))).toBe(
      "Date of birth [YYYY-MM-DD, Enter = skip]: ",
    );
    expect(questionPrompt(q({ type: "boolean", label: "I agree", required: true }))).toBe(
      "I agree (required) [y to agree]: ",
    );
  });
});
