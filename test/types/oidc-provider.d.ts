/**
 * The part of oidc-provider (which ships no types) that test/helpers/oidc-provider.ts uses.
 * Its context is a Koa context with the provider's `oidc` bag.
 */
declare module 'oidc-provider' {
  import type Koa from 'koa';
  import type http from 'node:http';

  interface Grant {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }
  interface OidcContext extends Koa.Context {
    oidc: {
      session?: { accountId?: string };
      client?: { clientId: string };
      provider: { Grant: new (init: { clientId: string; accountId: string }) => Grant };
    };
  }
  interface Account {
    accountId: string;
    claims(): Promise<Record<string, unknown>>;
  }
  interface Configuration {
    clients: Record<string, unknown>[];
    jwks: { keys: object[] };
    claims: Record<string, string[]>;
    conformIdTokenClaims: boolean;
    features: Record<string, { enabled: boolean }>;
    findAccount(ctx: OidcContext, id: string): Promise<Account | undefined>;
    loadExistingGrant(ctx: OidcContext): Promise<Grant | undefined>;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    use(middleware: (ctx: Koa.Context, next: () => Promise<void>) => Promise<void>): void;
    callback(): http.RequestListener;
  }
}
