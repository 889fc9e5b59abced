import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectLocale, LOCALE_CODES, LOCALES, mapLanguageTag, userLocale } from '../../web/i18n/locales.ts';

const I18N = path.resolve(import.meta.dirname, '../../web/i18n');

describe('locale mapping', () => {
  it('maps every browser language of spec §4 and DESIGN.md §11', () => {
    const cases: Record<string, string> = {
      he: 'he',
      'he-IL': 'he',
      iw: 'he',
      hu: 'hu',
      ar: 'ar',
      'ar-EG': 'ar',
      es: 'es',
      'es-MX': 'es',
      en: 'en',
      'en-GB': 'en',
      it: 'it',
      fr: 'fr',
      'fr-CA': 'fr',
      pt: 'pt',
      'pt-PT': 'pt',
      'pt-BR': 'ptBR',
      ja: 'ja',
      'zh-CN': 'zhCN',
      zh: 'zhCN',
      'zh-Hans': 'zhCN',
      'zh-TW': 'zhTW',
      'zh-HK': 'zhTW',
      'zh-Hant-TW': 'zhTW',
      de: 'de',
      'de-AT': 'de',
      ru: 'ru',
      pl: 'pl',
      ko: 'ko',
      sk: 'sk',
      uk: 'ua',
      'uk-UA': 'ua',
      is: 'is',
      'nl-BE': 'nlBE',
      nl: 'nlBE',
      ro: 'ro',
      'sv-SE': 'svSE',
      sv: 'svSE',
      tr: 'tr',
    };
    for (const [tag, code] of Object.entries(cases)) expect([tag, mapLanguageTag(tag)]).toEqual([tag, code]);
  });

  it('falls back to English for anything else', () => {
    expect(detectLocale(['xx'])).toBe('en');
    expect(detectLocale([])).toBe('en');
    expect(detectLocale(['fi-FI', 'de-CH'])).toBe('de');
  });

  it('reads stored user locales in every spelling, an empty one uses the browser language', () => {
    for (const [stored, code] of [
      ['pt-br', 'ptBR'],
      ['pt_BR', 'ptBR'],
      ['ptBR', 'ptBR'],
      ['zh-cn', 'zhCN'],
      ['nl-be', 'nlBE'],
      ['sv-se', 'svSE'],
      ['ua', 'ua'],
      ['en', 'en'],
    ]) {
      expect(userLocale(stored, ['fr'])).toBe(code);
    }
    expect(userLocale('', ['ja-JP'])).toBe('ja');
    expect(userLocale('klingon', ['ko'])).toBe('ko');
  });

  it('lists the 23 locales of spec §1, right-to-left exactly for ar and he', () => {
    expect(LOCALE_CODES).toHaveLength(23);
    expect(LOCALES.filter((l) => l.rtl).map((l) => l.code)).toEqual(['ar', 'he']);
  });
});

function flatten(obj: Record<string, unknown>, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v && typeof v === 'object') Object.assign(out, flatten(v as Record<string, unknown>, `${prefix}${k}.`));
    else out[`${prefix}${k}`] = String(v);
  }
  return out;
}

const load = (code: string) => flatten(JSON.parse(fs.readFileSync(path.join(I18N, `${code}.json`), 'utf8')));
const placeholders = (s: string) => [...s.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();

describe('translations', () => {
  const en = load('en');

  it('has one file per locale and nothing else', () => {
    const files = fs
      .readdirSync(I18N)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -5))
      .sort();
    expect(files).toEqual([...LOCALE_CODES].sort());
  });

  it.each(LOCALE_CODES.filter((c) => c !== 'en'))('%s has exactly the keys of en.json, same placeholders, no empty strings', (code) => {
    const t = load(code);
    expect(Object.keys(t).sort()).toEqual(Object.keys(en).sort());
    for (const [key, value] of Object.entries(t)) {
      expect(value.trim(), `${code}: ${key}`).not.toBe('');
      expect(placeholders(value), `${code}: ${key}`).toEqual(placeholders(en[key]));
    }
  });

  it.each(LOCALE_CODES.filter((c) => c !== 'en'))('%s is translated (at most a few strings equal to English)', (code) => {
    const t = load(code);
    const same = Object.keys(en).filter((k) => t[k] === en[k]);
    // Words such as "OK", "Info" or "Name" are the same in several languages.
    expect(same.length, `${code} left in English: ${same.join(', ')}`).toBeLessThanOrEqual(6);
  });
});
