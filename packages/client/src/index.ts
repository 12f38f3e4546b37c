import {
  createTRPCClient,
  httpBatchLink,
  type HTTPBatchLinkOptions,
  type TRPCClient,
  type TRPCClientError,
} from "@trpc/client";
import type { TRPCBuiltRouter, inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import superjson from "superjson";
import type { ClinicErrorShape, clientRecord } from "./router.ts";

export {
  clinicErrorCodes,
  errorCodeOf,
  isClinicErrorCode,
  problemOf,
  type ClinicErrorCode,
  type ClinicFieldError,
  type ClinicProblem,
} from "./errors.ts";
export type { ClinicErrorData, ClinicErrorShape } from "./router.ts";

/**
 * The API's router type, for `createTRPCClient<AppRouter>` and tRPC's React/TanStack bindings.
 * Type-only: importing it puts no server code into a bundle, and its declaration is self-contained
 * (same procedures, inputs and outputs as the server's router, without the server's context).
 */
export type AppRouter = TRPCBuiltRouter<
  { ctx: object; meta: object; errorShape: ClinicErrorShape; transformer: true },
  typeof clientRecord
>;

/** Inputs of every procedure: `RouterInputs["appointments"]["book"]`. */
export type RouterInputs = inferRouterInputs<AppRouter>;
/** Outputs of every procedure (instants are `Date`s): `RouterOutputs["appointments"]["book"]`. */
export type RouterOutputs = inferRouterOutputs<AppRouter>;

/** The typed client: `client.availability.get.query({...})`, `client.appointments.book.mutate({...})`. */
export type ClinicClient = TRPCClient<AppRouter>;

/** An error thrown by a client call; `errorCodeOf(error)` gives its contract code. */
export type ClinicClientError = TRPCClientError<AppRouter>;

type HeaderMap = Record<string, string>;

/** Options of `createClient`. */
export interface ClientOptions {
  /** Base URL of the server, e.g. `https://api.clinic.example` (the client talks to `${url}/trpc`). */
  url: string;
  /**
   * Access token sent as `Authorization: Bearer <token>`, or a function returning the current one
   * (asked before every request, so a refreshed token is picked up). Omit it in a browser that
   * carries the `access_token` cookie.
   */
  token?: string | (() => string | null | undefined | Promise<string | null | undefined>) | undefined;
  /** The `fetch` to use instead of the global one (tests, older runtimes, `credentials: "include"`). */
  fetch?: HTTPBatchLinkOptions<AppRouter["_def"]["_config"]["$types"]>["fetch"];
  /** Extra headers for every request, or a function returning them. */
  headers?: HeaderMap | (() => HeaderMap | Promise<HeaderMap>) | undefined;
}

// Batched GET queries carry their inputs in the URL; past this length tRPC splits the batch, which
// keeps requests under the URL limits of proxies and of Node's HTTP parser.
const maxURLLength = 4000;

/**
 * Creates the typed API client: a tRPC proxy client over `httpBatchLink` (calls made in the same
 * tick share one HTTP request) with the superjson transformer the server uses, so `Date`s travel
 * as `Date`s.
 *
 * ```ts
 * const api = createClient({ url: "http://127.0.0.1:3000", token });
 * const { slots } = await api.availability.get.query({ clinic_id, service_id });
 * ```
 */
export function createClient(options: ClientOptions): ClinicClient {
  const base = options.url.replace(/\/+$/, "");
  const { token, headers } = options;
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: `${base}/trpc`,
        transformer: superjson,
        maxURLLength,
        ...(options.fetch ? { fetch: options.fetch } : {}),
        async headers() {
          const extra = typeof headers === "function" ? await headers() : (headers ?? {});
          const bearer = typeof token === "function" ? await token() : token;
          return bearer ? { ...extra, authorization: `Bearer ${bearer}` } : extra;
        },
      }),
    ],
  });
}
