/**
 * Is a browser request cross-site? Used by the HTTP edge (every state-changing request) and by
 * the command runner's WebSocket upgrade, so both apply the same rule.
 */

/**
 * Whether an Origin is this server. A missing Origin is accepted: browsers send one on every
 * cross-origin request, WebSocket and POST, so only non-browser clients (which need their own
 * token) omit it. `Origin: null` (sandboxed pages, data: URLs) is refused. The host names must
 * match; the port must match when the Host header names one, otherwise the Origin must use its
 * scheme's default port (a TLS proxy in front keeps working).
 */
export function sameOrigin(origin: string | undefined, host: string | undefined): boolean {
  if (origin === undefined) return true;
  if (!host) return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  let hostUrl: URL;
  try {
    hostUrl = new URL(`http://${host}`);
  } catch {
    return false;
  }
  if (url.hostname.toLowerCase() !== hostUrl.hostname.toLowerCase()) return false;
  const hostPort = /:(\d+)$/.exec(host)?.[1];
  if (hostPort) return (url.port || (url.protocol === 'https:' ? '443' : '80')) === hostPort;
  return url.port === '';
}

export interface BrowserHeaders {
  origin?: string;
  host?: string;
  /** `Sec-Fetch-Site`: cross-site, same-site, same-origin or none. */
  fetchSite?: string;
}

/** Why a request must be refused as cross-site, or undefined when it may proceed. */
export function crossSiteRefusal(h: BrowserHeaders): string | undefined {
  if (h.fetchSite?.toLowerCase() === 'cross-site') return 'cross-site request refused (Sec-Fetch-Site: cross-site)';
  const origin = h.origin === '' ? undefined : h.origin;
  if (sameOrigin(origin, h.host)) return undefined;
  return (
    `cross-site request refused: Origin ${origin} is not this server (${h.host ?? 'no Host header'}); ` +
    'behind a reverse proxy, pass the Host header on (nginx: proxy_set_header Host $host)'
  );
}
