// Type tests of the published declarations (dist/index.d.ts, what a front-end sees), checked by
// `tsc --noEmit`: the consumer's types must be exactly the server's, with instants as Date.
import { describe, expect, expectTypeOf, it } from "vitest";
import type { AppRouter as ServerRouter, DomainCode } from "@clinic/api";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import {
  clinicErrorCodes,
  createClient,
  errorCodeOf,
  problemOf,
  type ClinicClient,
  type ClinicErrorCode,
  type ClinicErrorShape,
  type RouterInputs,
  type RouterOutputs,
} from "../dist/index.js";

describe("published types", () => {
  it("match the server router's inputs and outputs exactly", () => {
    expectTypeOf<RouterInputs>().toEqualTypeOf<inferRouterInputs<ServerRouter>>();
    expectTypeOf<RouterOutputs>().toEqualTypeOf<inferRouterOutputs<ServerRouter>>();
  });

  it("give availability.get its inputs and outputs", () => {
    expectTypeOf<RouterInputs["availability"]["get"]>().toEqualTypeOf<{
      clinic_id: string;
      service_id: string;
      from?: string | undefined;
      to?: string | undefined;
      provider_id?: string | undefined;
    }>();
    type Availability = RouterOutputs["availability"]["get"];
    expectTypeOf<Availability["slots"][number]>().toEqualTypeOf<{
      start: Date;
      end: Date;
      start_local: string;
      provider_ids: string[];
      remaining?: number | undefined;
    }>();
    expectTypeOf<Availability["timezone"]>().toEqualTypeOf<string>();
  });

  it("give appointments.book Date instants and a typed patient", () => {
    expectTypeOf<RouterOutputs["appointments"]["book"]["start"]>().toEqualTypeOf<Date>();
    expectTypeOf<RouterOutputs["appointments"]["book"]["status"]>().toEqualTypeOf<
      "held" | "pending" | "booked" | "arrived" | "completed" | "no_show" | "canceled"
    >();
    expectTypeOf<RouterOutputs["appointments"]["book"]["canceled_at"]>().toEqualTypeOf<Date | null>();
    expectTypeOf<RouterInputs["appointments"]["book"]["start"]>().toEqualTypeOf<string | Date>();
    expectTypeOf<RouterInputs["appointments"]["book"]["patient"]>().toEqualTypeOf<{
      name: string;
      email?: string | undefined;
      phone_e164?: string | undefined;
    }>();
  });

  it("type the proxy client's calls and refuse wrong inputs", () => {
    const api: ClinicClient = createClient({ url: "http://127.0.0.1:1" });
    expectTypeOf(api.appointments.book.mutate).returns.resolves.toEqualTypeOf<RouterOutputs["appointments"]["book"]>();
    expectTypeOf(api.services.search.query).parameter(0).toEqualTypeOf<RouterInputs["services"]["search"]>();
    // @ts-expect-error the patient is required
    expectTypeOf(api.appointments.book.mutate).toBeCallableWith({ clinic_id: "c", service_id: "s", start: new Date() });
    expectTypeOf(api.appointments.reschedule.mutate)
      .parameter(0)
      .toEqualTypeOf<RouterInputs["appointments"]["reschedule"]>();
    // The patient procedures: the booking page (a guest gives an e-mail; §15) and "my appointments".
    expectTypeOf(api.onlineBooking.book.mutate)
      .parameter(0)
      .toHaveProperty("patient")
      .toEqualTypeOf<{ name: string; email?: string | undefined; phone_e164?: string | undefined }>();
    expectTypeOf(api.manage.confirm.mutate).parameter(0).toEqualTypeOf<{ token: string }>();
    expectTypeOf(api.me.appointments.query).returns.resolves.toEqualTypeOf<RouterOutputs["me"]["appointments"]>();
    expectTypeOf<RouterOutputs["me"]["appointment"]["patient_user_id"]>().toEqualTypeOf<string | null>();
    // @ts-expect-error there is no such procedure
    expectTypeOf(api.appointments.move).toBeObject();
  });

  it("list exactly the server's error codes and error shape", () => {
    expectTypeOf<ClinicErrorCode>().toEqualTypeOf<DomainCode>();
    expectTypeOf<ClinicErrorShape>().toEqualTypeOf<ServerRouter["_def"]["_config"]["$types"]["errorShape"]>();
    expectTypeOf(errorCodeOf).returns.toEqualTypeOf<ClinicErrorCode | undefined>();
    expect(new Set(clinicErrorCodes).size).toBe(clinicErrorCodes.length);
  });
});

describe("errorCodeOf / problemOf", () => {
  it("reads domain_code, detail, field errors and extra from tRPC error data", () => {
    const error = Object.assign(new Error("start: must be an ISO 8601 instant"), {
      data: {
        code: "BAD_REQUEST",
        httpStatus: 400,
        path: "appointments.book",
        domain_code: "VALIDATION_FAILED",
        errors: [{ path: "start", message: "bad" }],
        extra: null,
      },
    });
    expect(errorCodeOf(error)).toBe("VALIDATION_FAILED");
    expect(problemOf(error)).toEqual({
      code: "VALIDATION_FAILED",
      detail: "start: must be an ISO 8601 instant",
      status: 400,
      errors: [{ path: "start", message: "bad" }],
      extra: {},
    });
  });

  it("falls back to a problem+json body answered outside tRPC (e.g. the rate limiter)", () => {
    const error = Object.assign(new Error("Unable to transform response from server"), {
      meta: {
        responseJSON: {
          type: "about:blank",
          title: "Too Many Requests",
          status: 429,
          code: "RATE_LIMITED",
          detail: "rate limit exceeded; retry after 1 minute",
        },
      },
    });
    expect(errorCodeOf(error)).toBe("RATE_LIMITED");
    expect(problemOf(error)?.detail).toBe("rate limit exceeded; retry after 1 minute");
  });

  it("answers undefined for anything that is not an API error", () => {
    expect(errorCodeOf(new TypeError("fetch failed"))).toBeUndefined();
    expect(errorCodeOf({ data: { domain_code: "SOMETHING_NEW" } })).toBeUndefined();
    expect(errorCodeOf("SLOT_UNAVAILABLE")).toBeUndefined();
    expect(errorCodeOf(null)).toBeUndefined();
  });
});
