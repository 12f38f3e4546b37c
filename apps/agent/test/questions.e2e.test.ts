// The agent and a service's questions (CONTRACT §19), against a real server on the test database:
// it asks for the answers (again after one it cannot take), takes them from --answer, and when it
// cannot get a required answer (nobody to ask, or a consent declined) it names the questions and
// books nothing.
import { describe, expect, it } from "vitest";
import type { RouterInputs } from "@clinic/client";
import { main } from "../src/main.ts";
import { bookableClinic, captureIO, useServer } from "./fixtures.ts";

const server = useServer();
const noEnv = { url: undefined, token: undefined, clinic: undefined };

type QuestionInput = NonNullable<RouterInputs["services"]["update"]["questions"]>[number];

const questions: QuestionInput[] = [
  { key: "reason", label: "Reason for your visit", type: "text", required: true },
  { key: "insurance", label: "Insurance", type: "choice", required: true, options: ["Public", "Private"] },
  {
    key: "areas",
    label: "Where does it hurt?",
    type: "multi_choice",
    required: false,
    options: ["Back", "Neck", "Head"],
  },
  { key: "consent", label: "I agree to the clinic's terms", type: "boolean", required: true },
  { key: "birth_date", label: "Date of birth", type: "date", required: false },
  { key: "weight", label: "Weight in kg", type: "number", required: false },
  { key: "phone", label: "Emergency contact", type: "phone", required: false },
];

/** The bookable clinic, its sports massage asking `questions`. */
async function clinicWithQuestions() {
  const c = await bookableClinic(server);
  await c.api.services.update.mutate({ clinic_id: c.clinic.id, id: c.services.sports.id, questions });
  return c;
}

describe("booking agent, the service's questions (CONTRACT §19)", () => {
  it("asks each question after the slot and the name, asks again after an answer it cannot take, and books the answers", async () => {
    const c = await clinicWithQuestions();
    const run = captureIO({
      answers: [
        "1",
        "Sam Patient",
        "Sore calves",
        "private",
        "3, 1",
        "y",
        "tomorrow",
        "17.05.1980",
        "",
        "+49 30 123456",
      ],
    });
    const code = await main(["sports massage next monday", "--url", server.url(), "--token", c.agent.token], {
      ...run.io,
      env: noEnv,
    });
    expect(run.stderr()).toBe("");
    expect(code).toBe(0);
    expect(run.questions).toEqual([
      "Book which? [1-5, Enter = 1, q = quit] ",
      "Patient name: ",
      "Reason for your visit (required) [text]: ",
      "Insurance (required) [a number or the option]: ",
      "Where does it hurt? [numbers or options, separated by commas, Enter = skip]: ",
      "I agree to the clinic's terms (required) [y to agree]: ",
      "Date of birth [YYYY-MM-DD, Enter = skip]: ",
      "Date of birth [YYYY-MM-DD, Enter = skip]: ",
      "Weight in kg [a number, Enter = skip]: ",
      "Emergency contact [E.164, e.g. +4930123456, Enter = skip]: ",
    ]);
    const text = run.stdout();
    expect(text).toContain("Sports Massage - Ben Koch asks 7 questions (Enter skips an optional one):");
    expect(text).toContain("  1. Public, 2. Private");
    expect(text).toContain("Please answer again: Date of birth must be a date YYYY-MM-DD.");
    expect(text).toContain("Answers given:\n  Reason for your visit: Sore calves\n  Insurance: Private\n");
    const { appointments } = await c.api.appointments.list.query({ clinic_id: c.clinic.id });
    expect(appointments).toHaveLength(1);
    expect(appointments[0]?.answers).toEqual([
      { key: "reason", label: "Reason for your visit", type: "text", value: "Sore calves" },
      { key: "insurance", label: "Insurance", type: "choice", value: "Private" },
      { key: "areas", label: "Where does it hurt?", type: "multi_choice", value: ["Back", "Head"] },
      { key: "consent", label: "I agree to the clinic's terms", type: "boolean", value: true },
      { key: "birth_date", label: "Date of birth", type: "date", value: "1980-05-17" },
      { key: "phone", label: "Emergency contact", type: "phone", value: "+4930123456" },
    ]);
  });

  it("with --yes and no answers, names every required question it cannot answer and books nothing (exit 3)", async () => {
    const c = await clinicWithQuestions();
    const run = captureIO();
    const code = await main(
      [
        "sports massage next monday",
        ...["--url", server.url(), "--token", c.agent.token, "--yes", "--json", "--name", "Pat"],
        ...["--answer", "insurance=Public"],
      ],
      { ...run.io, env: noEnv },
    );
    expect(code).toBe(3);
    expect(run.json()).toEqual({
      status: "questions_unanswered",
      service: { id: c.services.sports.id, name: "Sports Massage - Ben Koch" },
      unanswered: [
        {
          key: "reason",
          label: "Reason for your visit",
          type: "text",
          required: true,
          reason: 'required, and not answered; pass --answer reason="…"',
        },
        {
          key: "consent",
          label: "I agree to the clinic's terms",
          type: "boolean",
          required: true,
          reason: "required, and not answered; pass --answer consent=yes",
        },
      ],
      exit_code: 3,
    });
    expect((await c.api.appointments.list.query({ clinic_id: c.clinic.id })).appointments).toEqual([]);
  });

  it("books with --yes from --answer flags (a multi-choice from several)", async () => {
    const c = await clinicWithQuestions();
    const run = captureIO();
    const code = await main(
      [
        "sports massage next monday",
        ...["--url", server.url(), "--token", c.agent.token, "--yes", "--json", "--name", "Pat"],
        ...["--answer", "reason=Check-up", "--answer", "insurance=2", "--answer", "consent=ja"],
        ...["--answer", "areas=neck", "--answer", "areas=Back", "--answer", "weight=72,5"],
      ],
      { ...run.io, env: noEnv },
    );
    expect(run.stderr()).toBe("");
    expect(code).toBe(0);
    const result = run.json() as { status: string; appointment: { answers: unknown } };
    expect(result.status).toBe("booked");
    expect(result.appointment.answers).toEqual([
      { key: "reason", label: "Reason for your visit", type: "text", value: "Check-up" },
      { key: "insurance", label: "Insurance", type: "choice", value: "Private" },
      { key: "areas", label: "Where does it hurt?", type: "multi_choice", value: ["Back", "Neck"] },
      { key: "consent", label: "I agree to the clinic's terms", type: "boolean", value: true },
      { key: "weight", label: "Weight in kg", type: "number", value: 72.5 },
    ]);
  });

  it("stops when the user declines a consent, and says so (exit 3)", async () => {
    const c = await clinicWithQuestions();
    const run = captureIO({ answers: ["1", "Sam Patient", "Sore calves", "1", "", "n"] });
    const code = await main(["sports massage next monday", "--url", server.url(), "--token", c.agent.token], {
      ...run.io,
      env: noEnv,
    });
    expect(code).toBe(3);
    // Not asked past the consent.
    expect(run.questions.at(-1)).toBe("I agree to the clinic's terms (required) [y to agree]: ");
    expect(run.stderr()).toBe(
      "Nothing booked: Sports Massage - Ben Koch asks a question the agent cannot answer:\n" +
        '  consent ("I agree to the clinic\'s terms"): declined: this consent is required to book\n',
    );
    expect((await c.api.appointments.list.query({ clinic_id: c.clinic.id })).appointments).toEqual([]);
  });

  it("refuses an --answer its service does not ask, or cannot take (exit 2)", async () => {
    const c = await clinicWithQuestions();
    const args = [
      "sports massage next monday",
      "--url",
      server.url(),
      "--token",
      c.agent.token,
      "--yes",
      "--name",
      "P",
    ];
    const stray = captureIO();
    expect(await main([...args, "--answer", "allergies=none"], { ...stray.io, env: noEnv })).toBe(2);
    expect(stray.stderr()).toBe(
      'error: --answer allergies: "Sports Massage - Ben Koch" asks no question "allergies"; its questions: reason, insurance, areas, consent, birth_date, weight, phone\n',
    );
    const bad = captureIO();
    expect(await main([...args, "--answer", "insurance=Gold"], { ...bad.io, env: noEnv })).toBe(2);
    expect(bad.stderr()).toBe("error: --answer insurance: must be one of: 1. Public, 2. Private\n");
    // A service without questions takes no --answer either.
    const none = captureIO();
    expect(
      await main(["deep tissue massage next monday", ...args.slice(1), "--answer", "reason=x"], {
        ...none.io,
        env: noEnv,
      }),
    ).toBe(2);
    expect(none.stderr()).toContain("asks no questions");
    expect((await c.api.appointments.list.query({ clinic_id: c.clinic.id })).appointments).toEqual([]);
  });

  it("books a series with the answers on every occurrence (STAFF)", async () => {
    const c = await clinicWithQuestions();
    const run = captureIO();
    const code = await main(
      [
        "sports massage every Tuesday at 10 for 2 weeks",
        ...["--url", server.url(), "--token", c.staff.token, "--clinic", c.clinic.id, "--yes", "--json"],
        ...["--name", "Pat", "--answer", "reason=Rehab", "--answer", "insurance=Public", "--answer", "consent=yes"],
      ],
      { ...run.io, env: noEnv },
    );
    expect(run.stderr()).toBe("");
    expect(code).toBe(0);
    expect(run.json()).toMatchObject({ status: "series_booked" });
    const { appointments } = await c.api.appointments.list.query({ clinic_id: c.clinic.id });
    expect(appointments).toHaveLength(2);
    for (const a of appointments)
      expect(a.answers.map((x) => [x.key, x.value])).toEqual([
        ["reason", "Rehab"],
        ["insurance", "Public"],
        ["consent", true],
      ]);
  });
});
