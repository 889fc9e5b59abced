import { describe, expect, it } from 'vitest';
import { allowedHosts, hostName } from '../../src/server/hosts.ts';
import { crossSiteRefusal } from '../../src/server/origin.ts';

describe('allowed hosts (AUTH: DNS rebinding)', () => {
  const machine = () => ['box', '192.168.1.20', 'fe80::1%eth0'];

  it('answers to the listen address, localhost and the loopback addresses, with any port', () => {
    const hosts = allowedHosts('127.0.0.1', [], machine);
    for (const h of ['127.0.0.1:8080', 'localhost', 'LocalHost:1', '[::1]:8080', '::1', 'localhost.']) expect(hosts.refusal(h), h).toBeUndefined();
    for (const h of ['box', '192.168.1.20', 'evil.example', 'localhost.evil.example', '127.0.0.1.nip.io'])
      expect(hosts.refusal(h), h).toMatch(/--allowed-hosts/);
  });

  it('adds the machine names only when listening on all addresses', () => {
    for (const all of ['0.0.0.0', '::']) {
      const hosts = allowedHosts(all, [], machine);
      for (const h of ['box:80', '192.168.1.20:8080', '[fe80::1]:8080']) expect(hosts.refusal(h), `${all} ${h}`).toBeUndefined();
      expect(hosts.refusal('evil.example')).toBeDefined();
    }
    expect(allowedHosts('192.168.1.20', [], machine).refusal('192.168.1.20:8080')).toBeUndefined();
  });

  it('adds the names given; * turns the check off; a request without Host passes', () => {
    const hosts = allowedHosts('127.0.0.1', [' Files.Example.com ', ''], machine);
    expect(hosts.refusal('files.example.com:443')).toBeUndefined();
    expect(hosts.refusal('x.files.example.com')).toBeDefined();
    expect(hosts.refusal(undefined)).toBeUndefined();
    expect(allowedHosts('127.0.0.1', ['*'], machine).refusal('anything.example')).toBeUndefined();
  });

  it('suggests the name to allow, and only a plain one', () => {
    expect(allowedHosts('127.0.0.1', []).refusal('New.Example:8080')).toMatch(/--allowed-hosts new\.example /);
    expect(allowedHosts('127.0.0.1', []).refusal('a b')).toMatch(/--allowed-hosts <name>/);
  });

  it('hostName strips port, brackets, zone and trailing dot', () => {
    expect(hostName('[2001:DB8::1]:443')).toBe('2001:db8::1');
    expect(hostName('Example.COM.:80')).toBe('example.com');
    expect(hostName('')).toBeUndefined();
  });
});

describe('crossSiteRefusal (AUTH: CSRF)', () => {
  it('lets same-origin and Origin-less requests through', () => {
    expect(crossSiteRefusal({ origin: 'http://fm.example:8080', host: 'fm.example:8080', fetchSite: 'same-origin' })).toBeUndefined();
    expect(crossSiteRefusal({ origin: '', host: 'fm.example', fetchSite: '' })).toBeUndefined();
    expect(crossSiteRefusal({ host: 'fm.example', fetchSite: 'none' })).toBeUndefined();
  });

  it('refuses a foreign or null Origin and Sec-Fetch-Site: cross-site', () => {
    expect(crossSiteRefusal({ origin: 'https://evil.example', host: 'fm.example' })).toMatch(/cross-site.*evil\.example/);
    expect(crossSiteRefusal({ origin: 'null', host: 'fm.example' })).toBeDefined();
    expect(crossSiteRefusal({ host: 'fm.example', fetchSite: 'Cross-Site' })).toMatch(/Sec-Fetch-Site/);
    expect(crossSiteRefusal({ origin: 'http://fm.example', host: 'fm.example', fetchSite: 'cross-site' })).toBeDefined();
  });
});
