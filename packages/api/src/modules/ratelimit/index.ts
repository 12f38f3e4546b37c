// Rate limits that hold across server processes (docs/patients.md#rate-limit), and the keyed hash
// under which a client address is counted (docs/manage-links.md#guest-holds).
export * from "./address.ts";
export * from "./counters.ts";
