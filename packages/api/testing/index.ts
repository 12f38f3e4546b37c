// The one family of test fixtures, shared by the api, server, client and agent tests: each test
// builds its own clinic, people and schedule with these, directly in the database (the API under
// test is then exercised through tRPC callers, HTTP, the client or the agent).
export * from "./assertions.ts";
export * from "./clinics.ts";
export * from "./database.ts";
export * from "./people.ts";
export * from "./questions.ts";
export * from "./radicale.ts";
export * from "./resources.ts";
export * from "./schedule.ts";
export * from "./webhooks.ts";
