// Patient self-service: the booking page's reads and a patient's own appointments (docs/patients.md).
export * from "./patients.ts";
