import type {} from "vitest";
import { readFile, writeFile } from "node:fs/promises";
import { sql } from "drizzle-orm";
import type { DbHandle } from "./client.ts";
import { openDatabase, rowsOf } from "./client.ts";
import { migrate } from "./migrate.ts";

declare module "vitest" {
  /** What the test run's global setup hands every test file (see vitest.global-setup.ts). */
  export interface ProvidedContext {
    databaseUrl: string | undefined;
    pgliteTemplate: string | undefined;
  }
}

/**
 * Migrates a fresh in-memory PGlite once and writes its data directory to `path`, so that every
 * test file can start from a migrated database in milliseconds instead of re-running migrations.
 */
export async function writePgliteTemplate(path: string, prepare?: (handle: DbHandle) => Promise<void>): Promise<void> {
  const handle = await openDatabase({});
  try {
    await migrate(handle.db);
    await prepare?.(handle);
    const dump = await dumpPglite(handle);
    await writeFile(path, Buffer.from(await dump.arrayBuffer()));
  } finally {
    await handle.close();
  }
}

async function dumpPglite(handle: DbHandle): Promise<Blob> {
  const client: unknown = (handle.db as unknown as { $client: unknown }).$client;
  if (
    typeof client === "object" &&
    client !== null &&
    "dumpDataDir" in client &&
    typeof client.dumpDataDir === "function"
  ) {
    const dumped: unknown = await (client.dumpDataDir as (c: string) => Promise<unknown>).call(client, "none");
    if (dumped instanceof Blob) return dumped;
  }
  throw new Error("the database handle is not an embedded PGlite database");
}

/**
 * How long the tests' own connections may take to be ready: the product's 1.5 s (fail fast in an
 * outage) is for the service; under CI's full load a Citus coordinator took longer than that to
 * start a backend for a test's pool (docs/testing.md#connect-timeouts).
 */
export const TEST_CONNECT_TIMEOUT_S = 30;

/**
 * The database a test file works on: the PostgreSQL server when `url` is given (migrated once
 * by the test run's global setup), otherwise an in-memory PGlite loaded from the template.
 *
 * On PGlite the files that run in one worker process share one database, as every file of a run
 * shares the server's on PostgreSQL (docs/testing.md#one-database-per-worker): loading the
 * template took 2–4 s a file. `own: true` gives a file a private copy instead (a file whose job
 * workers must see only its own jobs).
 */
export async function openTestDatabase(options: {
  url?: string | undefined;
  templatePath?: string | undefined;
  own?: boolean | undefined;
}): Promise<DbHandle> {
  if (options.url) return openDatabase({ url: options.url, poolMax: 20, connectTimeoutS: TEST_CONNECT_TIMEOUT_S });
  const { templatePath } = options;
  if (templatePath) {
    if (options.own) return openDatabase({ pgliteLoad: new Blob([await readFile(templatePath)]) });
    const shared = (workerDatabases[templatePath] ??= readFile(templatePath).then((bytes) =>
      openDatabase({ pgliteLoad: new Blob([bytes]) }),
    ));
    // The file's close leaves the worker's database open for the next file; it ends with the process.
    return { ...(await shared), close: () => Promise.resolve() };
  }
  const handle = await openDatabase({});
  await migrate(handle.db);
  return handle;
}

/** This worker process's shared PGlite database per template (module state: tests run with isolate: false). */
const workerDatabases: Record<string, Promise<DbHandle>> = {};

/** A new, empty database of a test's own, and how to drop it. */
export interface ScratchDatabase {
  /** Its connection string; undefined = an in-memory PGlite (open it with `open()`). */
  readonly url: string | undefined;
  open(options?: { poolMax?: number }): Promise<DbHandle>;
  drop(): Promise<void>;
}

/** A server's coordinator and, on Citus, its workers: where a scratch database must exist. */
interface Cluster {
  urlOf(database: string, host?: { name: string; port: number }): string;
  coordinator: { name: string; port: number };
  /** The workers (empty on plain PostgreSQL). */
  workers: { name: string; port: number }[];
}

async function onNode<T>(url: string, work: (handle: DbHandle) => Promise<T>): Promise<T> {
  const handle = await openDatabase({ url, poolMax: 1, connectTimeoutS: TEST_CONNECT_TIMEOUT_S });
  try {
    return await work(handle);
  } finally {
    await handle.close();
  }
}

async function clusterOf(serverUrl: string): Promise<Cluster> {
  const urlOf = (database: string, host?: { name: string; port: number }) => {
    const url = new URL(serverUrl);
    url.pathname = `/${database}`;
    if (host) {
      url.hostname = host.name;
      url.port = String(host.port);
    }
    return url.toString();
  };
  const server = new URL(serverUrl);
  const workers = await onNode(serverUrl, async (admin) => {
    const [citus] = rowsOf<{ on: boolean }>(
      await admin.db.execute(sql`select exists (select 1 from pg_extension where extname = 'citus') as on`),
    );
    if (!citus?.on) return [];
    return rowsOf<{ name: string; port: number }>(
      await admin.db.execute(
        sql`select nodename as name, nodeport as port from pg_dist_node where groupid <> 0 order by nodeport`,
      ),
    );
  });
  return { urlOf, coordinator: { name: server.hostname, port: Number(server.port || 5432) }, workers };
}

const plainName = (name: string) => {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`not a plain database name: ${name}`);
  return name;
};

/** An empty database `name` on every node, with Citus installed and the workers registered on Citus. */
async function createEmpty(cluster: Cluster, name: string): Promise<void> {
  await onNode(cluster.urlOf("postgres"), (h) => h.db.execute(sql.raw(`create database ${name}`)));
  if (cluster.workers.length === 0) return;
  for (const node of cluster.workers) {
    await onNode(cluster.urlOf("postgres", node), (h) => h.db.execute(sql.raw(`create database ${name}`)));
    await onNode(cluster.urlOf(name, node), (h) => h.db.execute(sql`create extension if not exists citus`));
  }
  await onNode(cluster.urlOf(name), async (h) => {
    await h.db.execute(sql`create extension if not exists citus`);
    await h.db.execute(
      sql`select citus_set_coordinator_host(${cluster.coordinator.name}, ${cluster.coordinator.port})`,
    );
    for (const node of cluster.workers) await h.db.execute(sql`select citus_add_node(${node.name}, ${node.port})`);
  });
}

/** Runs `statement(node)` on the maintenance database of every node, the workers first. */
async function onEveryNode(cluster: Cluster, statement: string): Promise<void> {
  for (const node of [...cluster.workers, cluster.coordinator])
    await onNode(cluster.urlOf("postgres", node), (h) => h.db.execute(sql.raw(statement)));
}

/**
 * Closes `name` to connections on every node and ends the ones it has (on Citus the coordinator
 * keeps connections to the workers' databases, and a maintenance daemon its own): a database can
 * be copied or renamed only while nobody is connected.
 */
async function closeToConnections(cluster: Cluster, name: string): Promise<void> {
  await onEveryNode(cluster, `alter database ${name} with allow_connections false`);
  await onEveryNode(
    cluster,
    `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}' and pid <> pg_backend_pid()`,
  );
}

/**
 * The run's migrated template for scratch databases (docs/testing.md#scratch-databases), built once
 * per test run and package (named after the run's database and the package's folder, the test
 * processes' working directory): the first caller builds it under a lock while the others wait,
 * migrating a fresh database and closing it to connections; a half-built one never has the name.
 */
async function migratedTemplate(cluster: Cluster, serverUrl: string): Promise<string> {
  const name = scratchTemplateName(serverUrl);
  return onNode(cluster.urlOf("postgres"), async (admin) => {
    // A session lock on the coordinator's maintenance database: one builder per template name.
    await admin.db.execute(sql`select pg_advisory_lock(hashtext(${name}))`);
    try {
      const [found] = rowsOf<{ n: number }>(
        await admin.db.execute(sql`select count(*)::int as n from pg_database where datname = ${name}`),
      );
      if ((found?.n ?? 0) > 0) return name;
      const building = plainName(`${name.slice(0, 50)}_b${String(process.pid)}`);
      await createEmpty(cluster, building);
      await onNode(cluster.urlOf(building), (h) => migrate(h.db));
      await closeToConnections(cluster, building);
      await onEveryNode(cluster, `alter database ${building} rename to ${name}`);
      return name;
    } finally {
      await admin.db.execute(sql`select pg_advisory_unlock(hashtext(${name}))`);
    }
  });
}

/**
 * Builds the run's migrated template for this package now (a global setup's, before any file runs):
 * built lazily, the first file's hook built it while every other file's hook that wanted a scratch
 * database waited for its lock, and on a loaded Citus some waited past their 60 s.
 */
export async function buildScratchTemplate(serverUrl: string): Promise<string> {
  return migratedTemplate(await clusterOf(serverUrl), serverUrl);
}

/** The name of the scratch template of the run on `serverUrl` for this package. */
export function scratchTemplateName(serverUrl: string): string {
  const run = new URL(serverUrl).pathname.slice(1) || "postgres";
  const pkg = (process.cwd().split(/[\\/]/).pop() ?? "pkg").toLowerCase().replace(/[^a-z0-9_]/g, "_");
  return plainName(`${run}_tpl_${pkg}`.slice(0, 63));
}

/** Drops the run's scratch template of this package, on every node, if it was built (global teardown). */
export async function dropScratchTemplate(serverUrl: string): Promise<void> {
  const cluster = await clusterOf(serverUrl);
  await onEveryNode(cluster, `drop database if exists ${scratchTemplateName(serverUrl)} with (force)`);
}

/**
 * A new database beside the test run's: on the same server as `serverUrl` (and, when that server
 * is a Citus coordinator, on every node of its cluster, with Citus installed and the workers
 * registered, so that it is a Citus database too); without `serverUrl`, an in-memory PGlite. For
 * tests that need a database nothing else touches (an upgrade from old migrations, processes whose
 * job workers must not take other tests' jobs). Empty, or with `migrated: true` already migrated:
 * a copy of the run's template on each node (`CREATE DATABASE … TEMPLATE`, a file copy), instead of
 * creating Citus on three nodes and running every migration again (14 s a database on an idle
 * Citus cluster, twice that under CI's load).
 */
export async function createScratchDatabase(
  serverUrl: string | undefined,
  prefix: string,
  options: { migrated?: boolean } = {},
): Promise<ScratchDatabase> {
  if (!serverUrl)
    return {
      url: undefined,
      open: async () => {
        const handle = await openDatabase({});
        if (options.migrated) await migrate(handle.db);
        return handle;
      },
      drop: () => Promise.resolve(),
    };
  const name = plainName(
    `${prefix}_${String(process.pid)}_${String(Date.now())}_${String(Math.floor(Math.random() * 1e6))}`,
  );
  const cluster = await clusterOf(serverUrl);
  if (options.migrated) {
    const template = await migratedTemplate(cluster, serverUrl);
    await onEveryNode(cluster, `create database ${name} template ${template}`);
  } else {
    await createEmpty(cluster, name);
  }
  return {
    url: cluster.urlOf(name),
    open: (openOptions = {}) =>
      openDatabase({
        url: cluster.urlOf(name),
        poolMax: openOptions.poolMax ?? 4,
        connectTimeoutS: TEST_CONNECT_TIMEOUT_S,
      }),
    drop: () => onEveryNode(cluster, `drop database if exists ${name} with (force)`),
  };
}
