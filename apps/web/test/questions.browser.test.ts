// The booking questions (CONTRACT §19) on the booking page in a real browser (Debian's Chromium
// through playwright-core) against a real server on this run's database: a service asks one
// question of each type; the page renders each as a labelled control, passes axe-core's WCAG 2.x
// A and AA rules before and with errors shown, refuses a booking with a required answer missing
// (the error under that question, the focus on it, nothing booked), shows the server's refusal of
// an answer under its question with the time still kept, and books a full answer, whose answers
// staff read back through the API and the patient sees under "My appointments". A guest's booking
// carries its answers into the held appointment, and its manage page shows them to the guest. Screenshots go to apps/web/test-results/.
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { RouterInputs } from "@clinic/client";
import { type Page } from "playwright-core";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { axeViolations, chromiumPath, useBrowserPages } from "./browser.ts";
import {
  addHours,
  addMember,
  addProvider,
  addService,
  callerFor,
  createClinic,
  createUser,
  type TestUser,
} from "@clinic/api/testing";
import { appointments, clinics } from "@clinic/db";
import { useTestApp } from "@clinic/server/test-helpers";
import { dateIn, timeIn } from "../src/time.ts";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const shots = fileURLToPath(new URL("../test-results/", import.meta.url));
const timeZone = "Europe/Berlin";
const all = [1, 2, 3, 4, 5, 6, 7];
/** Tomorrow in the clinic's zone: every day is open. */
const day = new Intl.DateTimeFormat("en-CA", { timeZone }).format(new Date(Date.now() + 86_400_000));

type QuestionInput = NonNullable<RouterInputs["services"]["update"]["questions"]>[number];

/** One question of each type (and a choice long enough to be a select). */
const questions: QuestionInput[] = [
  { key: "reason", label: "Reason for your visit", type: "text", required: true, max_length: 120 },
  { key: "history", label: "Anything else we should know?", type: "long_text", required: false },
  { key: "insurance", label: "Insurance", type: "choice", required: true, options: ["Public", "Private", "Self-pay"] },
  {
    key: "country",
    label: "Country of residence",
    type: "choice",
    required: false,
    options: ["Germany", "Austria", "Switzerland", "France", "Poland", "Other"],
  },
  {
    key: "areas",
    label: "Where does it hurt?",
    type: "multi_choice",
    required: true,
    options: ["Back", "Neck", "Head"],
  },
  { key: "first_visit", label: "Is this your first visit?", type: "boolean", required: false },
  {
    key: "consent",
    label: "I agree that the clinic keeps these answers with my appointment",
    type: "boolean",
    required: true,
  },
  { key: "birth_date", label: "Date of birth", type: "date", required: true },
  { key: "weight", label: "Weight in kg", type: "number", required: false },
  { key: "report_email", label: "E-mail for the report", type: "email", required: false },
  { key: "emergency_phone", label: "Emergency contact phone", type: "phone", required: true },
];

describe.skipIf(!chromiumPath)("booking questions on the booking page in Chromium", () => {
  const t = useTestApp({ web: { distDir: dist } });
  const pages = useBrowserPages(t);

  beforeAll(async () => {
    await mkdir(shots, { recursive: true });
  });

  /** An online-booking clinic in Berlin with Anna and a check-up that asks `questions`. */
  async function clinicWithQuestions(name: string) {
    const db = t.handle.db;
    const clinicId = await createClinic(db, { timezone: timeZone, name });
    await db.update(clinics).set({ onlineBooking: true, maxOpenBookingsPerPatient: 5 }).where(eq(clinics.id, clinicId));
    await addHours(db, clinicId, null, all, "08:00", "18:00");
    const anna = await addProvider(db, clinicId, "Anna Berg");
    await addHours(db, clinicId, anna.id, all, "09:00", "17:00");
    const serviceId = await addService(db, clinicId, { name: "Check-up", durationMin: 30, providerId: anna.id });
    const admin = callerFor(db, await addMember(db, clinicId, { role: "CLINIC_ADMIN", fullName: "Clara Admin" }));
    await admin.services.update({ clinic_id: clinicId, id: serviceId, questions });
    const staff = await addMember(db, clinicId, { role: "STAFF", fullName: "Sam Staff" });
    return { clinicId, serviceId, admin, staff };
  }

  /** A phone-size page in New York (the clinic is in Berlin); signed in when a user is given. */
  function open(path: string, user?: TestUser): Promise<Page> {
    return pages.page(user, path);
  }

  const bookedCount = async (clinicId: string) =>
    (
      await t.handle.db
        .select({ id: appointments.id })
        .from(appointments)
        .where(and(eq(appointments.clinicId, clinicId), eq(appointments.status, "booked")))
    ).length;

  /** The question's error under it: its text, and that the control (or group) points at it. */
  async function errorOf(page: Page, key: string, control: ReturnType<Page["getByRole"]>) {
    const error = page.getByTestId(`question-error-${key}`);
    await error.waitFor();
    const errorId = await error.getAttribute("id");
    expect(errorId).toBeTruthy();
    expect(await control.getAttribute("aria-invalid")).toBe("true");
    expect((await control.getAttribute("aria-describedby"))?.split(" ")).toContain(errorId);
    return (await error.textContent()) ?? "";
  }

  /** The name of the focused element's label (a control's, through its id). */
  const focusedLabel = (page: Page) =>
    page.evaluate(() => {
      const active = document.activeElement;
      if (!active?.id) return undefined;
      return document.querySelector(`label[for="${CSS.escape(active.id)}"]`)?.textContent ?? undefined;
    });

  it("renders every question type accessibly, refuses a missing or refused answer under its question, and books a full answer", async () => {
    const c = await clinicWithQuestions("Praxis Fragen");
    const patient = await createUser(t.handle.db);
    const page = await open(`/book/${c.clinicId}`, patient);
    await page.getByRole("heading", { name: "Book at Praxis Fragen" }).waitFor();
    await page.getByRole("radio", { name: /Check-up/ }).check();
    // The questions come with the time: none before a time is picked.
    expect(await page.getByTestId("questions").count()).toBe(0);
    await page.getByLabel("Date", { exact: true }).fill(day);
    await page.getByRole("button", { name: /^10:00/ }).click();
    await page
      .getByTestId("hold")
      .getByText(/^We keep 10:00 /)
      .waitFor();
    await page.getByLabel("Name", { exact: true }).fill("Quinn Patient");

    // One labelled control per question, of the right kind; required ones say so.
    const form = page.getByTestId("questions");
    const reason = form.getByRole("textbox", { name: "Reason for your visit (required)" });
    expect(await reason.getAttribute("maxlength")).toBe("120");
    expect(await reason.getAttribute("aria-required")).toBe("true");
    const history = form.getByRole("textbox", { name: "Anything else we should know?" });
    expect(await history.evaluate((e) => e.tagName)).toBe("TEXTAREA");
    expect(await history.getAttribute("maxlength")).toBe("2000");
    const insurance = form.getByRole("radiogroup", { name: "Insurance (required)" });
    expect(await insurance.getAttribute("aria-required")).toBe("true");
    expect(await insurance.getByRole("radio").count()).toBe(3);
    const country = form.getByRole("combobox", { name: "Country of residence" });
    expect(await country.locator("option").allTextContents()).toEqual([
      "No answer",
      "Germany",
      "Austria",
      "Switzerland",
      "France",
      "Poland",
      "Other",
    ]);
    const areas = form.getByRole("group", { name: "Where does it hurt? (required)" });
    expect(await areas.getByRole("checkbox").count()).toBe(3);
    const firstVisit = form.getByRole("radiogroup", { name: "Is this your first visit?" });
    await firstVisit.getByRole("radio", { name: "Yes" }).waitFor();
    const consent = form.getByRole("checkbox", { name: /^I agree that the clinic keeps these answers/ });
    expect(await consent.getAttribute("aria-required")).toBe("true");
    const birthDate = form.getByLabel("Date of birth (required)");
    expect(await birthDate.getAttribute("type")).toBe("date");
    const weight = form.getByRole("spinbutton", { name: "Weight in kg" });
    expect(await weight.getAttribute("type")).toBe("number");
    const reportEmail = form.getByRole("textbox", { name: "E-mail for the report" });
    expect(await reportEmail.getAttribute("type")).toBe("email");
    const phone = form.getByRole("textbox", { name: "Emergency contact phone (required)" });
    expect(await phone.getAttribute("type")).toBe("tel");
    // The phone's hint says the form, and is read with the field.
    const hintId = (await phone.getAttribute("aria-describedby")) ?? "";
    expect(await page.locator(`[id="${hintId}"]`).textContent()).toContain("+4930123456");
    await page.screenshot({ path: `${shots}questions-form.png`, fullPage: true });
    expect(await axeViolations(page, "booking page, questions")).toEqual([]);

    // Booking with the required answers missing: each is named under its question, the first takes
    // the focus, and nothing is sent.
    await reason.fill("Back pain since Monday");
    const bookButton = page.getByRole("button", { name: /^Book 10:00 on / });
    await bookButton.click();
    expect(await errorOf(page, "insurance", insurance)).toBe("Please answer this question: it is required.");
    expect(await errorOf(page, "areas", areas)).toBe("Please answer this question: it is required.");
    expect(await errorOf(page, "consent", consent)).toBe("Please accept this to book.");
    expect(await errorOf(page, "birth_date", birthDate)).toBe("Please answer this question: it is required.");
    expect(await errorOf(page, "emergency_phone", phone)).toBe("Please answer this question: it is required.");
    expect(await page.getByTestId("question-error-reason").count()).toBe(0);
    expect(await page.getByTestId("question-error-history").count()).toBe(0);
    // The first question in error is Insurance: its first radio has the focus.
    await expect.poll(() => focusedLabel(page)).toBe("Public");
    await page.getByRole("alert").getByText("Please check your answers to the clinic's questions.").waitFor();
    expect(await bookedCount(c.clinicId)).toBe(0);
    await page.screenshot({ path: `${shots}questions-errors.png`, fullPage: true });
    expect(await axeViolations(page, "booking page, questions with errors")).toEqual([]);

    // A wrong form is named too (checked before sending; the server would refuse it the same).
    await insurance.getByRole("radio", { name: "Private" }).check();
    await areas.getByRole("checkbox", { name: "Neck" }).check();
    await areas.getByRole("checkbox", { name: "Back" }).check();
    await consent.check();
    await birthDate.fill("1980-05-17");
    await phone.fill("030 123456");
    // An answer given clears its error at once.
    expect(await page.getByTestId("question-error-consent").count()).toBe(0);
    await bookButton.click();
    expect(await errorOf(page, "emergency_phone", phone)).toBe(
      "Please enter the number in international form, e.g. +4930123456.",
    );
    await expect.poll(() => focusedLabel(page)).toBe("Emergency contact phone (required)");
    expect(await bookedCount(c.clinicId)).toBe(0);

    // The server is the judge: the clinic stops offering "Private" while the page is open. Its
    // refusal (400 at answers.insurance) is shown under Insurance, and the time is still kept.
    await c.admin.services.update({
      clinic_id: c.clinicId,
      id: c.serviceId,
      questions: questions.map((q) => (q.key === "insurance" ? { ...q, options: ["Public", "Self-pay"] } : q)),
    });
    await phone.fill("+4930123456");
    await weight.fill("72.5");
    await firstVisit.getByRole("radio", { name: "Yes" }).check();
    await country.selectOption("Austria");
    await bookButton.click();
    expect(await errorOf(page, "insurance", insurance)).toBe("This answer is not one of the options.");
    await expect.poll(() => focusedLabel(page)).toBe("Private");
    expect(await bookedCount(c.clinicId)).toBe(0);
    await page
      .getByTestId("hold")
      .getByText(/^We keep 10:00 /)
      .waitFor();
    expect(await axeViolations(page, "booking page, an answer refused by the server")).toEqual([]);

    // A full answer books; optional questions left empty are left out.
    await insurance.getByRole("radio", { name: "Public" }).check();
    await bookButton.click();
    const confirmation = page.getByRole("status").filter({ hasText: /^Booked: Check-up with Anna Berg/ });
    await confirmation.waitFor();
    expect(await page.getByTestId("questions").count()).toBe(0);

    // Staff read the answers back through the API, as asked and answered.
    const { appointments: booked } = await callerFor(t.handle.db, c.staff).appointments.list({
      clinic_id: c.clinicId,
    });
    expect(booked).toHaveLength(1);
    const [appointment] = booked;
    expect(timeIn(appointment?.start ?? new Date(0), timeZone)).toBe("10:00");
    expect(dateIn(appointment?.start ?? new Date(0), timeZone)).toBe(day);
    expect(appointment?.answers).toEqual([
      { key: "reason", label: "Reason for your visit", type: "text", value: "Back pain since Monday" },
      { key: "insurance", label: "Insurance", type: "choice", value: "Public" },
      { key: "country", label: "Country of residence", type: "choice", value: "Austria" },
      // In the options' order, whatever order they were ticked in.
      { key: "areas", label: "Where does it hurt?", type: "multi_choice", value: ["Back", "Neck"] },
      { key: "first_visit", label: "Is this your first visit?", type: "boolean", value: true },
      {
        key: "consent",
        label: "I agree that the clinic keeps these answers with my appointment",
        type: "boolean",
        value: true,
      },
      { key: "birth_date", label: "Date of birth", type: "date", value: "1980-05-17" },
      { key: "weight", label: "Weight in kg", type: "number", value: 72.5 },
      { key: "emergency_phone", label: "Emergency contact phone", type: "phone", value: "+4930123456" },
    ]);

    // The patient sees their own answers under "My appointments".
    const mine = page.getByTestId("my-appointment");
    await mine.getByText("Your answers").click();
    const answers = mine.getByTestId("answers");
    await answers.getByText("Back, Neck").waitFor();
    expect(await answers.textContent()).toContain("Weight in kg72.5");
    expect(await axeViolations(page, "booking page, booked, answers shown")).toEqual([]);
  });

  it("a guest answers the questions with their details; the held booking keeps the answers, and its manage page shows them", async () => {
    const c = await clinicWithQuestions("Praxis Gastfragen");
    // Only two questions here: a required text and a consent.
    await c.admin.services.update({
      clinic_id: c.clinicId,
      id: c.serviceId,
      questions: [
        { key: "reason", label: "Reason for your visit", type: "text", required: true },
        { key: "consent", label: "I accept the clinic's terms", type: "boolean", required: true },
      ],
    });
    const page = await open(`/book/${c.clinicId}`);
    await page.getByTestId("visitor").waitFor();
    await page.getByRole("radio", { name: /Check-up/ }).check();
    await page.getByLabel("Date", { exact: true }).fill(day);
    await page.getByRole("button", { name: /^11:00/ }).click();
    await page.getByLabel("Name", { exact: true }).fill("Gina Guest");
    await page.getByLabel("E-mail", { exact: true }).fill(`gina-${c.clinicId.slice(0, 8)}@example.test`);
    const form = page.getByTestId("questions");
    await form.getByRole("textbox", { name: "Reason for your visit (required)" }).fill("Check-up");
    const consent = form.getByRole("checkbox", { name: "I accept the clinic's terms (required)" });
    const send = page.getByRole("button", { name: /^Book 11:00 on .* and e-mail me the link$/ });
    await send.click();
    expect(await errorOf(page, "consent", consent)).toBe("Please accept this to book.");
    await expect.poll(() => focusedLabel(page)).toBe("I accept the clinic's terms (required)");
    expect(await axeViolations(page, "booking page, guest, consent missing")).toEqual([]);
    await consent.check();
    await send.click();
    await page.getByTestId("guest-held").waitFor();
    const [held] = await t.handle.db
      .select({
        id: appointments.id,
        manageKey: appointments.manageKey,
        status: appointments.status,
        answers: appointments.answers,
      })
      .from(appointments)
      .where(eq(appointments.clinicId, c.clinicId));
    expect(held).toMatchObject({
      status: "held",
      answers: [
        { key: "reason", label: "Reason for your visit", type: "text", value: "Check-up" },
        { key: "consent", label: "I accept the clinic's terms", type: "boolean", value: true },
      ],
    });
    if (!held) throw new Error("no held appointment");

    // The manage page (the e-mail's link, docs/manage-links.md: clinic, appointment and key) shows
    // the guest their own answers.
    const uuidBytes = (id: string) => Buffer.from(id.replace(/-/g, ""), "hex");
    const token = Buffer.concat([uuidBytes(c.clinicId), uuidBytes(held.id), uuidBytes(held.manageKey)]).toString(
      "base64url",
    );
    const manage = await open(`/manage/${token}`);
    const answers = manage.getByTestId("managed-appointment").getByTestId("answers");
    await answers.waitFor();
    expect(await answers.locator("dt").allTextContents()).toEqual([
      "Reason for your visit",
      "I accept the clinic's terms",
    ]);
    expect(await answers.locator("dd").allTextContents()).toEqual(["Check-up", "yes"]);
    expect(await axeViolations(manage, "manage page with answers")).toEqual([]);
  });
});
