import { expect } from "vitest";

/** What a rejected procedure call carries. */
export interface Rejection {
  domainCode: string;
  message: string;
  extra?: Record<string, unknown>;
}

function isRejection(error: unknown): error is Rejection {
  return typeof error === "object" && error !== null && "domainCode" in error && typeof error.domainCode === "string";
}

/** Whatever the promise rejected with (fails the test when it resolves). */
export async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail");
}

/** A procedure's rejection, for assertions on code, detail and extra members. */
export async function rejectionOf(promise: Promise<unknown>): Promise<Rejection> {
  const error = await failureOf(promise);
  if (isRejection(error)) return error;
  throw error;
}

/** The API error code of whatever the promise rejected with (fails the test when it resolves). */
export async function codeOf(promise: Promise<unknown>): Promise<string> {
  return (await rejectionOf(promise)).domainCode;
}

/** The API error codes of the rejected calls of a parallel run (for counting winners and losers). */
export function refusalCodesOf(results: readonly PromiseSettledResult<unknown>[]): string[] {
  return results.flatMap((r) => (r.status === "rejected" && isRejection(r.reason) ? [r.reason.domainCode] : []));
}

/** Every distinct refusal message of a parallel run, for an assertion's message. */
export function refusalDetailsOf(results: readonly PromiseSettledResult<unknown>[]): string {
  return [
    ...new Set(
      results.flatMap((r) => (r.status === "rejected" && r.reason instanceof Error ? [r.reason.message] : [])),
    ),
  ].join(" | ");
}

/**
 * An availability version read after a change that must bump it: above `previous` (a bump goes to
 * the greater of the next number and the database clock's milliseconds, so by how much is not
 * known: drizzle/0017_versions_never_repeat.sql). Answers the version, for the next comparison.
 */
export async function versionMovedPast(now: Promise<number>, previous: number): Promise<number> {
  const version = await now;
  expect(version).toBeGreaterThan(previous);
  return version;
}
