import { parseArgs } from "node:util";
import { mintToken } from "@clinic/api";
import { ConfigError, loadConfig } from "@clinic/config";
import { migrate, openDatabase } from "@clinic/db";
import { demoTokens, seedDemo } from "./demo.ts";
import { resolveJwtSecret } from "./secrets.ts";

const usage = `Usage:
  npm run token -- --email EMAIL [--sub UUID] [--admin] [--phone +E164] [--ttl 12h]
      Mint an HS256 access token signed with JWT_SECRET (or the development secret in .data/).
  npm run migrate
      Apply pending migrations to DATABASE_URL (or the embedded database).
  npm run demo
      Create the demo clinic (idempotent) and print tokens for its admin, staff and booking agent.`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const config = loadConfig();
  if (command === "token") {
    const { values } = parseArgs({
      args: rest,
      options: {
        email: { type: "string" },
        sub: { type: "string" },
        admin: { type: "boolean", default: false },
        phone: { type: "string" },
        ttl: { type: "string", default: "12h" },
      },
    });
    if (!values.email) {
      console.error(`--email is required\n\n${usage}`);
      return 2;
    }
    const secret = await resolveJwtSecret(config);
    if (!secret) {
      console.error("tokens can only be minted with an HS256 secret (JWT_SECRET)");
      return 2;
    }
    const token = await mintToken(
      secret,
      {
        sub: values.sub ?? crypto.randomUUID(),
        email: values.email,
        phoneE164: values.phone,
        roles: values.admin ? ["ADMIN"] : undefined,
      },
      { expiresIn: values.ttl, issuer: config.jwt.issuer, audience: config.jwt.audience },
    );
    console.log(token);
    return 0;
  }
  if (command === "migrate") {
    const database = await openDatabase({ url: config.databaseUrl, pgliteDir: config.pgliteDir });
    try {
      const applied = await migrate(database.db, {
        onApply: (tag) => {
          console.log(`applied ${tag}`);
        },
        onDistribute: (tables) => {
          console.log(`distributed on Citus: ${tables.join(", ")}`);
        },
      });
      console.log(applied.length > 0 ? `${applied.length} migration(s) applied` : "up to date");
    } finally {
      await database.close();
    }
    return 0;
  }
  if (command === "demo") {
    const database = await openDatabase({ url: config.databaseUrl, pgliteDir: config.pgliteDir });
    try {
      await migrate(database.db);
      const demo = await seedDemo(database.db);
      console.log(`${demo.created ? "created" : "already there"}: demo clinic ${demo.clinicId} (${demo.timezone})`);
      const secret = await resolveJwtSecret(config);
      if (secret) {
        const tokens = await demoTokens(secret, { issuer: config.jwt.issuer, audience: config.jwt.audience });
        console.log(
          `CLINIC_ADMIN: ${tokens.clinicAdmin}\nSTAFF:        ${tokens.staff}\nAGENT:        ${tokens.agent}\nPATIENT:      ${tokens.patient}`,
        );
      }
    } finally {
      await database.close();
    }
    return 0;
  }
  console.error(usage);
  return command === "help" || command === "--help" ? 0 : 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof ConfigError || error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
