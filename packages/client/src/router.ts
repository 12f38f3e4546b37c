// Builds the router type that the published declarations carry. The server's `AppRouter` cannot
// be re-exported as it is: its declaration names the server's context (database handle, caches),
// its meta type and its error helpers, so the client's .d.ts would import `@clinic/api`, drizzle
// and friends. Instead the procedures are projected onto plain tRPC procedure types here, and the
// projection is held by a *value* whose type is inferred: TypeScript's declaration emit prints an
// inferred type expanded (object literals of the actual inputs and outputs), so the emitted
// declaration of `clientRecord` mentions nothing but `@trpc/server` and this package's own types.
// This module is imported with `import type` only, so none of it reaches the JavaScript bundle.
import type { AppRouter as ServerRouter } from "@clinic/api";
import type {
  TRPCMutationProcedure,
  TRPCQueryProcedure,
  TRPC_ERROR_CODE_KEY,
  TRPC_ERROR_CODE_NUMBER,
} from "@trpc/server";
import type { ClinicErrorCode, ClinicFieldError } from "./errors.ts";

/** `error.data` of a failed call, as the server's error formatter fills it. */
export interface ClinicErrorData {
  /** The tRPC code (fixes the HTTP status). */
  code: TRPC_ERROR_CODE_KEY;
  httpStatus: number;
  /** The procedure path, e.g. `appointments.book`. */
  path: string | undefined;
  /** The contract's error code: switch on this one (or use `errorCodeOf`). */
  domain_code: ClinicErrorCode;
  /** Field errors of a validation failure. */
  errors: ClinicFieldError[] | null;
  /** Extra members of the problem, e.g. `current_updated_at` (409 STALE_UPDATED_AT). */
  extra: Record<string, unknown> | null;
}

/** The error shape of every procedure (checked against the server's by a type test). */
export interface ClinicErrorShape {
  message: string;
  code: TRPC_ERROR_CODE_NUMBER;
  data: ClinicErrorData;
}

type ServerRecord = ServerRouter["_def"]["record"];

/**
 * One server procedure as a client-side procedure type: the same input and output, no server meta.
 * The router is two levels deep (domain → procedure); a deeper one would map to `never`, which the
 * type tests comparing client and server inputs/outputs would catch.
 */
type ClientProcedure<P> = P extends { _def: { type: "query"; $types: { input: infer I; output: infer O } } }
  ? TRPCQueryProcedure<{ input: I; output: O; meta: object; errorShape: ClinicErrorShape }>
  : P extends { _def: { type: "mutation"; $types: { input: infer I; output: infer O } } }
    ? TRPCMutationProcedure<{ input: I; output: O; meta: object; errorShape: ClinicErrorShape }>
    : never;

declare function projectRecord<R>(record: R): { [D in keyof R]: { [N in keyof R[D]]: ClientProcedure<R[D][N]> } };
declare const serverRecord: ServerRecord;

/** Type carrier of the projected procedures; never evaluated (see the comment at the top). */
export const clientRecord = projectRecord(serverRecord);
