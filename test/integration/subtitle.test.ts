import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, createUser, type Client } from '../helpers/server.ts';
import { OUTSIDE_SECRET, TRAVERSALS, rawGet, startMediaFm, type MediaServer } from './media-helpers.ts';

let fm: MediaServer;
let admin: Client;

const VTT = 'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n<v Ann>Hello\n';
const SRT = '\uFEFF1\r\n00:00:01,000 --> 00:00:02,500\r\nHello <b>world</b>\r\n\r\n2\r\n00:00:03,000 --> 00:00:04,000\r\nBye\r\n';
const ASS =
  '[Script Info]\nScriptType: v4.00+\n[V4+ Styles]\nFormat: Name\nStyle: Default\n[Events]\n' +
  'Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n' +
  'Dialogue: 0,0:00:01.00,0:00:02.00,Default,,0,0,0,,{\\i1}Hi{\\i0}, there\\Nagain\n';
const SSA =
  '[Script Info]\nScriptType: v4.00\n\n[Events]\nFormat: Marked, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n' +
  'Dialogue: Marked=0,0:00:05.50,0:00:06.00,Default,,0000,0000,0000,,Old style\n';

beforeAll(async () => {
  fm = await startMediaFm();
  admin = await adminClient(fm);
  const put = (rel: string, data: string | Buffer) => {
    fs.mkdirSync(path.dirname(path.join(fm.root, rel)), { recursive: true });
    fs.writeFileSync(path.join(fm.root, rel), data);
  };
  put('movies/film.vtt', VTT);
  put('movies/film.en.srt', SRT);
  put('movies/film.ass', ASS);
  put('movies/film.SSA', SSA);
  put('movies/legacy.srt', Buffer.from('1\n00:00:01,000 --> 00:00:02,000\nCaf\xe9 \x80\n', 'latin1'));
  put('movies/film.txt', 'not a subtitle');
  put('movies/folder.srt/x', 'a folder');
  put('private/secret.srt', '1\n00:00:01,000 --> 00:00:02,000\nsecret\n');
  fs.symlinkSync(path.join(fm.outside, 'outside-secret.srt'), path.join(fm.root, 'movies/escape.srt'));
});

afterAll(async () => {
  await fm?.stop();
});

describe('GET /api/subtitle', () => {
  it('serves WebVTT as it is, as text/vtt', async () => {
    const res = await admin.fetch('/api/subtitle/movies/film.vtt');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/vtt; charset=utf-8');
    expect(await res.text()).toBe(VTT);
  });

  it('converts SubRip to WebVTT', async () => {
    const res = await admin.fetch('/api/subtitle/movies/film.en.srt');
    expect(res.headers.get('content-type')).toBe('text/vtt; charset=utf-8');
    expect(await res.text()).toBe('WEBVTT\n\n00:00:01.000 --> 00:00:02.500\nHello <b>world</b>\n\n00:00:03.000 --> 00:00:04.000\nBye\n');
  });

  it('converts ASS and SSA (extension in any case) to WebVTT', async () => {
    expect(await (await admin.fetch('/api/subtitle/movies/film.ass')).text()).toBe('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n<i>Hi</i>, there\nagain\n');
    expect(await (await admin.fetch('/api/subtitle/movies/film.SSA')).text()).toBe('WEBVTT\n\n00:00:05.500 --> 00:00:06.000\nOld style\n');
  });

  it('reads legacy Windows-1252 files and answers UTF-8', async () => {
    expect(await (await admin.fetch('/api/subtitle/movies/legacy.srt')).text()).toContain('Café €');
  });

  it('answers 400 for other extensions and for a folder, 404 for a missing file', async () => {
    expect((await admin.fetch('/api/subtitle/movies/film.txt')).status).toBe(400);
    expect((await admin.fetch('/api/subtitle/movies')).status).toBe(400);
    expect((await admin.fetch('/api/subtitle/movies/folder.srt')).status).toBe(400);
    expect((await admin.fetch('/api/subtitle/movies/none.srt')).status).toBe(404);
  });

  it('AUTHZ: without the download permission subtitles are 403', async () => {
    const { client } = await createUser(admin, fm, 'nodl', { perm: { download: false } });
    expect((await client.fetch('/api/subtitle/movies/film.vtt')).status).toBe(403);
    expect((await client.fetch('/api/subtitle/movies/film.en.srt')).status).toBe(403);
  });

  it('AUTHZ: a rule that denies a folder denies its subtitles', async () => {
    const { client } = await createUser(admin, fm, 'ruled', { perm: { download: true }, rules: [{ path: '/private', allow: false }] });
    expect((await client.fetch('/api/subtitle/private/secret.srt')).status).toBe(403);
    expect((await client.fetch('/api/subtitle/movies/film.vtt')).status).toBe(200);
  });

  it('SYML: a subtitle link leading out of the scope is refused (gtsteffaniak vvp7-h4fj-m28w)', async () => {
    const res = await admin.fetch('/api/subtitle/movies/escape.srt');
    expect(res.status).toBe(403);
    expect(await res.text()).not.toContain(OUTSIDE_SECRET);
  });

  it('PATH: traversal attempts get 400/403/404 and never reveal anything outside the root', async () => {
    for (const t of [...TRAVERSALS, '/movies/../../outside-secret.srt', '/..%2f..%2foutside-secret.srt']) {
      const res = await rawGet(fm.url, `/api/subtitle${t}`, admin.token);
      expect([400, 403, 404], `${t} → ${res.status}`).toContain(res.status);
      expect(res.body.toString('latin1')).not.toContain(OUTSIDE_SECRET);
    }
  });
});
