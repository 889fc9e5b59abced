/** PostgreSQL locations: recognising them and keeping their credentials out of every message. */

/** True for `postgres://…` and `postgresql://…` (anything else is a SQLite file path). */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** The URL with its password (and any `password=` parameter) replaced by `***`. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    if (u.searchParams.has('password')) u.searchParams.set('password', '***');
    return u.toString();
  } catch {
    // Not parseable: print the scheme only rather than risk printing a password.
    return `${url.split(':')[0]}://***`;
  }
}

/** `text` with every occurrence of the URL's password (raw and percent-encoded) replaced by `***`. */
export function redactText(text: string, url: string): string {
  let password = '';
  try {
    const u = new URL(url);
    password = u.password || u.searchParams.get('password') || '';
  } catch {
    return text.split(url).join(redactUrl(url));
  }
  let out = text.split(url).join(redactUrl(url));
  if (!password) return out;
  for (const form of new Set([password, safeDecode(password)])) if (form.length >= 1) out = out.split(form).join('***');
  return out;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
