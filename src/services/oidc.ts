/**
 * Single sign-on with an OpenID provider: the authorization code flow with PKCE, state and nonce
 * (openid-client does the protocol and verifies the ID token with the provider's keys), and the
 * fm user an ID token names, created on first login. The HTTP side is in routes/oidc.ts.
 */
import crypto from 'node:crypto';
import type * as oidc from 'openid-client';
import type { OidcConfig, SharedSettings } from '../api/settings.ts';
import type { UserRecord } from '../storage/repos/users.ts';
import type { Logger, Repos } from './context.ts';
import { exactName, exactUser, provisionOnce } from './provision.ts';
import { allPermissions, type UserService } from './users.ts';

/** openid-client loads on the first single sign-on, not at every start of fm. */
let clientModule: Promise<typeof oidc> | undefined;
const loadClient = () => (clientModule ??= import('openid-client'));

/** Why a login failed, as the login page names it (`?oidc_error=`). */
export type OidcFailure = 'off' | 'unavailable' | 'expired' | 'denied' | 'refused' | 'no_username' | 'conflict';

export class OidcError extends Error {
  constructor(
    readonly reason: OidcFailure,
    /** For the server log: what exactly went wrong. */
    detail: string,
  ) {
    super(detail);
  }
}

/** What the browser keeps between the redirect to the provider and the callback (a signed cookie). */
export interface OidcFlow {
  state: string;
  nonce: string;
  verifier: string;
  /** Unix ms after which the flow is refused. */
  expires: number;
  /** The app path to go to once signed in (the login page's `?redirect=`). */
  redirect?: string;
}

/** How long a login at the provider may take. */
export const FLOW_LIFETIME_MS = 10 * 60_000;
/** A provider's metadata and keys are fetched again after this long (and after any failure). */
const DISCOVERY_TTL_MS = 10 * 60_000;
/** Seconds to wait for the provider (discovery, token endpoint). */
const PROVIDER_TIMEOUT_S = 5;

export class OidcService {
  private cache?: { key: string; config: Promise<oidc.Configuration>; at: number };
  private flowKey?: Buffer;

  constructor(
    private readonly repos: Repos,
    private readonly users: UserService,
    private readonly log: Logger,
  ) {}

  /** The provider's configuration, discovered once per settings and kept for a while. */
  private configuration(o: OidcConfig): Promise<oidc.Configuration> {
    const key = JSON.stringify([o.issuer, o.clientId, o.clientSecret]);
    if (this.cache?.key === key && Date.now() - this.cache.at < DISCOVERY_TTL_MS) return this.cache.config;
    const insecure = new URL(o.issuer).protocol === 'http:'; // only on loopback (checked when saved)
    const config: Promise<oidc.Configuration> = loadClient()
      .then((client) =>
        client.discovery(new URL(o.issuer), o.clientId, o.clientSecret || undefined, o.clientSecret ? undefined : client.None(), {
          timeout: PROVIDER_TIMEOUT_S,
          ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
        }),
      )
      .catch((err: unknown) => {
        if (this.cache?.config === config) this.cache = undefined; // not a newer discovery's
        throw new OidcError('unavailable', `discovery at ${o.issuer} failed: ${describe(err)}`);
      });
    this.cache = { key, config, at: Date.now() };
    return config;
  }

  /** The provider's authorization URL for a new login, and the flow to keep until the callback. */
  async start(settings: SharedSettings, redirectUri: string, redirect?: string): Promise<{ url: string; flow: OidcFlow }> {
    const o = enabled(settings);
    const config = await this.configuration(o);
    const client = await loadClient();
    const flow: OidcFlow = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      verifier: client.randomPKCECodeVerifier(),
      expires: Date.now() + FLOW_LIFETIME_MS,
      ...(redirect ? { redirect } : {}),
    };
    const scopes = new Set(['openid', ...o.scopes.split(/\s+/).filter(Boolean)]);
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: [...scopes].join(' '),
      code_challenge: await client.calculatePKCECodeChallenge(flow.verifier),
      code_challenge_method: 'S256',
      state: flow.state,
      nonce: flow.nonce,
    });
    return { url: url.href, flow };
  }

  /**
   * Finishes a login: checks the state against the flow, exchanges the code (PKCE), has the ID
   * token verified (signature by the provider's keys, issuer, audience, expiry, nonce) and
   * answers its user, created or with the admin flag brought in line with the groups claim.
   */
  async finish(settings: SharedSettings, callbackUrl: URL, flow: OidcFlow | undefined): Promise<UserRecord> {
    const o = enabled(settings);
    if (!flow || flow.expires < Date.now()) throw new OidcError('expired', 'no login in progress in this browser, or it took too long');
    if (callbackUrl.searchParams.get('state') !== flow.state) throw new OidcError('expired', 'the state does not match this browser’s login');
    const config = await this.configuration(o);
    const client = await loadClient();
    let claims: oidc.IDToken | undefined;
    try {
      const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims();
    } catch (err) {
      if (err instanceof client.AuthorizationResponseError) throw new OidcError('denied', `the provider answered ${err.error}`);
      throw new OidcError(isNetworkError(err) ? 'unavailable' : 'refused', describe(err));
    }
    if (!claims) throw new OidcError('refused', 'no ID token');
    return this.userOf(settings, o, claims);
  }

  private async userOf(settings: SharedSettings, o: OidcConfig, claims: oidc.IDToken): Promise<UserRecord> {
    const raw = claims[o.usernameClaim];
    const name = typeof raw === 'string' && raw ? exactName(raw) : undefined;
    if (!name) throw new OidcError('no_username', `the ID token of ${claims.sub} has no usable "${o.usernameClaim}" claim`);
    const admin = isAdmin(o, claims);
    const existing = await exactUser(this.repos, name);
    if (existing === 'different') throw new OidcError('conflict', `"${name}" differs from an existing user name only in case`);
    if (!existing) return provisionOnce(this.repos, this.users, settings, name, {}, admin ?? false);
    if (admin === undefined || admin === existing.perm.admin) return existing;
    this.log.info(`oidc: ${admin ? 'granted' : 'removed'} admin for ${name} (group ${o.adminGroup} in ${o.groupsClaim})`);
    const perm = admin ? allPermissions() : { ...existing.perm, admin: false, execute: false };
    return this.repos.users.update({ ...existing, perm });
  }

  /** The flow as a cookie value: JSON signed with a key derived from fm's signing key. */
  async seal(flow: OidcFlow): Promise<string> {
    const body = Buffer.from(JSON.stringify(flow)).toString('base64url');
    return `${body}.${await this.mac(body)}`;
  }

  /** The flow of a cookie value; undefined when missing, altered or malformed. */
  async open(value: string | undefined): Promise<OidcFlow | undefined> {
    const [body, mac] = value?.split('.') ?? [];
    if (!body || !mac) return undefined;
    const expected = Buffer.from(await this.mac(body));
    if (expected.length !== mac.length || !crypto.timingSafeEqual(expected, Buffer.from(mac))) return undefined;
    try {
      const flow = JSON.parse(Buffer.from(body, 'base64url').toString()) as OidcFlow;
      return typeof flow.state === 'string' && typeof flow.nonce === 'string' && typeof flow.verifier === 'string' ? flow : undefined;
    } catch {
      return undefined;
    }
  }

  private async mac(body: string): Promise<string> {
    this.flowKey ??= crypto
      .createHmac('sha256', await this.repos.settings.signingKey())
      .update('fm oidc login flow')
      .digest();
    return crypto.createHmac('sha256', this.flowKey).update(body).digest('base64url');
  }
}

function enabled(settings: SharedSettings): OidcConfig {
  if (!settings.auth.oidc) throw new OidcError('off', 'single sign-on is not configured');
  return settings.auth.oidc;
}

/** Admin by the groups claim; undefined when groups do not decide (no claim or group configured). */
function isAdmin(o: OidcConfig, claims: oidc.IDToken): boolean | undefined {
  if (!o.groupsClaim || !o.adminGroup) return undefined;
  const groups = claims[o.groupsClaim];
  const list = Array.isArray(groups) ? groups : typeof groups === 'string' ? [groups] : [];
  return list.includes(o.adminGroup);
}

function isNetworkError(err: unknown): boolean {
  const name = err instanceof Error ? err.name : '';
  return err instanceof TypeError || name === 'TimeoutError' || name === 'AbortError';
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? ` (${err.cause.message})` : '';
  return `${err.message}${cause}`;
}
