import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

/** What the test's OpenID Provider says about one person. */
export interface TestAccount {
  sub: string;
  email: string;
  email_verified: boolean;
  name?: string;
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The provider's signing key (a test signs a token with it for another audience). */
  signingKey: KeyObject;
  kid: string;
  /** Who signs in at the next interaction. */
  nextAccount: TestAccount | null;
  close(): Promise<void>;
}

/**
 * A real OpenID Provider (panva's oidc-provider, certified) on a loopback port: one confidential
 * client (client_secret_basic) with PKCE required and RP-initiated logout, and an interaction the
 * test completes programmatically — whoever `nextAccount` names signs in and consents.
 */
export async function startTestProvider(options: {
  redirectUri: string;
  postLogoutRedirectUri: string;
}): Promise<TestProvider> {
  const handlers: ((req: IncomingMessage, res: ServerResponse) => void)[] = [];
  const server: Server = createServer((req, res) => {
    const handler = handlers[0];
    if (handler) handler(req, res);
    else res.writeHead(503).end();
  });
  await new Promise<void>((resolve) => {
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${String(port)}`;
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const kid = "test-key";
  const jwk = { ...privateKey.export({ format: "jwk" }), kid, alg: "RS256", use: "sig" };
  const accounts = new Map<string, TestAccount>();
  const clientId = "clinic-scheduling";
  const clientSecret = "test-client-secret-0123456789abcdef";
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        token_endpoint_auth_method: "client_secret_basic",
        redirect_uris: [options.redirectUri],
        post_logout_redirect_uris: [options.postLogoutRedirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
      },
    ],
    jwks: { keys: [jwk] },
    pkce: { methods: ["S256"], required: () => true },
    features: { devInteractions: { enabled: false }, rpInitiatedLogout: { enabled: true } },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    conformIdTokenClaims: false,
    cookies: { keys: ["test-cookie-key-0123456789"] },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, sub) => {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: () => ({ ...account }) };
    },
  });
  const callback = provider.callback();
  const state: TestProvider = {
    issuer,
    clientId,
    clientSecret,
    signingKey: privateKey,
    kid,
    nextAccount: null,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
  handlers.push((req, res) => {
    if (!req.url?.startsWith("/interaction/")) {
      void callback(req, res);
      return;
    }
    void (async () => {
      await provider.interactionDetails(req, res);
      const account = state.nextAccount;
      if (!account) {
        await provider.interactionFinished(req, res, { error: "access_denied", error_description: "no account" });
        return;
      }
      accounts.set(account.sub, account);
      const grant = new provider.Grant({ accountId: account.sub, clientId });
      grant.addOIDCScope("openid email profile");
      const grantId = await grant.save();
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: account.sub }, consent: { grantId } },
        { mergeWithLastSubmission: false },
      );
    })().catch((error: unknown) => {
      res.writeHead(500).end(String(error));
    });
  });
  return state;
}

/** A small cookie jar for the provider's origin, and fetch without following redirects. */
export class Browser {
  private readonly cookies = new Map<string, string>();

  async get(url: string): Promise<Response> {
    const response = await fetch(url, {
      redirect: "manual",
      headers: this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ") } : {},
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const at = pair.indexOf("=");
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    await response.arrayBuffer();
    return response;
  }

  /**
   * Follows the provider's redirects from `url` until one leaves the provider for `until`;
   * returns that location (the relying party's callback, or its post-logout page).
   */
  async followUntil(url: string, until: string): Promise<string> {
    let location = url;
    for (let hop = 0; hop < 10; hop++) {
      if (location.startsWith(until)) return location;
      const response = await this.get(location);
      const next = response.headers.get("location");
      if (!next) throw new Error(`the provider answered ${String(response.status)} at ${location} without a redirect`);
      location = new URL(next, location).href;
    }
    throw new Error("too many redirects at the provider");
  }
}
