import { describe, expect, it } from "vitest";
import { ConfigError, isLocalDatabase, loadConfig, poolMaxFor } from "../src/config.ts";

describe("loadConfig", () => {
  it("applies the documented defaults", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 3000, host: "127.0.0.1", databaseUrl: undefined, pgliteDir: ".data/pglite" });
    expect(config.allowedOrigins).toEqual([]);
    expect(config.logLevel).toBe("info");
    expect(config.rateLimit).toEqual({ max: 10_000, windowMs: 60_000 });
  });

  it("runs one process on the embedded database, and as many as asked (default: the CPUs) on PostgreSQL", () => {
    expect(loadConfig({}).workers).toBe(1);
    expect(() => loadConfig({ WORKERS: "2" })).toThrow(ConfigError);
    expect(loadConfig({ WORKERS: "1" }).workers).toBe(1);
    expect(loadConfig({ DATABASE_URL: "postgres://x@127.0.0.1/db", WORKERS: "3" }).workers).toBe(3);
    expect(loadConfig({ DATABASE_URL: "postgres://x@127.0.0.1/db" }).workers).toBeGreaterThanOrEqual(1);
    expect(() => loadConfig({ METRICS_TOKEN: "short" })).toThrow(/METRICS_TOKEN/);
  });

  it("sizes each process's PostgreSQL pool by DATABASE_POOL_MAX, else by where the database is", () => {
    expect(loadConfig({}).databasePoolMax).toBe(10);
    expect(loadConfig({ DATABASE_POOL_MAX: "4" }).databasePoolMax).toBe(4);
    expect(loadConfig({ DATABASE_URL: "postgres://x@127.0.0.1/db", DATABASE_POOL_MAX: "7" }).databasePoolMax).toBe(7);
    expect(loadConfig({ DATABASE_URL: "postgres://x@db.internal:5432/db" }).databasePoolMax).toBe(10);
    const local = loadConfig({ DATABASE_URL: "postgres://x@localhost/db", WORKERS: "1" }).databasePoolMax;
    expect(local).toBeGreaterThanOrEqual(4);
    expect(local).toBeLessThanOrEqual(10);
    expect(() => loadConfig({ DATABASE_POOL_MAX: "0" })).toThrow(/DATABASE_POOL_MAX/);
    expect(() => loadConfig({ DATABASE_POOL_MAX: "four" })).toThrow(/DATABASE_POOL_MAX/);
  });

  it("gives a database on this host about twice its cores across the processes, 4 to 10 each", () => {
    const local = "postgres://x@127.0.0.1:5432/db";
    expect(poolMaxFor(local, 1, 2)).toBe(4);
    expect(poolMaxFor(local, 2, 2)).toBe(4);
    expect(poolMaxFor(local, 1, 3)).toBe(6);
    expect(poolMaxFor(local, 1, 8)).toBe(10);
    expect(poolMaxFor(local, 8, 8)).toBe(4);
    expect(poolMaxFor(local, 4, 16)).toBe(8);
    expect(poolMaxFor("postgres://x@db.internal/db", 1, 2)).toBe(10);
    expect(poolMaxFor("postgres://x@10.0.0.5/db", 1, 2)).toBe(10);
    expect(poolMaxFor(undefined, 1, 2)).toBe(10);
  });

  it("tells a database on this host from one elsewhere", () => {
    for (const url of [
      "postgres://x@localhost/db",
      "postgres://x@LOCALHOST:5433/db",
      "postgres://x@127.0.0.1/db",
      "postgres://x@127.1.2.3/db",
      "postgres://x@[::1]:5432/db",
      "postgres://x@127.0.0.1/db?host=/var/run/postgresql",
      "postgres://x@db.internal/db?host=/var/run/postgresql",
      "postgres:///db",
    ])
      expect(isLocalDatabase(url), url).toBe(true);
    for (const url of [
      "postgres://x@db.internal/db",
      "postgres://x@10.0.0.5/db",
      "postgres://x@128.0.0.1/db",
      "not a url",
    ])
      expect(isLocalDatabase(url), url).toBe(false);
  });

  it("reads the mail settings and the guest limit (docs/messages.md)", () => {
    expect(loadConfig({})).toMatchObject({
      guestRateLimit: 10,
      mail: { smtpUrl: undefined, from: "Clinic Scheduling <no-reply@localhost>" },
    });
    const config = loadConfig({
      SMTP_URL: "smtps://user:pa%40ss@mail.example:465",
      MAIL_FROM: "Praxis <hello@praxis.example>",
      GUEST_RATE_LIMIT: "3",
    });
    expect(config.mail).toEqual({
      smtpUrl: "smtps://user:pa%40ss@mail.example:465",
      from: "Praxis <hello@praxis.example>",
    });
    expect(config.guestRateLimit).toBe(3);
    expect(() => loadConfig({ SMTP_URL: "https://mail.example" })).toThrow(/SMTP_URL/);
    expect(() => loadConfig({ GUEST_RATE_LIMIT: "0" })).toThrow(/GUEST_RATE_LIMIT/);
  });

  it("reads TRUST_PROXY as Fastify's trustProxy: none by default, a hop count, or proxy addresses/CIDRs", () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "false" }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "0" }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "1" }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: "10.0.0.0/8, 192.0.2.7,2001:db8::/32" }).trustProxy).toEqual([
      "10.0.0.0/8",
      "192.0.2.7",
      "2001:db8::/32",
    ]);
    for (const bad of ["true", "yes", "10.0.0.0/33", "10.0.0.1,", "proxy.example", "-1", "1.5"])
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY/);
  });

  it("takes a guest address key of at least 32 characters, or none", () => {
    expect(loadConfig({}).guestAddressKey).toBeUndefined();
    expect(loadConfig({ GUEST_ADDRESS_KEY: "k".repeat(32) }).guestAddressKey).toBe("k".repeat(32));
    expect(() => loadConfig({ GUEST_ADDRESS_KEY: "short" })).toThrow(/GUEST_ADDRESS_KEY/);
  });

  it("parses lists and numbers", () => {
    const config = loadConfig({ PORT: "8080", ALLOWED_ORIGINS: "https://a.example, https://b.example" });
    expect(config.port).toBe(8080);
    expect(config.allowedOrigins).toEqual(["https://a.example", "https://b.example"]);
  });

  it.each([
    ["PORT", "eighty"],
    ["PORT", "70000"],
    ["LOG_LEVEL", "verbose"],
    ["DATABASE_URL", "mysql://x"],
    ["ALLOWED_ORIGINS", "not a url"],
    ["NODE_ENV", "staging"],
  ])("refuses %s=%s with a one-line message naming the variable", (variable, value) => {
    let caught: unknown;
    try {
      loadConfig({ [variable]: value });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const message = caught instanceof Error ? caught.message : "";
    expect(message).toContain(variable);
    expect(message).not.toContain("\n");
  });

  it("reads sign-in (§22): OIDC needs all three of issuer, client id and secret; e-mail codes on by default outside production or with SMTP", () => {
    const none = loadConfig({});
    expect(none.signIn).toEqual({ oidc: null, emailCodes: true, sessionIdleS: 28_800, sessionTtlS: 43_200 });
    expect(loadConfig({ NODE_ENV: "production", JWT_SECRET: "x".repeat(32) }).signIn.emailCodes).toBe(false);
    expect(
      loadConfig({ NODE_ENV: "production", JWT_SECRET: "x".repeat(32), SMTP_URL: "smtp://mail.example:587" }).signIn
        .emailCodes,
    ).toBe(true);
    expect(loadConfig({ EMAIL_SIGN_IN: "false" }).signIn.emailCodes).toBe(false);
    const oidc = loadConfig({
      OIDC_ISSUER: "https://tenant.auth0.example/",
      OIDC_CLIENT_ID: "clinic",
      OIDC_CLIENT_SECRET: "secret",
      OIDC_NAME: "Sign in with Auth0",
    }).signIn.oidc;
    // The issuer is kept exactly: it must equal the discovery document's.
    expect(oidc).toEqual({
      issuer: "https://tenant.auth0.example/",
      clientId: "clinic",
      clientSecret: "secret",
      scopes: "openid email profile",
      name: "Sign in with Auth0",
    });
    expect(() => loadConfig({ OIDC_ISSUER: "https://id.example", OIDC_CLIENT_ID: "clinic" })).toThrow(
      /OIDC_CLIENT_SECRET/,
    );
    expect(() => loadConfig({ OIDC_SCOPES: "email profile" })).toThrow(/OIDC_SCOPES/);
    expect(() => loadConfig({ SESSION_IDLE_S: "10" })).toThrow(/SESSION_IDLE_S/);
  });
});
