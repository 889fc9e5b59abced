import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { addressKey, buildBlockList, forwardedClient, ipVersion, isInList } from '../../../src/services/addresses.ts';

const trusted = buildBlockList(['127.0.0.0/8', '::1', '10.0.0.0/8']);
const isTrusted = (ip: string) => isInList(trusted, ip);

describe('forwardedClient (AUTH: client addresses behind trusted proxies)', () => {
  it('is the peer when the peer is not a trusted proxy, whatever the headers claim', () => {
    expect(forwardedClient('203.0.113.5', { 'x-forwarded-for': '1.2.3.4' }, isTrusted)).toBe('203.0.113.5');
    expect(forwardedClient('::ffff:203.0.113.5', { forwarded: 'for=1.2.3.4' }, isTrusted)).toBe('203.0.113.5');
  });

  it('reads X-Forwarded-For from the right, skipping trusted hops', () => {
    expect(forwardedClient('127.0.0.1', { 'x-forwarded-for': '198.51.100.1' }, isTrusted)).toBe('198.51.100.1');
    expect(forwardedClient('127.0.0.1', { 'x-forwarded-for': 'forged, 198.51.100.1, 10.1.2.3' }, isTrusted)).toBe('198.51.100.1');
    expect(forwardedClient('127.0.0.1', { 'x-forwarded-for': '6.6.6.6, 198.51.100.1' }, isTrusted)).toBe('198.51.100.1');
    expect(forwardedClient('127.0.0.1', { 'x-forwarded-for': '10.9.9.9' }, isTrusted)).toBe('10.9.9.9');
  });

  it('reads Forwarded when there is no X-Forwarded-For, with quotes, brackets and ports', () => {
    expect(forwardedClient('::1', { forwarded: 'for=192.0.2.60;proto=http;by=203.0.113.43' }, isTrusted)).toBe('192.0.2.60');
    expect(forwardedClient('::1', { forwarded: 'for="[2001:db8:cafe::17]:4711"' }, isTrusted)).toBe('2001:db8:cafe::17');
    expect(forwardedClient('::1', { forwarded: 'for=192.0.2.43:47011, for=10.0.0.2' }, isTrusted)).toBe('192.0.2.43');
    expect(forwardedClient('::1', { 'x-forwarded-for': '198.51.100.9', forwarded: 'for=6.6.6.6' }, isTrusted)).toBe('198.51.100.9');
  });

  it('stops at an entry that is no address, keeping the last address that could be trusted', () => {
    expect(forwardedClient('127.0.0.1', { 'x-forwarded-for': 'unknown' }, isTrusted)).toBe('127.0.0.1');
    expect(forwardedClient('127.0.0.1', { 'x-forwarded-for': '198.51.100.1, garbage, 10.0.0.7' }, isTrusted)).toBe('10.0.0.7');
    expect(forwardedClient('127.0.0.1', { forwarded: 'for=_hidden' }, isTrusted)).toBe('127.0.0.1');
  });
});

describe("ipVersion (the address checks without Node's regular expressions)", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('answers what net.isIP answers, for addresses, zone ids, near-addresses and junk', () => {
    const inputs = [
      '127.0.0.1',
      '0.0.0.0',
      '255.255.255.255',
      '256.1.1.1',
      '1.2.3.04',
      '01.1.1.1',
      '1.2.3',
      '1.2.3.4.5',
      ' 1.2.3.4',
      '1.2.3.4 ',
      '1.1.1.1/8',
      '::1',
      '::',
      '2001:db8::1',
      '2001:DB8::1',
      '::ffff:1.2.3.4',
      '::ffff:001.2.3.4',
      '::1.2.3.4',
      '1:2:3:4:5:6:1.2.3.4',
      '1:2:3:4:5:6:7:8',
      '1:2:3:4:5:6:7:8:9',
      '1:2:3:4:5:6:7::',
      '1::2::3',
      '[::1]',
      'fe80::1%eth0',
      'fe80::1%',
      '::1%!!',
      '1.2.3.4%eth0',
      '1:2:3:4:5:6:7:8%1',
      'abc',
      '',
      ':',
      '%',
      'garbage',
      'unknown',
    ];
    for (const addr of inputs) expect([addr, ipVersion(addr)]).toEqual([addr, net.isIP(addr)]);
  });

  it('checks the usual addresses without net.isIP, whose IPv6 expression V8 compiles on first use (ms at every start)', () => {
    const isIP = vi.spyOn(net, 'isIP');
    const isIPv6 = vi.spyOn(net, 'isIPv6');
    const isIPv4 = vi.spyOn(net, 'isIPv4');
    const list = buildBlockList(['127.0.0.0/8', '::1', '10.0.0.0/8', '2001:db8::/32']);
    expect(isInList(list, '127.0.0.1')).toBe(true);
    expect(isInList(list, '::ffff:10.1.2.3')).toBe(true);
    expect(isInList(list, '2001:db8::5')).toBe(true);
    expect(isInList(list, '198.51.100.1')).toBe(false);
    expect(addressKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressKey('198.51.100.1')).toBe('198.51.100.1');
    expect(forwardedClient('127.0.0.1', { 'x-forwarded-for': '198.51.100.1' }, (ip) => isInList(list, ip))).toBe('198.51.100.1');
    expect([isIP, isIPv6, isIPv4].map((spy) => spy.mock.calls.length)).toEqual([0, 0, 0]);
    // A zone id still goes to net.isIP (the system's parser would drop it).
    expect(isInList(list, 'fe80::1%eth0')).toBe(false);
    expect(isIP).toHaveBeenCalledWith('fe80::1%eth0');
  });

  it('still refuses a trusted proxy entry that is no address, with the same message', () => {
    for (const bad of ['1.2.3.256', 'example.com', '10.0.0.0/33', '::1/129', '1.2.3.4/8/8']) {
      expect(() => buildBlockList([bad])).toThrow(`invalid trusted proxy address "${bad}"`);
    }
  });
});
