import { describe, expect, it } from 'vitest';
import { buildBlockList, forwardedClient, isInList } from '../../../src/services/addresses.ts';

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
