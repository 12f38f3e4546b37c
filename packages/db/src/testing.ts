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
  if (options.url) return openDatabase({ url: options.url, poolMax: 20 });
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

/**
 * A new empty database beside the test run's: on the same server as `serverUrl` (and, when that
 * server is a Citus coordinator, on every node of its cluster, with Citus installed and the
 * workers registered, so that it is a Citus database too); without `serverUrl`, an in-memory
 * PGlite. For tests that need a database nothing else touches (an upgrade from old migrations,
 * processes whose job workers must not take other tests' jobs).
 */
export async function createScratchDatabase(serverUrl: string | undefined, prefix: string): Promise<ScratchDatabase> {
  if (!serverUrl) return { url: undefined, open: () => openDatabase({}), drop: () => Promise.resolve() };
  const name = `${prefix}_${String(process.pid)}_${String(Date.now())}_${String(Math.floor(Math.random() * 1e6))}`;
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
  const urlOf = (database: string, host?: { name: string; port: number }) => {
    const url = new URL(serverUrl);
    url.pathname = `/${database}`;
    if (host) {
      url.hostname = host.name;
      url.port = String(host.port);
    }
    return url.toString();
  };
  const admin = await openDatabase({ url: serverUrl, poolMax: 1 });
  const nodes: { name: string; port: number }[] = [];
  try {
    const [citus] = rowsOf<{ on: boolean }>(
      await admin.db.execute(sql`select exists (select 1 from pg_extension where extname = 'citus') as on`),
    );
    if (citus?.on) {
      nodes.push(
        ...rowsOf<{ name: string; port: number }>(
          await admin.db.execute(
            sql`select nodename as name, nodeport as port from pg_dist_node where groupid <> 0 order by nodeport`,
          ),
        ),
      );
    }
    await admin.db.execute(sql.raw(`create database ${name}`));
  } finally {
    await admin.close();
  }
  const onNode = async (url: string, work: (handle: DbHandle) => Promise<unknown>) => {
    const handle = await openDatabase({ url, poolMax: 1 });
    try {
      await work(handle);
    } finally {
      await handle.close();
    }
  };
  const coordinator = new URL(serverUrl);
  if (nodes.length > 0) {
    for (const node of nodes) {
      await onNode(urlOf("postgres", node), (h) => h.db.execute(sql.raw(`create database ${name}`)));
      await onNode(urlOf(name, node), (h) => h.db.execute(sql`create extension if not exists citus`));
    }
    await onNode(urlOf(name), async (h) => {
      await h.db.execute(sql`create extension if not exists citus`);
      await h.db.execute(
        sql`select citus_set_coordinator_host(${coordinator.hostname}, ${Number(coordinator.port || 5432)})`,
      );
      for (const node of nodes) await h.db.execute(sql`select citus_add_node(${node.name}, ${node.port})`);
    });
  }
  return {
    url: urlOf(name),
    open: (options = {}) => openDatabase({ url: urlOf(name), poolMax: options.poolMax ?? 4 }),
    drop: async () => {
      for (const node of [...nodes, { name: coordinator.hostname, port: Number(coordinator.port || 5432) }]) {
        await onNode(urlOf("postgres", node), (h) =>
          h.db.execute(sql.raw(`drop database if exists ${name} with (force)`)),
        );
      }
    },
  };
}
