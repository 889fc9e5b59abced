/**
 * A real OpenID provider (the oidc-provider package) on 127.0.0.1 for single sign-on tests: one
 * client, accounts whose claims the test sets, its development login page (any password), and
 * switches that make it misbehave (a nonce other than fm's, ID tokens re-signed with changed
 * claims or with a foreign key) so fm's checks are tested against real protocol messages.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';
import Provider from 'oidc-provider';

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Claims by account id (the login name typed on the provider's page); `sub` is added. */
  accounts: Map<string, Record<string, unknown>>;
  tamper: {
    /** Replaces the nonce fm sent in its authorization request. */
    nonce?: string;
    /** Changes the ID token's payload; it is signed again with the provider's key. */
    idToken?: (payload: Record<string, unknown>) => void;
    /** Signs the ID token with a key the provider does not publish. */
    foreignKey?: boolean;
  };
  stop(): Promise<void>;
}

const KID = 'test-key';

export async function startProvider(redirectUri: string | string[]): Promise<TestProvider> {
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const foreign = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const accounts = new Map<string, Record<string, unknown>>();
  const tamper: TestProvider['tamper'] = {};
  const clientId = 'fm-test';
  const clientSecret = crypto.randomBytes(16).toString('hex');

  const server: http.Server = await new Promise((resolve) => {
    const s = http.createServer().listen(0, '127.0.0.1', () => resolve(s));
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: Array.isArray(redirectUri) ? redirectUri : [redirectUri],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: KID, use: 'sig', alg: 'RS256' }] },
    claims: { openid: ['sub'], profile: ['preferred_username', 'name', 'groups'], email: ['email'] },
    // The claims go into the ID token itself, where fm reads them.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: true } },
    async findAccount(_ctx, id) {
      const claims = accounts.get(id);
      if (!claims) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, ...claims }) };
    },
    // Every client is trusted: no consent page after the login page.
    async loadExistingGrant(ctx) {
      const accountId = ctx.oidc.session?.accountId;
      const clientIdOf = ctx.oidc.client?.clientId;
      if (!accountId || !clientIdOf) return undefined;
      const grant = new ctx.oidc.provider.Grant({ clientId: clientIdOf, accountId });
      grant.addOIDCScope('openid profile email');
      await grant.save();
      return grant;
    },
  });
  provider.use(async (ctx, next) => {
    if (ctx.path === '/auth' && tamper.nonce) {
      const q = new URLSearchParams(ctx.querystring);
      q.set('nonce', tamper.nonce);
      ctx.querystring = q.toString();
    }
    await next();
    const body = ctx.body as { id_token?: string } | undefined;
    if (ctx.path === '/token' && body?.id_token && (tamper.idToken || tamper.foreignKey)) {
      const payload = jwt.decode(body.id_token) as Record<string, unknown>;
      tamper.idToken?.(payload);
      body.id_token = jwt.sign(payload, tamper.foreignKey ? foreign : privateKey, { algorithm: 'RS256', keyid: KID, noTimestamp: true });
    }
  });
  server.on('request', provider.callback());

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    tamper,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
