import { describe, expect, it } from 'vitest';
import { AuthService, parseHookOutput } from '../../../src/services/auth.ts';
import { addressKey, buildBlockList, isInList } from '../../../src/services/addresses.ts';

describe('trusted proxy matching (AUTH, GHSA-xqp3)', () => {
  const list = buildBlockList(['127.0.0.0/8', '::1', '10.1.0.0/16', '2001:db8::/32']);

  it('matches addresses and CIDRs, IPv4-mapped IPv6 included', () => {
    for (const ip of ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1', '10.1.2.3', '::ffff:10.1.255.255', '2001:db8::5']) {
      expect(isInList(list, ip), ip).toBe(true);
    }
  });

  it('rejects everything else, including garbage', () => {
    for (const ip of ['10.2.0.1', '192.168.1.1', '::2', '::ffff:10.2.0.1', '2001:db9::1', '', 'localhost', '127.0.0.1, 8.8.8.8']) {
      expect(isInList(list, ip), ip).toBe(false);
    }
  });

  it('refuses invalid entries at start-up', () => {
    for (const bad of ['localhost', '10.0.0.0/33', '::/129', '10.0.0.0/x', '1.2.3.4/8/9', '300.1.1.1']) {
      expect(() => buildBlockList([bad]), bad).toThrow(/invalid trusted proxy/);
    }
    expect(() => buildBlockList([' ', ''])).not.toThrow();
  });
});

describe('login throttle keys', () => {
  it('keys IPv4 by address and IPv6 by /64', () => {
    expect(addressKey('192.0.2.7')).toBe('192.0.2.7');
    expect(addressKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(addressKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2::99')).toBe(addressKey('2001:db8:1:2:ffff::1'));
    expect(addressKey('2001:db8:1:3::1')).not.toBe(addressKey('2001:db8:1:2::1'));
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
  });

  it('keys usernames case-insensitively and caps their length', () => {
    const [u1] = AuthService.throttleKeys('Alice', '1.2.3.4');
    const [u2] = AuthService.throttleKeys('alice', '1.2.3.4');
    expect(u1).toBe(u2);
    const [long] = AuthService.throttleKeys('x'.repeat(100_000), '1.2.3.4');
    expect(long.length).toBeLessThan(300);
  });
});

describe('parseHookOutput', () => {
  it('reads key=value lines, ignoring the rest', () => {
    const kv = parseHookOutput('hook.action=auth\r\nuser.scope = /home/x\nnoise\n=bad\nuser.perm.create=false\nuser.locale=a=b\n');
    expect(Object.fromEntries(kv)).toEqual({ 'hook.action': 'auth', 'user.scope': '/home/x', 'user.perm.create': 'false', 'user.locale': 'a=b' });
  });
});
