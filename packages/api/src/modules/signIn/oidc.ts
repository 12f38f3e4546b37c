import * as client from "openid-client";

/** OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_SCOPES (§22). */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: string;
  /**
   * How the client reaches the issuer (discovery, token endpoint, JWKS); default `fetch`. Tests put
   * themselves between the two here (a tampered token endpoint answer).
   */
  fetch?: client.CustomFetch | undefined;
}

/** What a verified ID token says, and the token itself (for the logout hint). */
export interface VerifiedSignIn {
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  isAdmin: boolean;
  idToken: string;
}

/** A sign-in that failed at the issuer or in verification; the reason is for the log (no token in it). */
export class SignInFailed extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(reason, options);
    this.name = "SignInFailed";
  }
}

/** Only for an issuer on this machine (development and tests): plain http is then allowed. */
function isLoopback(url: URL): boolean {
  return url.protocol === "http:" && ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
}

/**
 * The relying party (openid-client v6, the certified one for Node): discovery once (retried after
 * a failure), authorization code + PKCE S256 with `state` and `nonce`, the ID token verified —
 * signature against the issuer's JWKS (`enableNonRepudiationChecks`: without it a token endpoint's
 * answer over TLS is trusted unsigned), `iss`, `aud`, `exp`, `nonce` — and RP-initiated logout.
 */
export class OidcClient {
  private configuration: Promise<client.Configuration> | null = null;

  constructor(private readonly settings: OidcSettings) {}

  private async config(): Promise<client.Configuration> {
    this.configuration ??= (async () => {
      const issuer = new URL(this.settings.issuer);
      const execute = [
        client.enableNonRepudiationChecks,
        // eslint-disable-next-line @typescript-eslint/no-deprecated -- deprecated only to stand out: plain http, for a loopback issuer only (development, tests)
        ...(isLoopback(issuer) ? [client.allowInsecureRequests] : []),
      ];
      const config = await client.discovery(
        issuer,
        this.settings.clientId,
        undefined,
        client.ClientSecretBasic(this.settings.clientSecret),
        { execute, timeout: 10, ...(this.settings.fetch ? { [client.customFetch]: this.settings.fetch } : {}) },
      );
      if (this.settings.fetch) config[client.customFetch] = this.settings.fetch;
      return config;
    })();
    try {
      return await this.configuration;
    } catch (error) {
      this.configuration = null;
      throw new SignInFailed("the issuer's discovery document could not be read", { cause: error });
    }
  }

  /** S1: the authorization URL, and the secrets the callback needs (kept at the service). */
  async start(redirectUri: string): Promise<{ url: URL; state: string; nonce: string; codeVerifier: string }> {
    const config = await this.config();
    const codeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: this.settings.scopes,
      response_type: "code",
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: "S256",
      state,
      nonce,
    });
    return { url, state, nonce, codeVerifier };
  }

  /**
   * S2: exchanges the code (with the PKCE verifier) and verifies the ID token; `query` is the
   * callback's query string. Throws SignInFailed for anything the issuer or the token gets wrong.
   */
  async finish(
    redirectUri: string,
    query: string,
    checks: { state: string; nonce: string; codeVerifier: string },
  ): Promise<VerifiedSignIn> {
    const config = await this.config();
    const current = new URL(redirectUri);
    current.search = query;
    let tokens;
    try {
      tokens = await client.authorizationCodeGrant(
        config,
        current,
        {
          pkceCodeVerifier: checks.codeVerifier,
          expectedState: checks.state,
          expectedNonce: checks.nonce,
          idTokenExpected: true,
        },
        { redirect_uri: redirectUri },
      );
    } catch (error) {
      throw new SignInFailed(`the issuer's answer failed verification (${errorName(error)})`, { cause: error });
    }
    const claims = tokens.claims();
    const idToken = tokens.id_token;
    if (!claims || !idToken) throw new SignInFailed("the issuer sent no ID token");
    const roles = claims.roles;
    return {
      issuer: claims.iss,
      subject: claims.sub,
      email: typeof claims.email === "string" && claims.email.includes("@") ? claims.email : null,
      emailVerified: claims.email_verified === true,
      name: typeof claims.name === "string" ? claims.name : null,
      isAdmin: Array.isArray(roles) && roles.includes("ADMIN"),
      idToken,
    };
  }

  /** S3: the issuer's end-session URL, or null when it has none (or cannot be reached now). */
  async endSessionUrl(idToken: string | null, postLogoutRedirectUri: string): Promise<URL | null> {
    let config;
    try {
      config = await this.config();
    } catch {
      return null;
    }
    if (!config.serverMetadata().end_session_endpoint) return null;
    return client.buildEndSessionUrl(config, {
      post_logout_redirect_uri: postLogoutRedirectUri,
      client_id: this.settings.clientId,
      ...(idToken ? { id_token_hint: idToken } : {}),
    });
  }
}

/** The kind of an error, never its message (which may quote a token). */
function errorName(error: unknown): string {
  if (error instanceof client.AuthorizationResponseError) return `authorization error ${error.error}`;
  if (error instanceof client.ResponseBodyError) return `token endpoint error ${error.error}`;
  if (error instanceof Error) return "code" in error && typeof error.code === "string" ? error.code : error.name;
  return "unknown";
}
