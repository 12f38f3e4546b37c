import { describe, expect, it } from "vitest";
import { defaultUrl, parseAgentArgs } from "../src/args.ts";
import { readEnvSettings } from "../src/config.ts";

const noEnv = { url: undefined, token: undefined, clinic: undefined };
const clinic = "3A63C75E-B3F9-4EA3-A16B-6627AB036C3B";

describe("parseAgentArgs", () => {
  it("reads the text, the flags and the defaults", () => {
    expect(
      parseAgentArgs(["a massage", "tomorrow", "--token", "t", "--clinic", clinic, "--name", " Pat Doe ", "-y"], noEnv),
    ).toEqual({
      kind: "run",
      options: {
        text: "a massage tomorrow",
        url: defaultUrl,
        token: "t",
        clinicId: clinic.toLowerCase(),
        name: "Pat Doe",
        email: undefined,
        phone: undefined,
        yes: true,
        json: false,
        allOrNothing: false,
        answers: [],
      },
    });
  });

  it("reads --answer key=value in order, repeatable, and refuses one without a key", () => {
    const parsed = parseAgentArgs(
      ["massage", "--token", "t", "--answer", "reason=Back pain = bad", "--answer", "areas=Neck", "--answer", "areas="],
      noEnv,
    );
    expect(parsed.kind === "run" && parsed.options.answers).toEqual([
      { key: "reason", text: "Back pain = bad" },
      { key: "areas", text: "Neck" },
      { key: "areas", text: "" },
    ]);
    expect(parseAgentArgs(["massage", "--token", "t", "--answer", "Reason=x"], noEnv)).toMatchObject({
      kind: "usage",
      message: '--answer must be key=value with a question\'s key, got "Reason=x"',
    });
    expect(parseAgentArgs(["massage", "--token", "t", "--answer", "reason"], noEnv)).toMatchObject({ kind: "usage" });
  });

  it("prefers flags to the environment settings, and falls back to them", () => {
    const env = { url: "http://clinic.example:8080", token: "env-token", clinic: clinic.toLowerCase() };
    const fromEnv = parseAgentArgs(["massage"], env);
    expect(fromEnv.kind === "run" && [fromEnv.options.url, fromEnv.options.token, fromEnv.options.clinicId]).toEqual([
      env.url,
      "env-token",
      env.clinic,
    ]);
    const fromFlags = parseAgentArgs(["massage", "--url", "https://api.example", "--token", "flag-token"], env);
    expect(fromFlags.kind === "run" && [fromFlags.options.url, fromFlags.options.token]).toEqual([
      "https://api.example",
      "flag-token",
    ]);
  });

  it("marks usage errors, in JSON mode when --json was given", () => {
    expect(parseAgentArgs(["massage", "--json"], noEnv)).toMatchObject({ kind: "usage", json: true });
    expect(parseAgentArgs(["massage", "--token", "t", "--url", "ftp://x"], noEnv)).toMatchObject({
      kind: "usage",
      message: '--url must be an http(s) URL, got "ftp://x"',
    });
    expect(parseAgentArgs(["massage", "--token", "t", "--email", "nope"], noEnv)).toMatchObject({ kind: "usage" });
    expect(parseAgentArgs(["massage", "--token", "t", "--name", "  "], noEnv)).toMatchObject({
      kind: "usage",
      message: "--name must not be empty",
    });
    expect(parseAgentArgs(["-h"], noEnv)).toEqual({ kind: "help" });
  });

  it("reads --all-or-nothing for a series", () => {
    expect(
      parseAgentArgs(["massage every tuesday at 9 for 3 weeks", "--token", "t", "--all-or-nothing"], noEnv),
    ).toMatchObject({
      kind: "run",
      options: { allOrNothing: true, yes: false },
    });
  });

  it("allows --json without --name: that run proposes and books nothing", () => {
    expect(parseAgentArgs(["massage", "--token", "t", "--json"], noEnv)).toMatchObject({
      kind: "run",
      options: { json: true, yes: false, name: undefined },
    });
  });
});

describe("readEnvSettings", () => {
  it("reads CLINIC_URL, CLINIC_TOKEN and CLINIC_ID, treating blanks as absent", () => {
    expect(readEnvSettings({ CLINIC_URL: "http://x", CLINIC_TOKEN: " ", CLINIC_ID: undefined })).toEqual({
      url: "http://x",
      token: undefined,
      clinic: undefined,
    });
  });
});
