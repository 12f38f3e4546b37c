// The booking agent: patient text → service → wanted time → proposals → booking, over the typed
// client. This file starts a run; conversation.ts holds the steps, prompts.ts the questions,
// render.ts the output and outcome.ts the result, with every side channel injected (run.ts) so
// tests can drive it.
import { createClient } from "@clinic/client";
import { parseAgentArgs, usage } from "./args.ts";
import type { EnvSettings } from "./config.ts";
import { bookFromText } from "./conversation.ts";
import { exitCodeOf, exitCodes, failureOf, type Outcome } from "./outcome.ts";
import { report } from "./render.ts";
import type { AgentIO, Run } from "./run.ts";
import { createSpinner } from "./spinner.ts";

export { exitCodes } from "./outcome.ts";
export type { AgentIO } from "./run.ts";

const noEnv: EnvSettings = { url: undefined, token: undefined, clinic: undefined };

/**
 * Runs the booking agent on command-line arguments and resolves with its exit code: 0 booked,
 * 1 error, 2 usage, 3 nothing booked. Never throws for API or network failures (they are
 * reported), and never touches the process: output, questions and the clock come from `io`.
 */
export async function main(argv: readonly string[], io: AgentIO): Promise<number> {
  const parsed = parseAgentArgs(argv, io.env ?? noEnv);
  if (parsed.kind === "help") {
    io.stdout(`${usage}\n`);
    return exitCodes.booked;
  }
  if (parsed.kind === "usage") {
    if (parsed.json)
      io.stdout(
        `${JSON.stringify({ status: "usage_error", message: parsed.message, exit_code: exitCodes.usage }, null, 2)}\n`,
      );
    else io.stderr(`error: ${parsed.message}\n(see --help)\n`);
    return exitCodes.usage;
  }
  const { options } = parsed;
  const run: Run = {
    api: createClient({ url: options.url, token: options.token, ...(io.fetch ? { fetch: io.fetch } : {}) }),
    options,
    io,
    spin: createSpinner(io.stderr, !options.json && io.stderrIsTTY === true),
    interactive: !options.json && !options.yes && io.ask !== undefined,
    say: options.json
      ? () => undefined
      : (line) => {
          io.stdout(`${line}\n`);
        },
  };
  let outcome: Outcome;
  try {
    outcome = await bookFromText(run);
  } catch (error) {
    outcome = failureOf(error, options.url);
  }
  report(run, outcome);
  return exitCodeOf[outcome.status];
}
