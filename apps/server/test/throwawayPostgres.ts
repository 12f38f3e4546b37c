// A PostgreSQL server of a test's own, made with initdb and run with pg_ctl on a free port, so a
// test can stop and start it without touching the shared server. As root (CI), the server's
// commands run as the `postgres` user, which PostgreSQL requires.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { chown, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "./processes.ts";

const run = promisify(execFile);

/** The directory of initdb and pg_ctl: on PATH, or Debian's /usr/lib/postgresql/<major>/bin. */
async function binDir(): Promise<string | undefined> {
  for (const dir of ["/usr/local/bin", "/usr/bin"])
    if (existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"))) return dir;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const majors = (await readdir(root)).sort((a, b) => Number(b) - Number(a));
  for (const major of majors) if (existsSync(join(root, major, "bin", "initdb"))) return join(root, major, "bin");
  return undefined;
}

export class ThrowawayPostgres {
  private constructor(
    private readonly bin: string,
    private readonly dir: string,
    private readonly asUser: { uid: number; gid: number } | undefined,
    readonly port: number,
  ) {}

  /** Whether initdb and pg_ctl are installed (the test says so when they are not). */
  static async available(): Promise<boolean> {
    return (await binDir()) !== undefined;
  }

  /** Creates the cluster (trust authentication, no fsync: it is thrown away) and starts it. */
  static async create(): Promise<ThrowawayPostgres> {
    const bin = await binDir();
    if (!bin) throw new Error("initdb/pg_ctl not found");
    const dir = await mkdtemp(join(tmpdir(), "clinic-throwaway-pg-"));
    let asUser: { uid: number; gid: number } | undefined;
    if (process.getuid?.() === 0) {
      const { stdout: uid } = await run("id", ["-u", "postgres"]);
      const { stdout: gid } = await run("id", ["-g", "postgres"]);
      asUser = { uid: Number(uid.trim()), gid: Number(gid.trim()) };
      await chown(dir, asUser.uid, asUser.gid);
    }
    const pg = new ThrowawayPostgres(bin, dir, asUser, await freePort());
    await pg.command("initdb", [
      "-D",
      pg.dataDir,
      "-U",
      "postgres",
      "--auth=trust",
      "-E",
      "UTF8",
      "--no-sync",
      "--locale=C",
    ]);
    await pg.start();
    return pg;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${String(this.port)}/postgres`;
  }

  private get dataDir(): string {
    return join(this.dir, "data");
  }

  private async command(name: string, args: string[]): Promise<void> {
    const path = join(this.bin, name);
    const [file, argv] = this.asUser ? ["runuser", ["-u", "postgres", "--", path, ...args]] : [path, args];
    await run(file, argv, { timeout: 60_000 });
  }

  /** Starts the server and waits until it accepts connections. */
  async start(): Promise<void> {
    const options = `-p ${String(this.port)} -c listen_addresses=127.0.0.1 -k ${this.dir} -c fsync=off -c max_connections=50`;
    await this.command("pg_ctl", [
      "-D",
      this.dataDir,
      "-l",
      join(this.dir, "log"),
      "-o",
      options,
      "-w",
      "-t",
      "30",
      "start",
    ]);
  }

  /** Stops the server as an operator would (`fast`: open sessions are ended) and waits for it. */
  async stop(mode: "fast" | "immediate" = "fast"): Promise<void> {
    await this.command("pg_ctl", ["-D", this.dataDir, "-m", mode, "-w", "-t", "30", "stop"]);
  }

  /** Stops the server if it runs and deletes the cluster. */
  async destroy(): Promise<void> {
    await this.stop("immediate").catch(() => undefined);
    await rm(this.dir, { recursive: true, force: true });
  }
}
