// The clinic's providers set up in a real browser (Debian's Chromium through playwright-core)
// against a real server on this run's database (CONTRACT §23, docs/web.md "Clinic setup"): the
// seed's providers list; suspending a provider takes their times off the booking page and
// reactivating brings them back; removing a provider who still has services answers
// PROVIDER_HAS_SERVICES, whose services are moved in the dialog it opens, and then the removal
// goes through; a person is added by e-mail (ALREADY_MEMBER at the e-mail), approved, and a stale
// approve shows the §2 answer in the row; the per-clinic name, phone and notes are edited (a
// refused phone at its field); the calendars dialog opens; STAFF reads without controls. axe A/AA
// on the page and every dialog. Screenshots to apps/web/test-results/ (and docs/img/ with
// `npm run docs:screenshots`).
import { fileURLToPath } from "node:url";
import { type Page } from "playwright-core";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { axeViolations, chromiumPath, screenshot, useBrowserPages } from "./browser.ts";
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
import { clinics } from "@clinic/db";
import { useTestApp } from "@clinic/server/test-helpers";
import { longDateIn, strings } from "../src/i18n.ts";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const timeZone = "Europe/Berlin";
const all = [1, 2, 3, 4, 5, 6, 7];
const day = new Intl.DateTimeFormat("en-CA", { timeZone }).format(new Date(Date.now() + 86_400_000));

describe.skipIf(!chromiumPath)("the providers setup page in Chromium", () => {
  const t = useTestApp({ web: { distDir: dist } });
  const pages = useBrowserPages(t);

  /**
   * An online-booking clinic in Berlin open 08:00–18:00; Anna (09:00–17:00, a phone, "Physio -
   * Anna Berg") and Ben (10:00–16:00, "Massage - Ben Kluge" and "Sports massage - Ben Kluge");
   * a clinic admin and a STAFF member.
   */
  async function setUpClinic(name: string) {
    const db = t.handle.db;
    const clinicId = await createClinic(db, { timezone: timeZone, name });
    await db.update(clinics).set({ onlineBooking: true, maxOpenBookingsPerPatient: 5 }).where(eq(clinics.id, clinicId));
    await addHours(db, clinicId, null, all, "08:00", "18:00");
    const anna = await addProvider(db, clinicId, "Anna Berg");
    await addHours(db, clinicId, anna.id, all, "09:00", "17:00");
    const ben = await addProvider(db, clinicId, "Ben Kluge");
    await addHours(db, clinicId, ben.id, all, "10:00", "16:00");
    const physio = await addService(db, clinicId, { name: "Physio - Anna Berg", durationMin: 60, providerId: anna.id });
    const massage = await addService(db, clinicId, {
      name: "Massage - Ben Kluge",
      durationMin: 30,
      providerId: ben.id,
    });
    const sports = await addService(db, clinicId, {
      name: "Sports massage - Ben Kluge",
      durationMin: 45,
      providerId: ben.id,
    });
    const admin = await addMember(db, clinicId, { role: "CLINIC_ADMIN", fullName: "Clara Admin" });
    const api = callerFor(db, admin);
    await api.members.update({ clinic_id: clinicId, user_id: anna.id, phone_e164: "+4930111222" });
    const staff = await addMember(db, clinicId, { role: "STAFF", fullName: "Sam Staff" });
    return { clinicId, anna, ben, physio, massage, sports, admin, api, staff };
  }

  function pageAs(user: TestUser, path: string): Promise<Page> {
    return pages.page(user, path);
  }

  /** The times the booking page offers for a service on `day` (empty when it says there are none). */
  async function bookingTimes(page: Page, clinicId: string, service: RegExp): Promise<string[]> {
    await page.goto(`${pages.base}/book/${clinicId}`);
    await page.getByRole("radio", { name: service }).check();
    await page.getByLabel("Date", { exact: true }).fill(day);
    const list = page.getByRole("list", { name: strings.en.freeTimesOn(longDateIn("en", day)) });
    const none = page.getByText(strings.en.noTimesOn(longDateIn("en", day)));
    await list.or(none).waitFor();
    if (await none.isVisible()) return [];
    return (await list.locator("button.slot").allTextContents()).map((text) => text.slice(0, 5));
  }

  const row = (page: Page, name: string) => page.getByTestId("provider-row").filter({ hasText: name });
  const focusedName = (page: Page) =>
    page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.textContent);

  it("lists the providers, and suspending one takes their times off the booking page until reactivated", async () => {
    const c = await setUpClinic("Praxis Team");
    const page = await pageAs(c.admin, `/desk/${c.clinicId}/setup/providers`);
    await page.getByRole("heading", { name: "Praxis Team: Providers" }).waitFor();
    const table = page.getByTestId("providers-table");
    await table.waitFor();
    expect(await table.locator("thead th").allTextContents()).toEqual([
      "Name",
      "E-mail",
      "Phone",
      "Role",
      "Status",
      "Actions",
    ]);
    const anna = row(page, "Anna Berg");
    expect(await anna.locator("td").nth(0).textContent()).toBe(c.anna.email);
    expect(await anna.locator("td").nth(1).textContent()).toBe("+4930111222");
    expect(await anna.locator("td").nth(2).textContent()).toBe("STAFF");
    expect(await anna.getByTestId("provider-status").textContent()).toBe("Approved");
    expect(await table.getByRole("rowheader").allTextContents()).toEqual(["Anna Berg", "Ben Kluge"]);
    await screenshot(page, "setup-providers", { docs: true });
    expect(await axeViolations(page, "setup, providers")).toEqual([]);

    const patient = await pageAs(await createUser(t.handle.db), `/book/${c.clinicId}`);
    const annaHours = ["09:00", "10:00", "11:00", "12:00", "13:00", "14:00", "15:00", "16:00"];
    expect(await bookingTimes(patient, c.clinicId, /^Physio - Anna Berg/)).toEqual(annaHours);

    // Suspend by keyboard: the row now offers Reactivate, which has the focus.
    await anna.getByRole("button", { name: "Suspend Anna Berg" }).focus();
    await page.keyboard.press("Enter");
    await page
      .getByTestId("providers-notice")
      .getByText(/^Anna Berg is suspended/)
      .waitFor();
    await expect.poll(() => anna.getByTestId("provider-status").textContent()).toBe("Suspended");
    await expect.poll(() => focusedName(page)).toBe("Reactivate Anna Berg");
    expect((await c.api.providers.get({ clinic_id: c.clinicId, user_id: c.anna.id })).status).toBe("suspended");
    expect(await bookingTimes(patient, c.clinicId, /^Physio - Anna Berg/)).toEqual([]);
    const none = await c.api.availability.get({ clinic_id: c.clinicId, service_id: c.physio, from: day, to: day });
    expect(none.slots).toEqual([]);

    await page.keyboard.press("Enter");
    await page
      .getByTestId("providers-notice")
      .getByText(/^Anna Berg is reactivated/)
      .waitFor();
    await expect.poll(() => anna.getByTestId("provider-status").textContent()).toBe("Approved");
    expect(await bookingTimes(patient, c.clinicId, /^Physio - Anna Berg/)).toEqual(annaHours);
  });

  it("answers PROVIDER_HAS_SERVICES on remove with the services to move, and the removal goes through once they are moved", async () => {
    const c = await setUpClinic("Praxis Wechsel");
    const page = await pageAs(c.admin, `/desk/${c.clinicId}/setup/providers`);
    const ben = row(page, "Ben Kluge");
    await ben.getByRole("button", { name: "Remove Ben Kluge" }).click();
    const confirm = page.getByTestId("confirm-dialog");
    await confirm.getByRole("heading", { name: "Remove Ben Kluge as a provider?" }).waitFor();
    expect(await axeViolations(page, "setup, remove confirmation")).toEqual([]);
    await confirm.getByRole("button", { name: "Yes, remove" }).click();

    // The §2 answer: its detail, and the services it lists (service_ids), by name.
    const dialog = page.getByTestId("reassign-dialog");
    await dialog.getByRole("heading", { name: "Ben Kluge still provides 2 services" }).waitFor();
    expect(await dialog.getByTestId("reassign-detail").textContent()).toBe(
      "Still assigned to services: the provider still has 2 active assigned service(s); reassign or deactivate them first.",
    );
    const massage = dialog.getByLabel("Where “Massage - Ben Kluge” goes");
    const sports = dialog.getByLabel("Where “Sports massage - Ben Kluge” goes");
    // The services are named once the clinic's services are read, after the heading: wait for both.
    await massage.waitFor();
    await sports.waitFor();
    expect(await dialog.getByTestId("blocking-service").count()).toBe(2);
    // Nothing chosen: each choice says so, the first takes the focus, nothing is sent.
    await dialog.getByRole("button", { name: "Move the services and remove Ben Kluge" }).click();
    await dialog.getByTestId(`field-error-service.${c.massage}`).waitFor();
    expect(await massage.getAttribute("aria-invalid")).toBe("true");
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("SELECT");
    await screenshot(page, "setup-provider-reassign", { docs: true });
    expect(await axeViolations(page, "setup, services to reassign")).toEqual([]);
    expect((await c.api.providers.list({ clinic_id: c.clinicId })).providers.map((p) => p.full_name)).toContain(
      "Ben Kluge",
    );

    await massage.selectOption({ label: "Anna Berg" });
    await sports.selectOption({ label: "Any provider" });
    await dialog.getByRole("button", { name: "Move the services and remove Ben Kluge" }).click();
    await page
      .getByTestId("providers-notice")
      .getByText("Ben Kluge is no longer a provider; 2 services moved first.")
      .waitFor();
    await dialog.waitFor({ state: "detached" });
    await ben.waitFor({ state: "detached" });

    // Through the API: Ben is a member, not a provider; his services went where they were sent.
    expect((await c.api.providers.list({ clinic_id: c.clinicId })).providers.map((p) => p.full_name)).toEqual([
      "Anna Berg",
    ]);
    const member = (await c.api.members.list({ clinic_id: c.clinicId })).members.find((m) => m.user_id === c.ben.id);
    expect(member?.is_provider).toBe(false);
    expect((await c.api.services.get({ clinic_id: c.clinicId, id: c.massage })).provider_id).toBe(c.anna.id);
    expect((await c.api.services.get({ clinic_id: c.clinicId, id: c.sports })).provider_id).toBeNull();
  });

  it("adds a provider by e-mail (ALREADY_MEMBER at the e-mail), approves them, and shows a stale approve's §2 answer in the row", async () => {
    const c = await setUpClinic("Praxis Neu");
    const page = await pageAs(c.admin, `/desk/${c.clinicId}/setup/providers`);
    const open = page.getByRole("button", { name: "Add a member or provider" });
    await open.click();
    expect(await open.getAttribute("aria-expanded")).toBe("true");
    const email = page.getByLabel("E-mail", { exact: true });
    await email.fill(c.anna.email);
    await page.getByLabel("Full name in this clinic").fill("Anna again");
    await page.getByRole("button", { name: "Add", exact: true }).click();
    const taken = page.getByTestId("field-error-email");
    await taken.waitFor();
    expect(await taken.textContent()).toBe("Already a member: the user is already a member of this clinic.");
    expect(await email.getAttribute("aria-invalid")).toBe("true");
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("type"))).toBe("email");
    await screenshot(page, "setup-provider-add-refused", { docs: true });
    expect(await axeViolations(page, "setup, add refused")).toEqual([]);

    await email.fill("nora.neu@test.example");
    await page.getByLabel("Full name in this clinic").fill("Nora Neu");
    await page.getByLabel("Phone").fill("+4930999000");
    await page.getByRole("button", { name: "Add", exact: true }).click();
    await page
      .getByTestId("providers-notice")
      .getByText(/^Added Nora Neu \(nora\.neu@test\.example\) as a provider, pending/)
      .waitFor();
    const nora = row(page, "Nora Neu");
    expect(await nora.getByTestId("provider-status").textContent()).toBe("Pending approval");
    const added = (await c.api.providers.list({ clinic_id: c.clinicId })).providers.find(
      (p) => p.full_name === "Nora Neu",
    );
    expect(added).toMatchObject({ email: "nora.neu@test.example", phone_e164: "+4930999000", status: "pending" });
    if (!added) throw new Error("not added");

    // Someone else approves her meanwhile: this page still offers Approve, and shows the §2 answer.
    await c.api.providers.approve({ clinic_id: c.clinicId, user_id: added.user_id });
    await nora.getByRole("button", { name: "Approve Nora Neu" }).click();
    const problem = nora.getByTestId("row-problem");
    await problem.waitFor();
    expect(await problem.textContent()).toBe(
      "That change is not possible now: cannot approve a provider whose status is approved (allowed: suspend, remove).",
    );
    // The row shows what is true now, and its buttons point at the answer.
    await expect.poll(() => nora.getByTestId("provider-status").textContent()).toBe("Approved");
    expect(await nora.getByRole("button", { name: "Suspend Nora Neu" }).getAttribute("aria-describedby")).toBe(
      await problem.getAttribute("id"),
    );
    await screenshot(page, "setup-provider-stale", { docs: true });
    expect(await axeViolations(page, "setup, a refused action in its row")).toEqual([]);
  });

  it("edits the per-clinic name, phone and notes (a refused phone at its field), opens the calendars, and shows STAFF the list read-only", async () => {
    const c = await setUpClinic("Praxis Details");
    const page = await pageAs(c.admin, `/desk/${c.clinicId}/setup/providers`);
    const edit = row(page, "Anna Berg").getByRole("button", { name: "Edit Anna Berg" });
    await edit.click();
    const dialog = page.getByTestId("provider-dialog");
    await dialog.getByRole("heading", { name: "Edit Anna Berg" }).waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe("H2");
    const fullName = dialog.getByLabel("Full name in this clinic");
    await fullName.waitFor();
    await fullName.fill("Dr. Anna Berg");
    const phone = dialog.getByLabel("Phone");
    await phone.fill("030 111");
    await dialog.getByLabel("Notes").fill("Mornings only on Fridays.\nSpeaks Swedish.");
    await dialog.getByRole("button", { name: "Save" }).click();
    const refused = dialog.getByTestId("field-error-phone_e164");
    await refused.waitFor();
    expect(await refused.textContent()).toBe("Phone: must be an E.164 phone number such as +4930123456.");
    expect(await phone.getAttribute("aria-invalid")).toBe("true");
    expect(await axeViolations(page, "setup, provider dialog with a refused phone")).toEqual([]);
    await phone.fill("+4930111333");
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.getByText("Saved Dr. Anna Berg.").waitFor();
    const detail = await c.api.providers.get({ clinic_id: c.clinicId, user_id: c.anna.id });
    expect(detail).toMatchObject({
      full_name: "Dr. Anna Berg",
      phone_e164: "+4930111333",
      notes: "Mornings only on Fridays.\nSpeaks Swedish.",
    });
    await screenshot(page, "setup-provider-edit", { docs: true });
    // Escape closes it; the focus is back on the row's button (renamed with the list).
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    await expect.poll(() => focusedName(page)).toBe("Edit Dr. Anna Berg");

    // The calendars: the desk's dialog, from the row.
    await row(page, "Dr. Anna Berg").getByRole("button", { name: "Calendars of Dr. Anna Berg" }).click();
    const calendars = page.getByTestId("calendars-dialog");
    await calendars.getByRole("heading", { name: "Calendars of Dr. Anna Berg" }).waitFor();
    await calendars.getByRole("button", { name: /^Add/ }).waitFor();
    expect(await axeViolations(page, "setup, calendars dialog")).toEqual([]);
    await page.keyboard.press("Escape");
    await calendars.waitFor({ state: "detached" });
    expect(await focusedName(page)).toBe("Calendars of Dr. Anna Berg");

    // STAFF: the list, details and calendars to read; no add, no lifecycle, no form.
    const staff = await pageAs(c.staff, `/desk/${c.clinicId}/setup/providers`);
    await staff.getByTestId("providers-table").waitFor();
    expect(await staff.getByRole("button", { name: "Add a member or provider" }).count()).toBe(0);
    expect(await staff.getByRole("button", { name: /^(Approve|Reject|Suspend|Reactivate|Remove|Edit) / }).count()).toBe(
      0,
    );
    await staff.getByRole("button", { name: "Details of Dr. Anna Berg" }).click();
    const details = staff.getByTestId("provider-dialog");
    await details.getByText("Speaks Swedish.", { exact: false }).waitFor();
    expect(await details.locator("form").count()).toBe(0);
    await screenshot(staff, "setup-providers-staff");
    expect(await axeViolations(staff, "setup, provider details read by STAFF")).toEqual([]);
  });
});
