#!/usr/bin/env tsx
// The process side of the agent: real streams, a readline prompt on a terminal, the environment
// (through config.ts) and the exit code. Everything else is in main.ts.
import { stderr, stdin, stdout } from "node:process";
import { createInterface, type Interface } from "node:readline/promises";
import { readEnvSettings } from "./config.ts";
import type * as AgentModule from "./main.ts";

// main.ts imports @clinic/client from its build (packages/client/dist); load it lazily so a
// missing build gets a sentence instead of a stack trace.
let agent: typeof AgentModule;
try {
  agent = await import("./main.ts");
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  if (!message.includes("@clinic/client") && !message.includes("client/dist")) throw error;
  stderr.write("error: the client package is not built; run `pnpm --filter @clinic/client build` first\n");
  process.exit(1);
}

// Questions only make sense when a person is at the keyboard. The prompt is opened on the first
// question, so --yes and --json runs never take over the terminal.
let prompt: Interface | undefined;
function ask(question: string): Promise<string> {
  if (!prompt) {
    prompt = createInterface({ input: stdin, output: stdout });
    prompt.on("SIGINT", () => {
      stdout.write("\n");
      process.exit(130);
    });
  }
  return prompt.question(question);
}

try {
  process.exitCode = await agent.main(process.argv.slice(2), {
    stdout: (text) => stdout.write(text),
    stderr: (text) => stderr.write(text),
    ask: stdin.isTTY ? ask : undefined,
    stderrIsTTY: stderr.isTTY,
    env: readEnvSettings(),
  });
} finally {
  prompt?.close();
}
