import { describe, expect, it } from "vitest";
import {
  type ProviderAction,
  type ProviderState,
  type ProviderStatus,
  allowedProviderActions,
  nextProviderState,
  providerActions,
  providerStatuses,
} from "../src/domain/providerStatus.ts";

/** The whole table written out by hand: every (status, action) pair and its outcome. */
const expected: Record<ProviderStatus, Record<ProviderAction, ProviderState | null>> = {
  pending: { approve: "approved", reject: "removed", suspend: null, reactivate: null, remove: "removed" },
  approved: { approve: null, reject: null, suspend: "suspended", reactivate: null, remove: "removed" },
  suspended: { approve: null, reject: null, suspend: null, reactivate: "approved", remove: "removed" },
};

describe("provider status machine", () => {
  for (const status of providerStatuses) {
    for (const action of providerActions) {
      const outcome = expected[status][action];
      it(`${status} --${action}--> ${outcome ?? "illegal"}`, () => {
        expect(nextProviderState(status, action)).toBe(outcome);
      });
    }
  }

  it("lists the allowed actions per status", () => {
    expect(allowedProviderActions("pending")).toEqual(["approve", "reject", "remove"]);
    expect(allowedProviderActions("approved")).toEqual(["suspend", "remove"]);
    expect(allowedProviderActions("suspended")).toEqual(["reactivate", "remove"]);
  });

  it("never leads back to pending (only re-flagging a member does)", () => {
    for (const status of providerStatuses) {
      for (const action of providerActions) expect(nextProviderState(status, action)).not.toBe("pending");
    }
  });
});
