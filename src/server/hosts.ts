/**
 * The names this server answers to. A DNS-rebinding page reaches fm under its own name (its
 * Host header), so any Host that is not one of the server's names is refused: the listen
 * address, localhost and its loopback addresses, the names given with `--allowed-hosts`, and,
 * when listening on all addresses, the machine's hostname and interface addresses.
 */
import os from 'node:os';

const LOOPBACK = ['localhost', '127.0.0.1', '::1'];
const ALL_ADDRESSES = new Set(['', '0.0.0.0', '::', '[::]']);

export interface HostCheck {
  /** Why a Host header is refused (a message that says how to allow it), or undefined when it is served. */
  refusal(host: string | undefined): string | undefined;
}

/** The machine's own names: its hostname and every interface address. */
export function machineNames(): string[] {
  const addresses = Object.values(os.networkInterfaces())
    .flat()
    .map((a) => a?.address ?? '');
  return [os.hostname(), ...addresses];
}

/**
 * The allowed hosts of a server listening on `address`, plus `extra` names. `*` among them
 * turns the check off.
 */
export function allowedHosts(address: string, extra: string[], machine: () => string[] = machineNames): HostCheck {
  const given = extra.map((n) => n.trim()).filter(Boolean);
  if (given.includes('*')) return { refusal: () => undefined };
  const names = new Set<string>();
  for (const n of [...LOOPBACK, address, ...given, ...(ALL_ADDRESSES.has(address.trim()) ? machine() : [])]) {
    const name = hostName(n);
    if (name) names.add(name);
  }
  return {
    refusal(host) {
      // HTTP/1.0 clients may send no Host; browsers always do, so this is no way around the check.
      if (host === undefined || host === '') return undefined;
      const name = hostName(host);
      if (name && names.has(name)) return undefined;
      const shown = JSON.stringify(host.slice(0, 200));
      const suggestion = name && /^[a-z0-9.:_-]+$/.test(name) ? name : '<name>';
      return (
        `this server does not answer to the host ${shown} (a protection against DNS rebinding); ` +
        `to serve it under that name, start fm with --allowed-hosts ${suggestion} (or FM_ALLOWED_HOSTS)`
      );
    },
  };
}

/**
 * A Host header (or a configured name) reduced to the name it compares by: lower case, without
 * the port, the brackets of an IPv6 address, a zone index or a trailing dot. Undefined when empty.
 */
export function hostName(raw: string): string | undefined {
  let h = raw.trim().toLowerCase();
  const bracketed = /^\[([^\]]*)\](?::\d*)?$/.exec(h);
  if (bracketed) h = bracketed[1];
  else if ((h.match(/:/g) ?? []).length === 1) h = h.slice(0, h.indexOf(':'));
  h = h.replace(/%.*$/, '').replace(/\.$/, '');
  return h || undefined;
}
