// What one run of the agent works with: the outside world (injected) and the API client.
import type { ClientOptions, ClinicClient, RouterOutputs } from "@clinic/client";
import type { AgentOptions } from "./args.ts";
import type { EnvSettings } from "./config.ts";
import type { Spin } from "./spinner.ts";

export type Clinic = RouterOutputs["clinics"]["get"];
export type Match = RouterOutputs["services"]["search"]["matches"][number];
export type Service = Match["service"];
export type Slot = RouterOutputs["availability"]["get"]["slots"][number];
export type Appointment = RouterOutputs["appointments"]["book"];
type SeriesAnswer = RouterOutputs["series"]["book"];
/** A booked series (R1): its occurrences are appointments; `skipped` says which dates were not booked and why. */
export type Series = Exclude<SeriesAnswer, { dry_run: true }>;
/** A dry run of R1: every date with whether it can be booked. */
export type SeriesPreview = Extract<SeriesAnswer, { dry_run: true }>;

/** Everything the agent touches outside itself; the CLI passes the process's, tests their own. */
export interface AgentIO {
  /** Results (and the conversation, unless --json). */
  stdout: (text: string) => void;
  /** Errors, notes and the spinner. */
  stderr: (text: string) => void;
  /** Asks the user and resolves with the answer; absent when nobody can answer (stdin is no terminal). */
  ask?: ((question: string) => Promise<string>) | undefined;
  /** Animate a spinner on stderr (stderr is a terminal). */
  stderrIsTTY?: boolean | undefined;
  /** Environment fallbacks for --url, --token and --clinic (see config.ts). */
  env?: EnvSettings | undefined;
  /** The clock (today's date, "next Tuesday"). */
  now?: (() => Date) | undefined;
  /** The fetch the client uses. */
  fetch?: ClientOptions["fetch"];
}

/** What a run needs at every step. */
export interface Run {
  api: ClinicClient;
  options: AgentOptions;
  io: AgentIO;
  spin: Spin;
  /** A question can be put to the user. */
  interactive: boolean;
  /** Conversation output: stdout in text mode, nothing with --json. */
  say: (line: string) => void;
}
