import { performance } from "node:perf_hooks";
import { createTokenVerifier, mintToken } from "@clinic/api";
import { ConfigError, type Config, loadConfig } from "@clinic/config";
import { migrate, openDatabase } from "@clinic/db";
import { buildApp } from "./app.ts";
import { type DemoInfo, demoTokens, isEmpty, seedDemo } from "./demo.ts";
import { devAdmin, resolveJwtSecret } from "./secrets.ts";

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

async function start(config: Config): Promise<void> {
  const started = performance.now();
  const secret = await resolveJwtSecret(config);
  if (config.jwt.secret && config.jwt.secret.length < 32) {
    console.warn("warning: JWT_SECRET is shorter than 32 characters; HS256 secrets should be at least 256 bits");
  }
  const verifier = createTokenVerifier({ ...config.jwt, secret });
  const target = config.databaseUrl ? "PostgreSQL (DATABASE_URL)" : `embedded PGlite in ${config.pgliteDir}`;
  console.log(`Opening ${target} ...`);
  const database = await openDatabase({ url: config.databaseUrl, pgliteDir: config.pgliteDir });
  const applied = await migrate(database.db, { onApply: (tag) => { console.log(`  applied migration ${tag}`); } });
  console.log(applied.length > 0 ? `Migrations applied: ${applied.length}` : "Database schema is up to date");

  let demo: DemoInfo | undefined;
  if (config.demo === "on" || (config.demo === "auto" && !config.databaseUrl && (await isEmpty(database.db)))) {
    console.log("Creating the demo clinic (DEMO=off skips this) ...");
    demo = await seedDemo(database.db);
  }

  const app = await buildApp({ config, database, verifier });
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, "shutting down");
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    void app
      .close()
      .then(() => database.close())
      .then(() => process.exit(0), () => process.exit(1));
  };
  process.on("SIGTERM", () => { shutdown("SIGTERM"); });
  process.on("SIGINT", () => { shutdown("SIGINT"); });

  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const base = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
  console.log(`\nClinic Scheduling Service listening on ${base} (ready in ${Math.round(performance.now() - started)} ms)`);
  console.log(`  API reference: ${base}/docs   OpenAPI: ${base}/v1/openapi.json`);
  if (secret && config.nodeEnv !== "production") {
    const token = await mintToken(secret, { sub: devAdmin.sub, email: devAdmin.email, roles: ["ADMIN"] }, { expiresIn: "30d", issuer: config.jwt.issuer, audience: config.jwt.audience });
    console.log(`\nA global ADMIN token (valid 30 days; mint others with \`npm run token -- --email you@x.test\`):\n  ${token}`);
    console.log(`\nTry it:\n  curl -s --cookie "access_token=${token}" ${base}/v1/clinics\n`);
    if (demo) {
      const tokens = await demoTokens(secret, { issuer: config.jwt.issuer, audience: config.jwt.audience });
      const cid = demo.clinicId;
      console.log(`Demo clinic "Praxis Mitte (demo)" (${demo.timezone}): ${cid}`);
      console.log(`  CLINIC_ADMIN Clara Admin:   ${tokens.clinicAdmin}`);
      console.log(`  STAFF Sam Staff:            ${tokens.staff}`);
      console.log(`  BOOKING_AGENT role:         ${tokens.agent}`);
      console.log(`\nThree things to try:`);
      console.log(`  1. curl -s -H "Authorization: Bearer ${tokens.staff}" "${base}/v1/appointments?clinic_id=${cid}"`);
      console.log(`  2. npm run agent -- "a deep tissue massage with Anna next Tuesday afternoon" --url ${base} --clinic ${cid} --token ${tokens.agent} --name "Your Name" --yes`);
      console.log(`  3. open ${base}/docs\n`);
    }
  }
}

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  fail(error instanceof ConfigError ? error.message : String(error));
}
start(config).catch((error: unknown) => {
  fail(error instanceof Error ? `start failed: ${error.message}` : `start failed: ${String(error)}`);
});
