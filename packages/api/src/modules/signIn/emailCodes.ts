import { and, eq, gt, isNull, lt, sql } from "drizzle-orm";
import { type Db, emailCodes } from "@clinic/db";
import { clientKeyOf } from "../ratelimit/index.ts";
import { hitSignInLimit } from "./limits.ts";
import { codeHashOf, emailKeyOf, randomCode } from "./secrets.ts";

/** §22: a code is valid 10 minutes, 5 wrong tries end it, at most 5 codes per address per hour. */
export const emailCodeRules = { validS: 600, maxTries: 5, codesPerHour: 5 } as const;

export interface EmailCodeSettings {
  /** GUEST_ADDRESS_KEY: keys the stored hashes of addresses (unset: a fixed key). */
  addressKey: string | undefined;
  /** GUEST_RATE_LIMIT: starts per client address per minute. */
  startsPerMinute: number;
}

/**
 * S4: a new code for `email`, after the two limits (starts per client address per minute, codes per
 * address per hour; 429 past either). Every address gets a code, known or not, so the answer
 * tells nothing; earlier unused codes of the address end (only the newest is valid). Returns the
 * code to e-mail; the database holds only its hash.
 */
export async function startEmailCode(
  db: Db,
  params: { email: string; next: string; clientAddress: string; now: Date },
  settings: EmailCodeSettings,
): Promise<string> {
  const { now } = params;
  await hitSignInLimit(
    db,
    {
      key: `start:${clientKeyOf(params.clientAddress, settings.addressKey)}`,
      max: settings.startsPerMinute,
      windowMs: 60_000,
    },
    now,
    `too many sign-in codes asked from this address: at most ${String(settings.startsPerMinute)} a minute`,
  );
  const emailKey = emailKeyOf(params.email, settings.addressKey);
  await hitSignInLimit(
    db,
    { key: `codes:${emailKey}`, max: emailCodeRules.codesPerHour, windowMs: 3_600_000 },
    now,
    `too many sign-in codes for this e-mail address: at most ${String(emailCodeRules.codesPerHour)} an hour`,
  );
  const code = randomCode();
  await db.transaction(async (tx) => {
    await tx
      .update(emailCodes)
      .set({ usedAt: now })
      .where(and(eq(emailCodes.emailHash, emailKey), isNull(emailCodes.usedAt)));
    await tx.insert(emailCodes).values({
      emailHash: emailKey,
      codeHash: codeHashOf(emailKey, code),
      next: params.next,
      createdAt: now,
      expiresAt: new Date(now.getTime() + emailCodeRules.validS * 1000),
    });
  });
  // Now and then, from a start: codes that ended a day ago are of no use to anyone.
  if (Math.random() < 0.02) await pruneEmailCodes(db, now);
  return code;
}

/** Deletes the codes that expired more than a day before `now`. */
export async function pruneEmailCodes(db: Db, now: Date): Promise<void> {
  await db.delete(emailCodes).where(lt(emailCodes.expiresAt, new Date(now.getTime() - 86_400_000)));
}

/**
 * S5: whether `code` is the address's valid code. One atomic UPDATE counts the try and, when the
 * code matches, uses it up, so that of two tries at once with the right code one wins, and 5
 * tries end a code whatever they were. Returns the code's `next`, or null (wrong, expired, used).
 */
export async function verifyEmailCode(
  db: Db,
  params: { email: string; code: string; now: Date },
  settings: Pick<EmailCodeSettings, "addressKey">,
): Promise<{ next: string } | null> {
  if (!/^\d{6}$/.test(params.code)) return null;
  const emailKey = emailKeyOf(params.email, settings.addressKey);
  const codeHash = codeHashOf(emailKey, params.code);
  const rows = await db
    .update(emailCodes)
    .set({
      tries: sql`${emailCodes.tries} + 1`,
      usedAt: sql`case when ${emailCodes.codeHash} = ${codeHash} then ${params.now.toISOString()}::timestamptz else ${emailCodes.usedAt} end`,
    })
    .where(
      and(
        eq(emailCodes.emailHash, emailKey),
        isNull(emailCodes.usedAt),
        gt(emailCodes.expiresAt, params.now),
        sql`${emailCodes.tries} < ${emailCodeRules.maxTries}`,
      ),
    )
    .returning({ usedAt: emailCodes.usedAt, next: emailCodes.next });
  // Two starts at once may leave two live codes: each try counts on both, and either may match.
  const used = rows.find((row) => row.usedAt !== null);
  return used ? { next: used.next } : null;
}
