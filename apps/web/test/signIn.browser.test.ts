// Sign-in in a real browser (CONTRACT §22, docs/web.md#sign-in): a member invited by e-mail opens
// the desk, follows "Sign in" through a real OpenID Provider (oidc-provider, in-process) back to the
// desk, sees who they are and their clinic's day, and signs out through the provider's end-session
// page; then a patient signs in on the booking page with an e-mailed code and out again.
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createTokenVerifier, type MailTransport, type OutgoingMail } from "@clinic/api";
import { addMember, createClinic, testSecret, unique } from "@clinic/api/testing";
import { type DbHandle, clinics } from "@clinic/db";
import { openTestDatabase } from "@clinic/db/testing";
import { buildApp } from "@clinic/server/app";
import { type TestProvider, startTestProvider } from "@clinic/server/test-openid-provider";
import { eq } from "drizzle-orm";
import { axeViolations, chromiumPath, screenshot, sharedChromium } from "./browser.ts";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));

/** A port nobody listens on now, for the app: its redirect URI must be known to the provider first. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => {
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

describe.skipIf(!chromiumPath)("sign-in in Chromium", () => {
  let provider: TestProvider;
  let handle: DbHandle;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let browser: Browser | undefined;
  let base = "";
  const mails: OutgoingMail[] = [];
  const transport: MailTransport = {
    send: (mail) => {
      mails.push(mail);
      return Promise.resolve();
    },
    close: () => undefined,
  };

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${String(port)}`;
    provider = await startTestProvider({ redirectUri: `${base}/auth/callback`, postLogoutRedirectUri: `${base}/` });
    handle = await openTestDatabase({ url: inject("databaseUrl"), templatePath: inject("pgliteTemplate") });
    app = await buildApp({
      config: {
        allowedOrigins: [],
        rateLimit: { max: 100_000, windowMs: 60_000 },
        logLevel: "silent",
        publicUrl: base,
        signIn: {
          oidc: {
            issuer: provider.issuer,
            clientId: provider.clientId,
            clientSecret: provider.clientSecret,
            scopes: "openid email profile",
            name: "Sign in with the clinic's accounts",
          },
          emailCodes: true,
          sessionIdleS: 28_800,
          sessionTtlS: 43_200,
        },
      },
      database: handle,
      verifier: createTokenVerifier({ secret: testSecret }),
      logger: false,
      web: { distDir: dist },
      mail: { transport, from: "Clinic <no-reply@clinic.test>" },
    });
    await app.listen({ port, host: "127.0.0.1" });
    browser = await sharedChromium();
  }, 60_000);

  afterAll(async () => {
    await app.close();
    await handle.close();
    await provider.close();
  });

  it("signs a member in from the desk through the identity provider, and out again", async () => {
    if (!browser) throw new Error("no browser");
    const clinicId = await createClinic(handle.db, { name: "Praxis Anmeldung", timezone: "Europe/Berlin" });
    const email = `sam-${unique()}@clinic.test`;
    await addMember(handle.db, clinicId, { role: "STAFF", fullName: "Sam Staff", email });
    provider.nextAccount = { sub: `sam-${unique()}`, email, email_verified: true, name: "Sam Staff" };
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${base}/desk/${clinicId}`);
      const bar = page.getByRole("navigation", { name: "Account" });
      await bar.getByText("Not signed in.").waitFor();
      const signIn = bar.getByRole("link", { name: "Sign in" });
      expect(await signIn.getAttribute("href")).toBe(`/auth/login?next=${encodeURIComponent(`/desk/${clinicId}`)}`);
      await signIn.click();
      await page.waitForURL(`${base}/desk/${clinicId}`);
      await bar.getByText("Signed in as").waitFor();
      expect(await bar.textContent()).toContain("Sam Staff");
      // The desk works with the session: the clinic's name is on the page.
      await page.getByText("Praxis Anmeldung").first().waitFor();
      expect(await axeViolations(page, "signed-in desk")).toEqual([]);
      await screenshot(page, "sign-in-desk");
      // The page's script never sees the session.
      expect(await page.evaluate(() => document.cookie)).not.toContain("session");
      await bar.getByRole("button", { name: "Sign out" }).click();
      // The provider asks whether to end its own session too; yes, then back to the service.
      await page.getByRole("button", { name: /sign me out/i }).click();
      await page.waitForURL(`${base}/`);
      await bar.getByText("Not signed in.").waitFor();
      const session = await page.evaluate(async () => (await fetch("/auth/session")).status);
      expect(session).toBe(401);
    } finally {
      await context.close();
    }
  });

  it('signs a patient in from the booking page\'s "My appointments" through the identity provider', async () => {
    if (!browser) throw new Error("no browser");
    const clinicId = await createClinic(handle.db, { name: "Praxis Buchung", timezone: "Europe/Berlin" });
    await handle.db.update(clinics).set({ onlineBooking: true }).where(eq(clinics.id, clinicId));
    const email = `pat-${unique()}@clinic.test`;
    provider.nextAccount = { sub: `pat-${unique()}`, email, email_verified: true, name: "Pat Patient" };
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${base}/book/${clinicId}`);
      const mine = page.getByRole("region", { name: "My appointments" });
      await mine.getByRole("link", { name: "Sign in" }).click();
      await page.waitForURL(`${base}/book/${clinicId}`);
      await mine.getByText("No upcoming appointments.").waitFor();
      const bar = page.getByRole("navigation", { name: "Account" });
      expect(await bar.textContent()).toContain("Pat Patient");
      await bar.getByRole("button", { name: "Sign out" }).click();
      await page.getByRole("button", { name: /sign me out/i }).click();
      await page.waitForURL(`${base}/`);
      await bar.getByText("Not signed in.").waitFor();
    } finally {
      await context.close();
    }
  });

  it("offers the e-mail code form on the page when the service has no OpenID Provider", async () => {
    if (!browser) throw new Error("no browser");
    const codesOnly = await buildApp({
      config: {
        allowedOrigins: [],
        rateLimit: { max: 100_000, windowMs: 60_000 },
        logLevel: "silent",
        signIn: { oidc: null, emailCodes: true, sessionIdleS: 28_800, sessionTtlS: 43_200 },
      },
      database: handle,
      verifier: createTokenVerifier({ secret: testSecret }),
      logger: false,
      web: { distDir: dist },
      mail: { transport, from: "Clinic <no-reply@clinic.test>" },
    });
    const origin = await codesOnly.listen({ port: 0, host: "127.0.0.1" });
    const clinicId = await createClinic(handle.db, { name: "Praxis Formular", timezone: "Europe/Berlin" });
    await handle.db.update(clinics).set({ onlineBooking: true }).where(eq(clinics.id, clinicId));
    const email = `form-${unique()}@clinic.test`;
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${origin}/book/${clinicId}`);
      const bar = page.getByRole("navigation", { name: "Account" });
      await bar.getByRole("button", { name: "Sign in" }).click();
      await bar.getByLabel("E-mail address").fill(email);
      await bar.getByRole("button", { name: "E-mail me a code" }).click();
      const codeField = bar.getByLabel(/6-digit code/);
      await codeField.waitFor();
      expect(await axeViolations(page, "e-mail code form")).toEqual([]);
      const code = /\b(\d{6})\b/.exec(mails.filter((m) => m.to === email).at(-1)?.text ?? "")?.[1] ?? "";
      // A wrong code first: the form says so and stays.
      await codeField.fill(code === "000000" ? "111111" : "000000");
      await bar.getByRole("button", { name: "Sign in" }).click();
      await bar.getByRole("alert").waitFor();
      await codeField.fill(code);
      await bar.getByRole("button", { name: "Sign in" }).click();
      await bar.getByText(email).waitFor();
      await screenshot(page, "sign-in-email-code");
      await bar.getByRole("button", { name: "Sign out" }).click();
      await page.waitForURL(`${origin}/`);
      await bar.getByText("Not signed in.").waitFor();
    } finally {
      await context.close();
      await codesOnly.close();
    }
  });

  it("signs a patient in on the booking page with an e-mailed code, and out again", async () => {
    if (!browser) throw new Error("no browser");
    const clinicId = await createClinic(handle.db, { name: "Praxis Code", timezone: "Europe/Berlin" });
    await handle.db.update(clinics).set({ onlineBooking: true }).where(eq(clinics.id, clinicId));
    const email = `pat-${unique()}@clinic.test`;
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      // Without OIDC the pages offer the code form; this app has both, so ask S4/S5 as the form would.
      await page.goto(`${base}/book/${clinicId}`);
      const started = await page.evaluate(
        async (address) =>
          (
            await fetch("/auth/email/start", {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ email: address, next: window.location.pathname }),
            })
          ).status,
        email,
      );
      expect(started).toBe(202);
      const code = /\b(\d{6})\b/.exec(mails.filter((m) => m.to === email).at(-1)?.text ?? "")?.[1] ?? "";
      expect(code).toMatch(/^\d{6}$/);
      const next = await page.evaluate(
        async ([address, sent]) => {
          const response = await fetch("/auth/email/verify", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ email: address, code: sent }),
          });
          return ((await response.json()) as { next: string }).next;
        },
        [email, code] as const,
      );
      expect(next).toBe(`/book/${clinicId}`);
      await page.goto(`${base}${next}`);
      const bar = page.getByRole("navigation", { name: "Account" });
      await bar.getByText(email).waitFor();
      await bar.getByRole("button", { name: "Sign out" }).click();
      await page.waitForURL(`${base}/`);
      await bar.getByText("Not signed in.").waitFor();
    } finally {
      await context.close();
    }
  });
});
