import { describe, expect, it } from 'vitest';
import { assToVtt, decodeSubtitleText, srtToVtt, subtitleFormat, toWebVtt } from '../../src/services/subtitles.ts';

describe('subtitle formats', () => {
  it('recognises vtt, srt, ass and ssa by extension, case-insensitively', () => {
    expect(subtitleFormat('/m/film.en.SRT')).toBe('srt');
    expect(subtitleFormat('a.vtt')).toBe('vtt');
    expect(subtitleFormat('a.ass')).toBe('ass');
    expect(subtitleFormat('a.ssa')).toBe('ssa');
    expect(subtitleFormat('a.sub')).toBeUndefined();
    expect(subtitleFormat('srt')).toBeUndefined();
  });

  it('leaves WebVTT unchanged', () => {
    const vtt = 'WEBVTT\n\n00:00.000 --> 00:01.000\n<v Bob>hi\n';
    expect(toWebVtt(vtt, 'vtt')).toBe(vtt);
  });
});

describe('decoding subtitle bytes', () => {
  it('reads UTF-8 with or without a BOM', () => {
    expect(decodeSubtitleText(Buffer.from('\uFEFFcafé', 'utf8'))).toBe('café');
    expect(decodeSubtitleText(Buffer.from('café', 'utf8'))).toBe('café');
  });

  it('reads UTF-16 with a BOM', () => {
    expect(decodeSubtitleText(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo', 'utf16le')]))).toBe('héllo');
    const be = Buffer.from('hé', 'utf16le').swap16();
    expect(decodeSubtitleText(Buffer.concat([Buffer.from([0xfe, 0xff]), be]))).toBe('hé');
  });

  it('falls back to Windows-1252 for legacy 8-bit files', () => {
    expect(decodeSubtitleText(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x80]))).toBe('café €');
  });
});

describe('SubRip to WebVTT', () => {
  it('converts cues, times and line breaks', () => {
    const srt = '1\n00:00:01,000 --> 00:00:02,500\nHello\nworld\n\n2\n00:01:03,040 --> 01:00:00,000\nBye\n';
    expect(srtToVtt(srt)).toBe('WEBVTT\n\n00:00:01.000 --> 00:00:02.500\nHello\nworld\n\n00:01:03.040 --> 01:00:00.000\nBye\n');
  });

  it('keeps the first cue of a file with a BOM and CRLF line ends', () => {
    const srt = '\uFEFF1\r\n00:00:01,000 --> 00:00:02,000\r\nFirst\r\n\r\n2\r\n00:00:03,000 --> 00:00:04,000\r\nSecond\r\n';
    const vtt = srtToVtt(srt);
    expect(vtt).toContain('00:00:01.000 --> 00:00:02.000\nFirst\n');
    expect(vtt).toContain('00:00:03.000 --> 00:00:04.000\nSecond\n');
    expect(vtt).not.toContain('\r');
  });

  it('tolerates missing cue numbers, extra blank lines, dots and short fractions', () => {
    const srt = '\n\n00:00:01.5 --> 00:00:02.25\nA\n\n\n\n3\n00:00:05,000-->00:00:06,000 X1:10 X2:20\nB\n';
    expect(srtToVtt(srt)).toBe('WEBVTT\n\n00:00:01.500 --> 00:00:02.250\nA\n\n00:00:05.000 --> 00:00:06.000\nB\n');
  });

  it('keeps b/i/u (also {i} forms), drops other tags, and escapes text', () => {
    const srt = '1\n00:00:01,000 --> 00:00:02,000\n<i>Tom & Jerry</i> <font color="red">red</font> {b}bold{/b}\n1 < 2 --> 3 &amp; <script>x</script>\n';
    const vtt = srtToVtt(srt);
    expect(vtt).toContain('<i>Tom &amp; Jerry</i> red <b>bold</b>\n');
    expect(vtt).toContain('1 &lt; 2 --&gt; 3 &amp; x\n');
    expect(vtt).not.toContain('<script');
    expect(vtt).not.toContain('<font');
  });

  it('skips blocks without a timing line and survives an empty file', () => {
    expect(srtToVtt('garbage\nmore garbage\n')).toBe('WEBVTT\n');
    expect(srtToVtt('')).toBe('WEBVTT\n');
  });
});

const ASS = `[Script Info]
Title: test
ScriptType: v4.00+
[V4+ Styles]
Format: Name, Fontname, Fontsize
Style: Default,Arial,20
[Events]
Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
Comment: 0,0:00:00.00,0:00:09.00,Default,,0,0,0,,a comment
Dialogue: 0,0:00:05.00,0:00:06.50,Default,,0,0,0,,Second, with a comma
Dialogue: 0,0:00:01.00,0:00:02.00,Default,,0,0,0,,{\\i1}Hi{\\i0} there\\Nline two\\hend
Dialogue: 0,0:00:03.00,0:00:04.00,Default,,0,0,0,,{\\pos(10,20)\\b1}Bold <tag> & co
Dialogue: 0,0:00:07.00,0:00:08.00,Default,,0,0,0,,{\\p1}m 0 0 l 100 0 100 100{\\p0}
Dialogue: 0,0:00:09.00,0:00:10.00,Default,,0,0,0,,{\\u1}under{\\r}plain
`;

describe('ASS/SSA to WebVTT', () => {
  it('converts dialogue lines (no blank lines between sections), sorted by start time', () => {
    const vtt = assToVtt(ASS);
    expect(vtt).toBe(
      'WEBVTT\n\n' +
        '00:00:01.000 --> 00:00:02.000\n<i>Hi</i> there\nline two\u00a0end\n\n' +
        '00:00:03.000 --> 00:00:04.000\n<b>Bold &lt;tag&gt; &amp; co</b>\n\n' +
        '00:00:05.000 --> 00:00:06.500\nSecond, with a comma\n\n' +
        '00:00:09.000 --> 00:00:10.000\n<u>under</u>plain\n',
    );
  });

  it('reads SSA (v4, Marked column) with CRLF and a BOM', () => {
    const ssa =
      '\uFEFF[Script Info]\r\nScriptType: v4.00\r\n\r\n[V4 Styles]\r\nFormat: Name\r\nStyle: Default\r\n\r\n[Events]\r\n' +
      'Format: Marked, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\r\n' +
      'Dialogue: Marked=0,0:00:01.20,0:00:03.05,Default,NTP,0000,0000,0000,,Hello\\nworld\r\n';
    expect(toWebVtt(ssa, 'ssa')).toBe('WEBVTT\n\n00:00:01.200 --> 00:00:03.050\nHello\nworld\n');
  });

  it('follows a custom Format order and ignores malformed lines', () => {
    const ass = '[Events]\nFormat: Start, End, Text\nDialogue: 0:00:01.00,0:00:02.00,Short format\nDialogue: bad,line,here\nDialogue: nothing\n';
    expect(assToVtt(ass)).toBe('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nShort format\n');
  });

  it('handles hours over 9 and lines that become empty', () => {
    const ass = '[Events]\nDialogue: 0,12:00:00.00,12:00:01.00,Default,,0,0,0,,{\\an8}\\N\\N\nDialogue: 0,10:00:00.00,10:00:01.00,Default,,0,0,0,,ok\n';
    expect(assToVtt(ass)).toBe('WEBVTT\n\n10:00:00.000 --> 10:00:01.000\nok\n');
  });
});
