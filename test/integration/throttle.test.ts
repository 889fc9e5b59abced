/**
 * AUTH/DOS: failed logins are throttled per (username, client address) and per client address
 * (slow after 5 failures, then 429 with Retry-After), and login bodies are capped. No timing
 * assertions: the delays themselves are measured in bench/, here only statuses and headers
 * count. Every 127/8 address reaches the server, so a test picks its own "client address".
 * That no username is ever locked for everyone, and how addresses behind a proxy are told
 * apart, is in login-throttle.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, createUser, startFm, type FmServer } from '../helpers/server.ts';
import { loginFrom, rawRequest } from '../helpers/http-raw.ts';

let fm: FmServer;

beforeAll(async () => {
  fm = await startFm();
  const admin = await adminClient(fm);
  await createUser(admin, fm, 'victim', {}, 'victim-password-123');
  await createUser(admin, fm, 'bystander', {}, 'bystander-password-1');
});
afterAll(async () => {
  await fm.stop();
});

describe('AUTH throttling per username at one address', () => {
  it('locks a username for an address after 10 failures from it, with Retry-After', async () => {
    for (let i = 0; i < 10; i++) {
      const res = await loginFrom(fm.url, 'victim', `wrong-guess-${i}`, '127.0.1.1');
      expect(res.status, `attempt ${i + 1}`).toBe(403);
    }
    const locked = await loginFrom(fm.url, 'victim', 'victim-password-123', '127.0.1.1');
    expect(locked.status).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect(locked.text).toMatch(/^429 Too Many Requests/);
  });

  it('counts usernames case-insensitively', async () => {
    const res = await loginFrom(fm.url, 'VICTIM', 'victim-password-123', '127.0.1.1');
    expect(res.status).toBe(429);
  });

  it('leaves the same username at other addresses alone', async () => {
    const res = await loginFrom(fm.url, 'victim', 'victim-password-123', '127.0.1.2');
    expect(res.status).toBe(200);
  });
});

describe('AUTH throttling per address', () => {
  it('locks an address after 10 failures against 10 different usernames', async () => {
    for (let i = 0; i < 10; i++) {
      const res = await loginFrom(fm.url, `spray-${i}`, 'password-spray-1', '127.0.2.1');
      expect(res.status, `attempt ${i + 1}`).toBe(403);
    }
    const locked = await loginFrom(fm.url, 'bystander', 'bystander-password-1', '127.0.2.1');
    expect(locked.status).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('leaves other addresses alone', async () => {
    const res = await loginFrom(fm.url, 'bystander', 'bystander-password-1', '127.0.2.2');
    expect(res.status).toBe(200);
  });
});

describe('AUTH throttling bursts', () => {
  it('lets at most 10 of 30 parallel guesses for one username from one address through to a password check', async () => {
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => loginFrom(fm.url, 'bystander', `parallel-guess-${i}`, '127.0.3.1')));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 403).length).toBeLessThanOrEqual(10);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(20);
    expect(statuses.every((s) => s === 403 || s === 429)).toBe(true);
  });
});

describe('AUTH a success resets the counters', () => {
  it('a correct password before the lock clears the username failures', async () => {
    const admin = await adminClient(fm);
    await createUser(admin, fm, 'forgetful', {}, 'forgetful-password-1');
    for (let i = 0; i < 6; i++) {
      expect((await loginFrom(fm.url, 'forgetful', `typo-${i}`, '127.0.4.1')).status).toBe(403);
    }
    // Slow (delayed) but not refused:
    expect((await loginFrom(fm.url, 'forgetful', 'forgetful-password-1', '127.0.4.1')).status).toBe(200);
    // Without the reset these 5 would make 11 failures, past the lock at 10.
    for (let i = 0; i < 5; i++) {
      expect((await loginFrom(fm.url, 'forgetful', `typo-again-${i}`, `127.0.4.${i + 2}`)).status).toBe(403);
    }
    expect((await loginFrom(fm.url, 'forgetful', 'forgetful-password-1', '127.0.4.50')).status).toBe(200);
  });
});

describe('DOS login body cap', () => {
  it('answers 413 to a login body over 64 KiB', async () => {
    const body = JSON.stringify({ username: 'admin', password: 'x'.repeat(70 * 1024) });
    const res = await rawRequest(fm.url, { method: 'POST', path: '/api/login', body, localAddress: '127.0.5.1' });
    expect(res.status).toBe(413);
  });

  it('answers 413 to a chunked body over 64 KiB (no Content-Length)', async () => {
    const res = await rawRequest(fm.url, {
      method: 'POST',
      path: '/api/login',
      headers: { 'Transfer-Encoding': 'chunked' },
      body: JSON.stringify({ username: 'x'.repeat(100 * 1024), password: 'y' }),
      localAddress: '127.0.5.2',
    });
    expect(res.status).toBe(413);
  });

  it('answers 413 to an oversized signup body as well', async () => {
    const body = JSON.stringify({ username: 'big', password: 'x'.repeat(70 * 1024) });
    const res = await rawRequest(fm.url, { method: 'POST', path: '/api/signup', body, localAddress: '127.0.5.3' });
    expect(res.status).toBe(413);
  });

  it('accepts a body just under the cap (it is only a wrong password)', async () => {
    const body = JSON.stringify({ username: 'admin', password: 'x'.repeat(60 * 1024) });
    const res = await rawRequest(fm.url, { method: 'POST', path: '/api/login', body, localAddress: '127.0.5.4' });
    expect(res.status).toBe(403);
  });
});
