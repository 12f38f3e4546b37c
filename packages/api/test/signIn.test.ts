import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { emailCodes, rowsOf, sessions, signInCounters } from "@clinic/db";
import {
  createSession,
  decryptFor,
  encryptFor,
  endSessionsOfUser,
  idTokenKeyOf,
  pruneEmailCodes,
  pruneSessions,
  pruneSignInCounters,
  safeNext,
  sessionOf,
  startEmailCode,
  userForIdentity,
  verifyEmailCode,
} from "../src/modules/signIn/index.ts";
import { createUser, unique, useTestDatabase } from "../testing/index.ts";

// Sign-in's rules below HTTP (CONTRACT §22, docs/sign-in.md): `next`, the sessions' two ends with a
// pinned clock, the code's ten minutes, the ID token's encryption, and who is who.

const t = useTestDatabase();
const limits = { idleS: 600, ttlS: 3600 };
const at = (iso: string) => new Date(iso);

describe("next", () => {
  it("keeps a path of this origin and turns anything else into /", () => {
    for (const kept of ["/", "/desk/1", "/book/x?y=1#z", "/a//b", "/manage/abc%2F"]) expect(safeNext(kept)).toBe(kept);
    const refused = [
      "//evil.example",
      "https://evil.example/",
      "/\\evil.example",
      "\\\\evil.example",
      "javascript:alert(1)",
      "evil.example",
      "/\t/evil.example",
      "/\n/evil.example",
      "",
      undefined,
      42,
      ["/a"],
    ];
    for (const next of refused) expect(safeNext(next), String(next)).toBe("/");
  });
});

describe("sessions", () => {
  it("end after the idle time without a request, and are kept alive by requests", async () => {
    const user = await createUser(t.db);
    const start = at("2027-03-01T08:00:00.000Z");
    const { id } = await createSession(t.db, { userId: user.id, method: "email", now: start, limits });
    // Seen 9 minutes later: alive, and the idle end moves on.
    const seen = await sessionOf(t.db, id, at("2027-03-01T08:09:00.000Z"), limits);
    expect(seen?.expiresAt.toISOString()).toBe("2027-03-01T08:19:00.000Z");
    expect(await sessionOf(t.db, id, at("2027-03-01T08:18:59.000Z"), limits)).not.toBeNull();
    // 10 minutes after the last request that moved last_seen_at: ended.
    expect(await sessionOf(t.db, id, at("2027-03-01T08:29:00.000Z"), limits)).toBeNull();
  });

  it("end at the absolute end however busy, and move last_seen_at at most once a minute", async () => {
    const user = await createUser(t.db);
    const start = at("2027-03-01T08:00:00.000Z");
    const { id } = await createSession(t.db, { userId: user.id, method: "email", now: start, limits });
    const seenAt = async () => {
      const [row] = await t.db
        .select({ lastSeenAt: sessions.lastSeenAt })
        .from(sessions)
        .where(eq(sessions.userId, user.id));
      return row?.lastSeenAt.toISOString();
    };
    await sessionOf(t.db, id, at("2027-03-01T08:00:30.000Z"), limits);
    expect(await seenAt()).toBe("2027-03-01T08:00:00.000Z");
    await sessionOf(t.db, id, at("2027-03-01T08:01:00.000Z"), limits);
    expect(await seenAt()).toBe("2027-03-01T08:01:00.000Z");
    for (let minute = 5; minute < 60; minute += 5)
      expect(await sessionOf(t.db, id, new Date(start.getTime() + minute * 60_000), limits)).not.toBeNull();
    const last = await sessionOf(t.db, id, at("2027-03-01T08:59:00.000Z"), limits);
    expect(last?.expiresAt.toISOString()).toBe("2027-03-01T09:00:00.000Z");
    expect(await sessionOf(t.db, id, at("2027-03-01T09:00:00.000Z"), limits)).toBeNull();
  });

  it("end everywhere for one user, not for another", async () => {
    const [a, b] = [await createUser(t.db), await createUser(t.db)];
    const now = at("2027-03-01T08:00:00.000Z");
    const one = await createSession(t.db, { userId: a.id, method: "email", now, limits });
    const two = await createSession(t.db, { userId: a.id, method: "email", now, limits });
    const other = await createSession(t.db, { userId: b.id, method: "email", now, limits });
    expect(await endSessionsOfUser(t.db, a.id)).toBe(2);
    expect(await sessionOf(t.db, one.id, now, limits)).toBeNull();
    expect(await sessionOf(t.db, two.id, now, limits)).toBeNull();
    expect(await sessionOf(t.db, other.id, now, limits)).not.toBeNull();
  });
});

describe("e-mail codes", () => {
  const settings = { addressKey: undefined, startsPerMinute: 1000 };

  it("are valid ten minutes", async () => {
    const email = `c-${unique()}@test.example`;
    const now = at("2027-03-01T08:00:00.000Z");
    const code = await startEmailCode(t.db, { email, next: "/x", clientAddress: "192.0.2.1", now }, settings);
    expect(await verifyEmailCode(t.db, { email, code, now: at("2027-03-01T08:10:00.000Z") }, settings)).toBeNull();
    const fresh = await startEmailCode(t.db, { email, next: "/y", clientAddress: "192.0.2.1", now }, settings);
    expect(
      await verifyEmailCode(
        t.db,
        { email: email.toUpperCase(), code: fresh, now: at("2027-03-01T08:09:59.000Z") },
        settings,
      ),
    ).toEqual({ next: "/y" });
  });

  it("end the earlier code when a new one is asked for", async () => {
    const email = `d-${unique()}@test.example`;
    const now = at("2027-03-01T08:00:00.000Z");
    const first = await startEmailCode(t.db, { email, next: "/", clientAddress: "192.0.2.2", now }, settings);
    const second = await startEmailCode(t.db, { email, next: "/", clientAddress: "192.0.2.2", now }, settings);
    if (first !== second) expect(await verifyEmailCode(t.db, { email, code: first, now }, settings)).toBeNull();
    expect(await verifyEmailCode(t.db, { email, code: second, now }, settings)).not.toBeNull();
  });
});

describe("who is who", () => {
  it("keeps one user per identity, with any string as sub", async () => {
    const now = at("2027-03-01T08:00:00.000Z");
    const claims = { issuer: "https://id.test", subject: `not-a-uuid|${unique()}`, email: null, emailVerified: false };
    const first = await userForIdentity(t.db, claims, now);
    expect(await userForIdentity(t.db, claims, now)).toBe(first);
    expect(await userForIdentity(t.db, { ...claims, issuer: "https://other.test" }, now)).not.toBe(first);
  });

  it("gives two first sign-ins of one identity at once one user", async () => {
    const now = at("2027-03-01T08:00:00.000Z");
    const claims = { issuer: "https://id.test", subject: unique(), email: null, emailVerified: false };
    const [a, b] = await Promise.all([userForIdentity(t.db, claims, now), userForIdentity(t.db, claims, now)]);
    expect(a).toBe(b);
  });
});

describe("the ID token at rest", () => {
  it("decrypts only with the client secret's key and on its own session", () => {
    const key = idTokenKeyOf("secret-one");
    const stored = encryptFor(key, "session-a", "header.payload.signature");
    expect(stored).not.toContain("payload");
    expect(decryptFor(key, "session-a", stored)).toBe("header.payload.signature");
    expect(decryptFor(key, "session-b", stored)).toBeNull();
    expect(decryptFor(idTokenKeyOf("secret-two"), "session-a", stored)).toBeNull();
  });
});

// The clean-ups run now and then from a sign-in (1–2% of calls), so a request rarely reaches them:
// each is called here, on every database, so that a statement one of them cannot run (a raw Date
// bound where PostgreSQL needed a type: 500 on 2% of e-mail code starts) is found at once.
describe("clean-ups of ended rows", () => {
  it("delete only what ended more than a day ago: codes, counter windows, sessions", async () => {
    const now = at("2031-05-01T12:00:00Z");
    const old = at("2031-04-29T12:00:00Z");
    const settings = { addressKey: undefined, startsPerMinute: 1000 };
    const email = `prune-${unique()}@clinic.test`;
    await startEmailCode(t.db, { email, next: "/", clientAddress: "192.0.2.7", now: old }, settings);
    await startEmailCode(t.db, { email, next: "/", clientAddress: "192.0.2.7", now }, settings);
    const user = await createUser(t.db);
    await createSession(t.db, { userId: user.id, method: "email", now: old, limits });
    const fresh = await createSession(t.db, { userId: user.id, method: "email", now, limits });

    await pruneEmailCodes(t.db, now);
    await pruneSignInCounters(t.db, now);
    await pruneSessions(t.db, now, limits);

    const count = async (table: typeof emailCodes | typeof signInCounters | typeof sessions, before: Date) => {
      const column =
        table === emailCodes
          ? emailCodes.expiresAt
          : table === signInCounters
            ? signInCounters.windowStart
            : sessions.expiresAt;
      const [row] = rowsOf<{ n: number }>(
        await t.db.execute(
          sql`select count(*)::int as n from ${table} where ${column} < ${before.toISOString()}::timestamptz`,
        ),
      );
      return row?.n ?? -1;
    };
    const dayAgo = new Date(now.getTime() - 86_400_000);
    expect(await count(emailCodes, dayAgo)).toBe(0);
    expect(await count(signInCounters, dayAgo)).toBe(0);
    expect(await count(sessions, dayAgo)).toBe(0);
    // What is newer stays: today's code signs in, today's session is valid.
    expect(await sessionOf(t.db, fresh.id, now, limits)).not.toBeNull();
    const [live] = rowsOf<{ n: number }>(
      await t.db.execute(
        sql`select count(*)::int as n from ${emailCodes} where ${emailCodes.expiresAt} > ${now.toISOString()}::timestamptz`,
      ),
    );
    expect(live?.n).toBeGreaterThan(0);
  });
});
