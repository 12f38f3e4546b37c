// The clinic's own setup in a real browser (Debian's Chromium through playwright-core) against a
// real server whose workers deliver webhooks (CONTRACT §23, docs/web.md "Clinic"): the settings
// saved with only what changed, a refusal at its field; a webhook created (its secret shown once),
// a test delivery sent and seen delivered, a bad URL refused at the URL, a webhook removed after a
// question; members added by e-mail with a role and their role changed, which changes what the
// setup lets them do; STAFF reads. axe A/AA on the page and the dialog.
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations, chromiumPath, screenshot, useBrowserPages } from "./browser.ts";
import { addMember, callerFor, createClinic, type TestUser } from "@clinic/api/testing";
import { useTestApp } from "@clinic/server/test-helpers";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));

describe.skipIf(!chromiumPath)("the clinic setup page in Chromium", () => {
  const t = useTestApp(
    {
      web: { distDir: dist },
      workers: true,
      config: {
        allowedOrigins: [],
        rateLimit: { max: 100_000, windowMs: 60_000 },
        logLevel: "silent",
        jobPollIntervalMs: 200,
        webhooks: { allowPrivate: true, retryDelaysS: [1, 1, 2] },
      },
    },
    { ownDatabase: "setup_clinic_web" },
  );
  const pages = useBrowserPages(t);
  // A webhook receiver on 127.0.0.1: answers 200 and keeps what it got.
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const receiver = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on("end", () => {
      received.push({ headers: request.headers, body });
      response.writeHead(200).end("ok");
    });
  });
  let hookUrl = "";

  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    hookUrl = `http://127.0.0.1:${String((receiver.address() as AddressInfo).port)}/hook`;
  });
  afterAll(async () => {
    await new Promise((resolve) => receiver.close(resolve));
  });

  async function setUpClinic(name: string) {
    const db = t.handle.db;
    const clinicId = await createClinic(db, { timezone: "Europe/Berlin", name });
    const admin = await addMember(db, clinicId, { role: "CLINIC_ADMIN", fullName: "Clara Admin" });
    const staff = await addMember(db, clinicId, { role: "STAFF", fullName: "Sam Staff" });
    return { clinicId, admin, staff, api: callerFor(db, admin) };
  }

  function pageAs(user: TestUser, path: string): Promise<Page> {
    return pages.page(user, path);
  }
  const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? "");

  it("saves the clinic's settings, only what changed, and a refusal lands at its field", async () => {
    const c = await setUpClinic("Praxis Settings");
    const page = await pageAs(c.admin, `/desk/${c.clinicId}/setup/clinic`);
    await page.getByRole("heading", { name: "Praxis Settings: Clinic" }).waitFor();
    expect(await page.getByRole("link", { name: "Clinic", exact: true }).getAttribute("aria-current")).toBe("page");
    const form = page.locator("form").filter({ has: page.getByRole("button", { name: "Save the settings" }) });
    expect(await form.getByLabel("Time zone").inputValue()).toBe("Europe/Berlin");
    expect(await axeViolations(page, "setup, clinic")).toEqual([]);

    await form.getByRole("button", { name: "Save the settings" }).click();
    await page.getByTestId("clinic-notice").filter({ hasText: "Nothing to save" }).waitFor();

    await form.getByLabel("Name", { exact: true }).fill("Praxis Neu");
    await form.getByLabel("Time zone").fill("Mars/Olympus");
    await form.getByLabel("A held time is kept for (minutes)").fill("90");
    await form.getByRole("button", { name: "Save the settings" }).click();
    const zoneError = form.getByTestId("field-error-timezone");
    await zoneError.waitFor();
    expect(await zoneError.textContent()).toBe("Time zone: must be an IANA time zone such as Europe/Berlin.");
    expect(await form.getByTestId("field-error-hold_minutes").textContent()).toMatch(
      /^A held time is kept for \(minutes\): Too big/,
    );
    expect(await focusedId(page)).toBe(await form.getByLabel("Time zone").getAttribute("id"));
    expect((await c.api.clinics.get({ clinic_id: c.clinicId })).name).toBe("Praxis Settings");
    expect(await axeViolations(page, "setup, clinic, refused")).toEqual([]);
    await screenshot(page, "setup-clinic-refused", { docs: true });

    await form.getByLabel("Time zone").fill("Europe/Vienna");
    await form.getByLabel("A held time is kept for (minutes)").fill("15");
    await form.getByLabel("Patients may book online").check();
    await form.getByLabel("Open bookings per patient, at most").fill("3");
    await form.getByLabel("No-shows in a year before online booking stops").fill("2");
    await form.getByLabel("Reminders (minutes before the start)").fill("1440, 120");
    await form.getByLabel("Unconfirmed guest bookings kept at once").fill("0");
    await form.getByLabel("Keep patients' personal values for (days after the appointment)").fill("400");
    await form.getByLabel("Language of patients' e-mails").selectOption("de");
    await form.getByRole("button", { name: "Save the settings" }).click();
    await page.getByTestId("clinic-notice").filter({ hasText: "Saved the clinic's settings." }).waitFor();
    await page.getByRole("heading", { name: "Praxis Neu: Clinic" }).waitFor();
    const saved = await c.api.clinics.get({ clinic_id: c.clinicId });
    expect(saved).toMatchObject({
      name: "Praxis Neu",
      timezone: "Europe/Vienna",
      locale: "de",
      online_booking: true,
      max_open_bookings_per_patient: 3,
      hold_minutes: 15,
      no_show_limit: 2,
      reminder_offsets_min: [1440, 120],
      guest_holds_max: 0,
      retention_days: 400,
    });

    // STAFF reads the settings and the members, and is not shown the webhooks.
    const staff = await pageAs(c.staff, `/desk/${c.clinicId}/setup/clinic`);
    await staff.getByTestId("settings-facts").waitFor();
    expect(await staff.getByTestId("settings-facts").textContent()).toContain("Europe/Vienna");
    await staff.getByText("The clinic's webhooks are for its clinic administrators.").waitFor();
    await staff.getByTestId("members-table").waitFor();
    expect(await staff.getByRole("button").count()).toBe(0);
    expect(await staff.getByRole("textbox").count()).toBe(0);
    expect(await axeViolations(staff, "setup, clinic, STAFF reads")).toEqual([]);
  });

  it("creates a webhook showing its secret once, sends a test delivery and removes it", async () => {
    const c = await setUpClinic("Praxis Hooks");
    const page = await pageAs(c.admin, `/desk/${c.clinicId}/setup/clinic`);
    const hooks = page.getByTestId("webhooks");
    await hooks.getByText("No webhooks yet.").waitFor();
    const form = hooks.getByRole("group", { name: "New webhook" });

    await form.getByLabel("Receiver URL").fill("ftp://files.example/x");
    await form.getByRole("button", { name: "Create the webhook" }).click();
    const urlError = form.getByTestId("field-error-url");
    await urlError.waitFor();
    expect(await urlError.textContent()).toBe("Receiver URL: must be an http(s) URL.");
    expect(await focusedId(page)).toBe(await form.getByLabel("Receiver URL").getAttribute("id"));

    await form.getByLabel("Receiver URL").fill(hookUrl);
    await form.getByLabel("Description (optional)").fill("The practice system");
    await form.getByRole("button", { name: "Create the webhook" }).click();
    const secretBox = hooks.getByTestId("webhook-secret");
    await secretBox.waitFor();
    const secret = (await secretBox.getByTestId("secret-value").textContent()) ?? "";
    expect(secret).toMatch(/^whsec_/);
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("webhook-secret");
    const [stored] = (await c.api.webhooks.list({ clinic_id: c.clinicId })).webhooks;
    expect(stored).toMatchObject({ url: hookUrl, event_types: ["*"], description: "The practice system" });
    expect(await hooks.getByTestId("webhook").textContent()).toContain(`${hookUrl} — every event. The practice system`);
    await screenshot(page, "setup-clinic-webhook-secret", { docs: true });
    expect(await axeViolations(page, "setup, clinic, a new webhook's secret")).toEqual([]);
    await secretBox.getByRole("button", { name: "I have copied the secret" }).click();
    expect(await hooks.getByTestId("webhook-secret").count()).toBe(0);
    await page.reload();
    await hooks.getByTestId("webhook").waitFor();
    expect(await page.content()).not.toContain(secret);

    // A test delivery: listed, and delivered to the receiver (signed).
    await hooks.getByRole("button", { name: `Send a test event to ${hookUrl}` }).click();
    await page.getByTestId("clinic-notice").filter({ hasText: "A test event (webhook.test) is on its way" }).waitFor();
    const delivery = hooks.getByTestId("delivery");
    await delivery.waitFor();
    expect(await delivery.locator("td").nth(0).textContent()).toBe("webhook.test");
    // The worker delivers it; the page shows the status as read again.
    const refresh = hooks.getByRole("button", { name: "Read the deliveries again" });
    for (;;) {
      if ((await delivery.locator("td").nth(1).getAttribute("data-status")) === "succeeded") break;
      await Promise.all([page.waitForResponse((r) => r.url().includes("webhooks.deliveries")), refresh.click()]);
    }
    expect(await delivery.locator("td").nth(1).textContent()).toBe("Delivered");
    expect(await delivery.locator("td").nth(3).textContent()).toBe("HTTP 200");
    const got = received.find((r) => r.body.includes("webhook.test"));
    expect(got).toBeDefined();
    await screenshot(page, "setup-clinic-webhook-deliveries", { docs: true });
    expect(await axeViolations(page, "setup, clinic, deliveries")).toEqual([]);

    // Sent again (H6): a second attempt of the same delivery reaches the receiver.
    const tests = () => received.filter((r) => r.body.includes("webhook.test")).length;
    await delivery.getByRole("button", { name: /^Send again the webhook\.test of .+$/ }).click();
    await page
      .getByTestId("clinic-notice")
      .filter({ hasText: `The delivery is on its way to ${hookUrl} again.` })
      .waitFor();
    await expect.poll(tests, { timeout: 20_000 }).toBe(2);
    await expect
      .poll(async () => {
        const [hook] = (await c.api.webhooks.list({ clinic_id: c.clinicId })).webhooks;
        const listed = await c.api.webhooks.deliveries({ clinic_id: c.clinicId, id: hook?.id ?? "" });
        return listed.deliveries.map((d) => `${d.status} ${String(d.attempts)}`);
      })
      .toEqual(["succeeded 2"]);

    // Paused (H3 active: false) and resumed, said in words, as the API has it.
    await hooks.getByRole("button", { name: `Pause the webhook to ${hookUrl}` }).click();
    await page
      .getByTestId("clinic-notice")
      .filter({ hasText: `Paused the webhook to ${hookUrl}` })
      .waitFor();
    await hooks.getByTestId("webhook").filter({ hasText: "(paused)" }).waitFor();
    expect((await c.api.webhooks.list({ clinic_id: c.clinicId })).webhooks.map((h) => h.active)).toEqual([false]);
    expect(await axeViolations(page, "setup, clinic, a paused webhook")).toEqual([]);
    await hooks.getByRole("button", { name: `Resume the webhook to ${hookUrl}` }).click();
    await page
      .getByTestId("clinic-notice")
      .filter({ hasText: `Resumed the webhook to ${hookUrl}` })
      .waitFor();
    expect((await c.api.webhooks.list({ clinic_id: c.clinicId })).webhooks.map((h) => h.active)).toEqual([true]);
    expect(await hooks.getByTestId("webhook").textContent()).not.toContain("(paused)");

    // Remove asks first; Escape keeps it, then it goes.
    const remove = hooks.getByRole("button", { name: `Remove the webhook to ${hookUrl}` });
    await remove.click();
    const dialog = page.getByTestId("confirm-dialog");
    await dialog.waitFor();
    expect(await axeViolations(page, "setup, clinic, remove a webhook")).toEqual([]);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe(
      `Remove the webhook to ${hookUrl}`,
    );
    await remove.click();
    await dialog.getByRole("button", { name: "Yes, remove" }).click();
    await hooks.getByText("No webhooks yet.").waitFor();
    expect((await c.api.webhooks.list({ clinic_id: c.clinicId })).webhooks).toEqual([]);
  });

  it("adds a member by e-mail with a role and changes roles, which changes what the setup offers them", async () => {
    const c = await setUpClinic("Praxis Team");
    const page = await pageAs(c.admin, `/desk/${c.clinicId}/setup/clinic`);
    const members = page.getByTestId("members");
    await members.getByTestId("members-table").waitFor();
    await members.getByRole("button", { name: "Add a member or provider" }).click();
    const email = `nina-${String(Date.now())}@example.test`;
    await members.getByLabel("E-mail").fill(email);
    await members.getByLabel("Full name in this clinic").fill("Nina Neu");
    expect(await members.getByLabel("A provider (patients book them)").isChecked()).toBe(false);
    await members.getByRole("button", { name: "Add", exact: true }).click();
    const nina = members.getByTestId("member-row").filter({ hasText: "Nina Neu" });
    await nina.waitFor();
    expect(await nina.getByTestId("member-role").textContent()).toBe("STAFF");
    expect(await nina.locator("td").nth(2).textContent()).toBe("No");
    expect(await axeViolations(page, "setup, clinic, members")).toEqual([]);

    // Nina becomes a clinic administrator.
    await nina.getByRole("button", { name: "Change role of Nina Neu" }).click();
    await nina.getByLabel("Role in this clinic").selectOption("CLINIC_ADMIN");
    await nina.getByRole("button", { name: "Save the role" }).click();
    await page
      .getByTestId("clinic-notice")
      .filter({ hasText: "Nina Neu is now CLINIC_ADMIN in this clinic." })
      .waitFor();
    expect(await nina.getByTestId("member-role").textContent()).toBe("CLINIC_ADMIN");
    expect(await focusedId(page)).toBe(
      await nina.getByRole("button", { name: "Change role of Nina Neu" }).getAttribute("id"),
    );
    const listed = (await c.api.members.list({ clinic_id: c.clinicId })).members.find((m) => m.email === email);
    expect(listed?.clinic_role).toBe("CLINIC_ADMIN");

    // Sam gets a custom role: an empty name is refused at the role, "Reception" is saved.
    const sam = members.getByTestId("member-row").filter({ hasText: "Sam Staff" });
    await sam.getByRole("button", { name: "Change role of Sam Staff" }).click();
    await sam.getByLabel("Role in this clinic").selectOption("__other__");
    await sam.getByRole("button", { name: "Save the role" }).click();
    await sam.getByTestId("field-error-clinic_role").waitFor();
    expect(await axeViolations(page, "setup, clinic, a role refused")).toEqual([]);
    await sam.getByLabel("Name of the role").fill("Reception");
    await sam.getByRole("button", { name: "Save the role" }).click();
    await page.getByTestId("clinic-notice").filter({ hasText: "Sam Staff is now Reception in this clinic." }).waitFor();
    await screenshot(page, "setup-clinic-members", { docs: true });

    // Sam, now with a custom role, is told the setup is not theirs; the server refuses him too.
    const samPage = await pageAs(c.staff, `/desk/${c.clinicId}/setup/clinic`);
    await samPage.getByTestId("setup-refused").waitFor();
    const samApi = callerFor(t.handle.db, c.staff);
    await expect(samApi.members.list({ clinic_id: c.clinicId })).rejects.toThrow();
  });
});
