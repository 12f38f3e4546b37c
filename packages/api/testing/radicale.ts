// A real CalDAV server for the calendars' tests: Debian's Radicale 3 on a free loopback port, with
// its own configuration, user file and storage in a temporary folder, one per call (so test files
// can run in parallel). The WebDAV calls below are the test's own side of the server — plain fetch
// with Basic authorization — not the code under test.
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { closeSync, openSync, readFileSync, rmSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { type AddressInfo, Socket, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

export interface Radicale {
  /** `http://127.0.0.1:<port>` (no trailing slash): a CalDAV client's server URL. */
  baseUrl: string;
  username: string;
  password: string;
  /** MKCALENDAR `<baseUrl>/<username>/<name>/` (displayname `name`); answers the collection URL, ending in "/". */
  createCalendar(name: string): Promise<string>;
  /** PUT (create or replace) `<calendarUrl><uid>.ics` as text/calendar. */
  putEvent(calendarUrl: string, uid: string, ics: string): Promise<void>;
  /** DELETE `<calendarUrl><uid>.ics`. */
  deleteEvent(calendarUrl: string, uid: string): Promise<void>;
  /** What is in the collection now (PROPFIND depth 1, then a GET of each member), sorted by href. */
  listEvents(calendarUrl: string): Promise<{ href: string; ics: string }[]>;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
}

const installHint = "Radicale is not installed: apt-get install radicale (Debian's radicale 3.x, /usr/bin/radicale)";

/** The servers still running, killed (and their folders removed) if the test process exits without stop(). */
const running = new Map<ChildProcess, string>();
let exitHookInstalled = false;
function killOnExit(child: ChildProcess, folder: string): void {
  running.set(child, folder);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const [server, dir] of running) {
      server.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

/** A port free on 127.0.0.1 right now (the kernel's pick for port 0). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", resolve);
  });
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

function configText(folder: string, port: number): string {
  return [
    "[server]",
    `hosts = 127.0.0.1:${String(port)}`,
    "max_connections = 20",
    "[auth]",
    "type = htpasswd",
    `htpasswd_filename = ${join(folder, "users")}`,
    "htpasswd_encryption = plain",
    // No pause after a wrong password: the 401 test would otherwise wait a second.
    "delay = 0",
    "[rights]",
    "type = owner_only",
    "[storage]",
    "type = multifilesystem",
    `filesystem_folder = ${join(folder, "collections")}`,
    "[web]",
    "type = none",
    "[logging]",
    "level = critical",
    "mask_passwords = True",
    "",
  ].join("\n");
}

/**
 * Starts Radicale on a free loopback port with htpasswd (plain) authorization for one user and
 * `owner_only` rights, and waits until it answers. Throws, saying how to install it, when
 * `radicale` is not on PATH.
 */
export async function startRadicale(): Promise<Radicale> {
  const folder = await mkdtemp(join(tmpdir(), "clinic-radicale-"));
  const username = "provider";
  const password = randomUUID();
  try {
    await writeFile(join(folder, "users"), `${username}:${password}\n`);
    // Another process may take the port between the probe and Radicale's bind: try a few.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const configPath = join(folder, "config");
      await writeFile(configPath, configText(folder, port));
      const started = await launch(configPath, port, folder);
      if ("child" in started) {
        killOnExit(started.child, folder);
        return radicale(started, folder, `http://127.0.0.1:${String(port)}`, username, password);
      }
      if (!started.portTaken || attempt >= 5) throw new Error(started.error);
    }
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
}

/** Runs Radicale and waits for its first answer (or its exit); its output goes to a file of the folder. */
async function launch(
  configPath: string,
  port: number,
  folder: string,
): Promise<{ child: ChildProcess; watchdog: ChildProcess } | { error: string; portTaken: boolean }> {
  const logPath = join(folder, "radicale.log");
  const log = openSync(logPath, "w");
  const child = spawn("radicale", ["--config", configPath], { stdio: ["ignore", log, log] });
  closeSync(log);
  const output = () => readFileSync(logPath, "utf8").trim().slice(-2000) || "no output";
  const state: { ended: string | null } = { ended: null };
  child.once("error", (error: NodeJS.ErrnoException) => {
    state.ended = error.code === "ENOENT" ? installHint : `radicale did not start: ${error.message}`;
  });
  child.once("exit", (code, signal) => {
    state.ended ??= `radicale exited (${signal ?? `code ${String(code)}`}) before answering: ${output()}`;
  });
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (state.ended !== null) return { error: state.ended, portTaken: /address already in use/i.test(state.ended) };
    try {
      await fetch(`http://127.0.0.1:${String(port)}/`, { method: "OPTIONS", signal: AbortSignal.timeout(1000) });
      return { child, watchdog: watchdogOf(child, folder) };
    } catch {
      await sleep(50);
    }
  }
  child.kill("SIGKILL");
  return { error: `radicale did not answer on port ${String(port)} within 20 s: ${output()}`, portTaken: false };
}

/**
 * A shell that kills Radicale and removes its folder when its stdin — a pipe from this process —
 * closes: so a test process that dies without running its exit hook (a signal, a crash) does not
 * leave the server behind.
 * Neither process keeps the test process alive.
 */
function watchdogOf(child: ChildProcess, folder: string): ChildProcess {
  const script = 'read -r _; kill -KILL "$0" 2>/dev/null; rm -rf -- "$1"';
  const watchdog = spawn("sh", ["-c", script, String(child.pid), folder], {
    stdio: ["pipe", "ignore", "ignore"],
  });
  watchdog.on("error", () => {
    // Without sh the exit hook and stop() still end the server.
  });
  if (watchdog.stdin instanceof Socket) watchdog.stdin.unref();
  watchdog.unref();
  child.unref();
  return watchdog;
}

function radicale(
  { child, watchdog }: { child: ChildProcess; watchdog: ChildProcess },
  folder: string,
  baseUrl: string,
  username: string,
  password: string,
): Radicale {
  const authorization = `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`;

  async function call(method: string, url: string, init: { headers?: Record<string, string>; body?: string } = {}) {
    const response = await fetch(url, { method, headers: { authorization, ...init.headers }, body: init.body });
    return { status: response.status, text: await response.text() };
  }
  function expectStatus(answer: { status: number; text: string }, allowed: number[], what: string): void {
    if (!allowed.includes(answer.status))
      throw new Error(`Radicale answered ${String(answer.status)} to ${what}: ${answer.text.slice(0, 300)}`);
  }
  const eventUrl = (calendarUrl: string, uid: string) =>
    new URL(`${encodeURIComponent(uid)}.ics`, calendarUrl.endsWith("/") ? calendarUrl : `${calendarUrl}/`).href;

  return {
    baseUrl,
    username,
    password,

    async createCalendar(name) {
      const url = `${baseUrl}/${encodeURIComponent(username)}/${encodeURIComponent(name)}/`;
      const body = `<?xml version="1.0" encoding="utf-8"?>
<C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
  <D:set><D:prop>
    <D:displayname>${escapeXml(name)}</D:displayname>
    <C:supported-calendar-component-set><C:comp name="VEVENT"/></C:supported-calendar-component-set>
  </D:prop></D:set>
</C:mkcalendar>`;
      const answer = await call("MKCALENDAR", url, {
        headers: { "content-type": "application/xml; charset=utf-8" },
        body,
      });
      expectStatus(answer, [201], `MKCALENDAR ${name}`);
      return url;
    },

    async putEvent(calendarUrl, uid, ics) {
      const answer = await call("PUT", eventUrl(calendarUrl, uid), {
        headers: { "content-type": "text/calendar; charset=utf-8" },
        body: ics,
      });
      expectStatus(answer, [201, 204], `PUT ${uid}.ics`);
    },

    async deleteEvent(calendarUrl, uid) {
      const answer = await call("DELETE", eventUrl(calendarUrl, uid));
      expectStatus(answer, [200, 204], `DELETE ${uid}.ics`);
    },

    async listEvents(calendarUrl) {
      const answer = await call("PROPFIND", calendarUrl, {
        headers: { depth: "1", "content-type": "application/xml; charset=utf-8" },
        body: '<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:prop><D:getetag/></D:prop></D:propfind>',
      });
      expectStatus(answer, [207], "PROPFIND of the calendar");
      const collectionPath = new URL(calendarUrl).pathname;
      const hrefs = [...answer.text.matchAll(/<(?:[\w-]+:)?href>([^<]*)<\/(?:[\w-]+:)?href>/g)]
        .map((match) => unescapeXml(match[1] ?? ""))
        .filter((href) => new URL(href, calendarUrl).pathname !== collectionPath)
        .sort();
      const events: { href: string; ics: string }[] = [];
      for (const href of hrefs) {
        const item = await call("GET", new URL(href, calendarUrl).href);
        expectStatus(item, [200], `GET ${href}`);
        events.push({ href, ics: item.text });
      }
      return events;
    },

    async stop() {
      running.delete(child);
      // The watchdog first, so that it does not signal a process id that may no longer be Radicale's.
      watchdog.kill("SIGKILL");
      watchdog.stdin?.destroy();
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        // Radicale shuts down on SIGTERM; a hung one is killed after a second.
        const timer = setTimeout(() => child.kill("SIGKILL"), 1000);
        await exited;
        clearTimeout(timer);
      }
      await rm(folder, { recursive: true, force: true });
    },
  };
}

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function unescapeXml(text: string): string {
  return text
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");
}
