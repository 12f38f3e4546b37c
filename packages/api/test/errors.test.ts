import { TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { describe, expect, it } from "vitest";
import { DomainError, returnedRow, toDomainError } from "../src/errors.ts";

describe("toDomainError", () => {
  it("maps tRPC's own errors by their HTTP meaning and keeps their status", () => {
    const cases = [
      ["METHOD_NOT_SUPPORTED", 405, "VALIDATION_FAILED"],
      ["PAYLOAD_TOO_LARGE", 413, "VALIDATION_FAILED"],
      ["UNSUPPORTED_MEDIA_TYPE", 415, "VALIDATION_FAILED"],
      ["TIMEOUT", 408, "VALIDATION_FAILED"],
      ["PARSE_ERROR", 400, "VALIDATION_FAILED"],
      ["UNAUTHORIZED", 401, "UNAUTHENTICATED"],
      ["NOT_FOUND", 404, "NOT_FOUND"],
      ["CONFLICT", 409, "CONFLICT"],
      ["TOO_MANY_REQUESTS", 429, "RATE_LIMITED"],
      ["SERVICE_UNAVAILABLE", 503, "UNAVAILABLE"],
      ["GATEWAY_TIMEOUT", 504, "UNAVAILABLE"],
      ["NOT_IMPLEMENTED", 501, "INTERNAL"],
    ] as const;
    for (const [code, status, domainCode] of cases) {
      const mapped = toDomainError(new TRPCError({ code, message: "m" }));
      expect([code, mapped.domainCode, getHTTPStatusCodeFromError(mapped)]).toEqual([code, domainCode, status]);
    }
  });

  it("passes domain errors through and hides anything unexpected as INTERNAL", () => {
    const domain = new DomainError("SLOT_UNAVAILABLE", "taken");
    expect(toDomainError(domain)).toBe(domain);
    expect(toDomainError(new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause: domain }))).toBe(domain);
    const hidden = toDomainError(new Error("boom"));
    expect([hidden.domainCode, getHTTPStatusCodeFromError(hidden)]).toEqual(["INTERNAL", 500]);
  });

  it("maps constraint violations by name, then by SQLSTATE", () => {
    const pg = (code: string, constraint?: string) =>
      Object.assign(new Error("pg"), { code, constraint_name: constraint });
    expect(toDomainError(pg("23P01", "work_hours_no_overlap")).domainCode).toBe("WORK_HOUR_OVERLAP");
    expect(toDomainError(pg("23P01", "appointments_no_double_booking")).domainCode).toBe("SLOT_UNAVAILABLE");
    expect(toDomainError(pg("23503", "some_other_fk")).domainCode).toBe("NOT_FOUND");
    expect(toDomainError(pg("22007")).domainCode).toBe("VALIDATION_FAILED");
    expect(toDomainError(pg("40P01")).domainCode).toBe("CONFLICT");
    expect(toDomainError(pg("08006")).domainCode).toBe("UNAVAILABLE");
  });

  it("treats a write that returned no row as a bug (500), not as a 404", () => {
    expect(returnedRow([1], "x")).toBe(1);
    const error = (() => {
      try {
        returnedRow([], "service");
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).domainCode).toBe("INTERNAL");
  });
});
