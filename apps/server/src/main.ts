import cluster from "node:cluster";
import { performance } from "node:perf_hooks";
import type { FastifyInstance } from "fastify";
import { createTokenVerifier, mintToken, smtpTransport } from "@clinic/api";
import { ConfigError, type Config, loadConfig } from "@clinic/config";
import { type DbHandle, migrate, openDatabase } from "@clinic/db";
import { type AppOptions, buildApp } from "./app.ts";
import { type DemoInfo, demoTokens, devUsers, findDemo, findDemoClinic, isEmpty, seedDemo } from "./demo.ts";
import type { WebOptions } from "./web.ts";
import { startMailCatcher } from "./mailCatcher.ts";
import { devAdmin, resolveJwtSecret } from "./secrets.ts";

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

interface Prepared {
  secret: string | undefined;
  demo: DemoInfo | undefined;
}

/** Once per start, before any process serves: migrations, the job queue's schema, the demo clinic. */
async function prepare(config: Config, database: DbHandle): Promise<DemoInfo | undefined> {
  const applied = await migrate(database.db, {
    onApply: (tag) => {
      console.log(`  applied migration ${tag}`);
    },
    onDistribute: (tables) => {
      console.log(`  distributed ${tables.length} tables on Citus`);
    },
  });
  console.log(applied.length > 0 ? `Migrations applied: ${applied.length}` : "Database schema is up to date");
  if (config.demo === "on" || (config.demo === "auto" && !config.databaseUrl && (await isEmpty(database.db)))) {
    console.log("Creating the demo clinic (DEMO=off skips this) ...");
    return seedDemo(database.db);
  }
  // Every later development start shows the way in again (pages, tokens), while the demo exists.
  return config.nodeEnv === "production" ? undefined : findDemo(database.db);
}

/** One serving process: the app and its job workers on its own pool; SIGTERM closes it gracefully. */
async function serve(config: Config, database: DbHandle, secret: string | undefined): Promise<FastifyInstance> {
  const verifier = createTokenVerifier({ ...config.jwt, secret });
  const app = await buildApp({
    config,
    database,
    verifier,
    workers: true,
    web: await webOptions(config, database, secret),
    mail: await mailOptions(config),
  });
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
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.on("SIGTERM", () => {
    shutdown("SIGTERM");
  });
  process.on("SIGINT", () => {
    shutdown("SIGINT");
  });
  await app.listen({ port: config.port, host: config.host });
  return app;
}

/**
 * How patient e-mails leave (docs/messages.md): through SMTP_URL; without it, a production start
 * records them `skipped`, and any other start sends them to a local catcher shown at /dev/mail.
 */
async function mailOptions(config: Config): Promise<NonNullable<AppOptions["mail"]>> {
  const publicUrl =
    config.publicUrl ?? `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${String(config.port)}`;
  if (config.mail.smtpUrl) return { transport: smtpTransport(config.mail.smtpUrl), from: config.mail.from, publicUrl };
  if (config.nodeEnv === "production") {
    console.warn("SMTP_URL is not set: patient e-mails are recorded as skipped, not sent");
    return { transport: null, from: config.mail.from, publicUrl };
  }
  const catcher = await startMailCatcher();
  return { transport: smtpTransport(catcher.url), from: config.mail.from, publicUrl, catcher };
}

/**
 * The reference pages, and the development sign-in page only while the service signs its own
 * tokens with the development secret (no JWT_SECRET, public key or JWKS configured, not production).
 */
async function webOptions(config: Config, database: DbHandle, secret: string | undefined): Promise<WebOptions> {
  const developing = secret !== undefined && config.jwt.secret === undefined && config.nodeEnv !== "production";
  if (!developing) return {};
  const users = devUsers(await findDemoClinic(database.db));
  return { devSignIn: { secret, issuer: config.jwt.issuer, audience: config.jwt.audience, users } };
}

/** A cluster worker (WORKERS > 1): serves on the port the primary shares. */
async function startWorker(config: Config): Promise<void> {
  const secret = await resolveJwtSecret(config);
  const database = await openDatabase({
    url: config.databaseUrl,
    pgliteDir: config.pgliteDir,
    poolMax: config.databasePoolMax,
  });
  await serve(config, database, secret);
  // The primary is gone (killed without passing SIGTERM on): no connection can reach this process
  // any more, so it stops too instead of living on as an orphan.
  process.on("disconnect", () => process.kill(process.pid, "SIGTERM"));
}

/**
 * The start command. One process serves itself (WORKERS=1, always on the embedded database);
 * with more, this process prepares the database, forks the workers, replaces one that dies, and
 * on SIGTERM/SIGINT stops them all gracefully before it exits (docs/operations.md#workers).
 */
async function start(config: Config): Promise<void> {
  const started = performance.now();
  const secret = await resolveJwtSecret(config);
  if (config.jwt.secret && config.jwt.secret.length < 32) {
    console.warn("warning: JWT_SECRET is shorter than 32 characters; HS256 secrets should be at least 256 bits");
  }
  const target = config.databaseUrl ? "PostgreSQL (DATABASE_URL)" : `embedded PGlite in ${config.pgliteDir}`;
  console.log(`Opening ${target} ...`);
  const database = await openDatabase({
    url: config.databaseUrl,
    pgliteDir: config.pgliteDir,
    poolMax: config.databasePoolMax,
  });
  const demo = await prepare(config, database);

  let port = config.port;
  if (config.workers === 1) {
    const app = await serve(config, database, secret);
    const address = app.server.address();
    port = typeof address === "object" && address ? address.port : config.port;
  } else {
    await database.close();
    port = await forkWorkers(config.workers, config.port);
  }
  await printBanner(config, { secret, demo }, port, started);
}

/** Forks `count` workers and answers the port they listen on, once all of them do. */
async function forkWorkers(count: number, configuredPort: number): Promise<number> {
  let stopping = false;
  const listening = new Promise<number>((resolve) => {
    let ready = 0;
    cluster.on("listening", (_worker, address) => {
      // Only the HTTP server counts: a worker's development mail catcher listens too.
      if (configuredPort !== 0 && address.port !== configuredPort) return;
      ready += 1;
      if (ready === count) resolve(address.port);
    });
  });
  cluster.on("exit", (worker, code, signal: NodeJS.Signals | null) => {
    if (stopping) return;
    console.error(`worker ${String(worker.process.pid)} exited (${signal ?? String(code)}); starting another`);
    cluster.fork();
  });
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping ${String(count)} workers ...`);
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGTERM");
    const wait = () => {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      else setTimeout(wait, 50);
    };
    wait();
  };
  process.on("SIGTERM", () => {
    stop("SIGTERM");
  });
  process.on("SIGINT", () => {
    stop("SIGINT");
  });
  for (let i = 0; i < count; i++) cluster.fork();
  const port = await listening;
  console.log(`${String(count)} worker processes serving`);
  return port;
}

async function printBanner(config: Config, prepared: Prepared, port: number, started: number): Promise<void> {
  const { secret, demo } = prepared;
  const base = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
  // performance.now() counts from the process's start: module loading included.
  console.log(
    `\nClinic Scheduling Service listening on ${base} (ready ${Math.round(performance.now())} ms after the process started; ${Math.round(performance.now() - started)} ms of it preparing the database and the app)`,
  );
  console.log(`  API reference: ${base}/docs   OpenAPI: ${base}/v1/openapi.json`);
  if (demo) console.log(`  Booking page: ${base}/book/${demo.clinicId}   Front desk: ${base}/desk/${demo.clinicId}`);
  if (secret && config.jwt.secret === undefined && config.nodeEnv !== "production")
    console.log(`  Sign in to the pages as a demo user (development): ${base}/dev/sign-in`);
  if (!config.mail.smtpUrl && config.nodeEnv !== "production")
    console.log(`  E-mails to patients (development, no SMTP_URL): ${base}/dev/mail`);
  // Sign-in (§22, docs/sign-in.md): which ways in the pages offer.
  const ways = [
    ...(config.signIn.oidc ? [`OpenID Connect at ${config.signIn.oidc.issuer} (${base}/auth/login)`] : []),
    ...(config.signIn.emailCodes ? ["e-mailed codes"] : []),
  ];
  console.log(`  Sign-in: ${ways.length > 0 ? ways.join(", ") : "none configured (OIDC_ISSUER, EMAIL_SIGN_IN)"}`);
  if (secret && config.nodeEnv !== "production") {
    const token = await mintToken(
      secret,
      { sub: devAdmin.sub, email: devAdmin.email, roles: ["ADMIN"] },
      { expiresIn: "30d", issuer: config.jwt.issuer, audience: config.jwt.audience },
    );
    console.log(
      `\nA global ADMIN token (valid 30 days; mint others with \`npm run token -- --email you@x.test\`):\n  ${token}`,
    );
    console.log(`\nTry it:\n  curl -s --cookie "access_token=${token}" ${base}/v1/clinics\n`);
    if (demo) {
      const tokens = await demoTokens(secret, { issuer: config.jwt.issuer, audience: config.jwt.audience });
      const cid = demo.clinicId;
      console.log(`Demo clinic "Praxis Mitte (demo)" (${demo.timezone}): ${cid}`);
      console.log(`  CLINIC_ADMIN Clara Admin:   ${tokens.clinicAdmin}`);
      console.log(`  STAFF Sam Staff:            ${tokens.staff}`);
      console.log(`  BOOKING_AGENT role:         ${tokens.agent}`);
      console.log(`  Patient Paula (no member):  ${tokens.patient}`);
      console.log(`\nThings to try:`);
      console.log(`  1. curl -s -H "Authorization: Bearer ${tokens.staff}" "${base}/v1/appointments?clinic_id=${cid}"`);
      console.log(
        `  2. npm run agent -- "a deep tissue massage with Anna next Tuesday afternoon" --url ${base} --clinic ${cid} --token ${tokens.agent} --name "Your Name" --yes`,
      );
      console.log(`  3. open ${base}/docs`);
      console.log(
        `  4. curl -s -H "Authorization: Bearer ${tokens.patient}" "${base}/v1/booking/clinics/${cid}/services"\n`,
      );
    }
  }
}

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  fail(error instanceof ConfigError ? error.message : String(error));
}
(cluster.isPrimary ? start(config) : startWorker(config)).catch((error: unknown) => {
  fail(error instanceof Error ? `start failed: ${error.message}` : `start failed: ${String(error)}`);
});
