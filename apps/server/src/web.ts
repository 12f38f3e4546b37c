import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import formbody from "@fastify/formbody";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { DomainError, mintToken } from "@clinic/api";

/** The built reference pages (`apps/web`, `vite build`). */
export const defaultWebDist = fileURLToPath(new URL("../../web/dist/", import.meta.url));

/** A user the development sign-in page offers, and the page it lands on. */
export interface DevUser {
  label: string;
  sub: string;
  email: string;
  roles?: string[];
  next: string;
}

export interface WebOptions {
  /** Directory of the built pages; absent or missing = no pages (the API still serves). */
  distDir?: string;
  /**
   * Only while the service runs with its development secret: `/dev/sign-in` mints a token cookie
   * for one of these users. Absent in production, where people sign in through the service's own
   * sign-in (OpenID Connect or e-mailed codes, docs/sign-in.md).
   */
  devSignIn?: { secret: string; issuer?: string | undefined; audience?: string | undefined; users: DevUser[] };
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${String(c.charCodeAt(0))};`);

/**
 * Serves the reference pages at `/`, `/book/{clinic_id}`, `/desk/{clinic_id}` (and its `/reports` and
 * `/setup/{area}`) and
 * `/manage/{token}` (docs/web.md),
 * and, in development, the sign-in page.
 */
export async function registerWeb(app: FastifyInstance, options: WebOptions): Promise<void> {
  const dist = options.distDir ?? defaultWebDist;
  if (existsSync(`${dist}/index.html`)) {
    // One route per built file (no catch-all, so unknown paths keep their problem+json 404);
    // hashed assets are cached for a year, the page itself revalidated.
    await app.register(fastifyStatic, {
      root: dist,
      wildcard: false,
      index: false,
      cacheControl: false,
      setHeaders: (res, path) => {
        res.setHeader("cache-control", path.includes("/assets/") ? "public, max-age=31536000, immutable" : "no-cache");
      },
    });
    const page = (_request: FastifyRequest, reply: FastifyReply) => {
      void reply.header("cache-control", "no-cache");
      return reply.sendFile("index.html", { cacheControl: false });
    };
    app.get("/", page);
    app.get("/book/:clinic_id", page);
    app.get("/desk/:clinic_id", page);
    // The clinic's reports (§20), for CLINIC_ADMIN: the page asks RP1/RP2, which refuse anyone else.
    app.get("/desk/:clinic_id/reports", page);
    // The clinic's setup (§23): one page per area (services, providers, hours, clinic); the pages
    // ask the API, which holds every role check, and say "not yet available" for an unknown area.
    app.get("/desk/:clinic_id/setup", page);
    app.get("/desk/:clinic_id/setup/:area", page);
    // A patient's manage link (§15): the page reads the appointment by the token (L1).
    app.get("/manage/:token", page);
  } else {
    app.log.warn({ dist }, "the web pages are not built (npm start builds them); serving the API only");
  }
  const dev = options.devSignIn;
  if (!dev) return;
  await app.register(async (scope) => {
    await scope.register(formbody);
    scope.get("/dev/sign-in", (_request, reply) => {
      const buttons = dev.users
        .map(
          (user, i) =>
            `<form method="post" action="/dev/sign-in"><input type="hidden" name="user" value="${String(i)}"><button type="submit">${escape(user.label)}</button></form>`,
        )
        .join("\n");
      return reply.type("text/html; charset=utf-8")
        .send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign in (development)</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}button{font:inherit;padding:.6rem 1rem;margin:.3rem 0;min-width:100%;text-align:left}</style></head>
<body><h1>Sign in (development only)</h1><p>This service runs with its development secret, so it signs its own tokens. Choose who you are; a token cookie is set for this site. In production people sign in through the identity provider (OpenID Connect) or an e-mailed code (docs/sign-in.md), and this page does not exist.</p>
${buttons}
<form method="post" action="/dev/sign-out"><button type="submit">Sign out</button></form></body></html>`);
    });
    scope.post<{ Body: { user?: string } }>("/dev/sign-in", async (request, reply) => {
      const user = dev.users[Number(request.body.user)];
      if (!user) throw new DomainError("VALIDATION_FAILED", "user: choose one of the listed users");
      const token = await mintToken(
        dev.secret,
        { sub: user.sub, email: user.email, ...(user.roles ? { roles: user.roles } : {}) },
        { expiresIn: "8h", issuer: dev.issuer, audience: dev.audience },
      );
      void reply.setCookie("access_token", token, {
        path: "/",
        httpOnly: true,
        sameSite: "lax",
        secure: request.protocol === "https",
        maxAge: 8 * 3600,
      });
      return reply.redirect(user.next, 303);
    });
    scope.post("/dev/sign-out", (_request, reply) => {
      void reply.clearCookie("access_token", { path: "/" });
      return reply.redirect("/dev/sign-in", 303);
    });
  });
}
