import { and, eq, gt, isNull, lt } from "drizzle-orm";
import { type Db, loginStates } from "@clinic/db";
import { hashOf } from "./secrets.ts";

/** A started sign-in lives 10 minutes. */
export const loginStateTtlS = 600;

/** S1: records a started sign-in under the hashes of its `state` and of the browser binding. */
export async function saveLoginState(
  db: Db,
  params: { state: string; browser: string; nonce: string; codeVerifier: string; next: string; now: Date },
): Promise<void> {
  await db.insert(loginStates).values({
    stateHash: hashOf(params.state),
    browserHash: hashOf(params.browser),
    nonce: params.nonce,
    codeVerifier: params.codeVerifier,
    next: params.next,
    createdAt: params.now,
    expiresAt: new Date(params.now.getTime() + loginStateTtlS * 1000),
  });
  if (Math.random() < 0.02)
    await db.delete(loginStates).where(lt(loginStates.expiresAt, new Date(params.now.getTime() - 86_400_000)));
}

/**
 * S2: uses up a started sign-in, once. One atomic UPDATE … WHERE used_at IS NULL RETURNING: of two
 * callbacks with one `state` at once only one gets the row. A state that is unknown, used,
 * expired, or started by another browser (its binding cookie differs) gives null, and a foreign
 * browser cannot spend someone else's state.
 */
export async function consumeLoginState(
  db: Db,
  params: { state: string; browser: string; now: Date },
): Promise<{ nonce: string; codeVerifier: string; next: string } | null> {
  if (params.state.length === 0 || params.state.length > 200 || params.browser.length === 0) return null;
  const [row] = await db
    .update(loginStates)
    .set({ usedAt: params.now })
    .where(
      and(
        eq(loginStates.stateHash, hashOf(params.state)),
        eq(loginStates.browserHash, hashOf(params.browser)),
        isNull(loginStates.usedAt),
        gt(loginStates.expiresAt, params.now),
      ),
    )
    .returning({ nonce: loginStates.nonce, codeVerifier: loginStates.codeVerifier, next: loginStates.next });
  return row ?? null;
}
