/** The 23 locales of the UI (spec §1), their language tags, names and writing direction. */

import { LOCALE_CODES, type LocaleCode } from '../../src/api/user.ts';

export { LOCALE_CODES, type LocaleCode };

export interface LocaleInfo {
  code: LocaleCode;
  /** BCP 47 tag for Intl formatting and the `lang` attribute. */
  tag: string;
  /** The language's own name. */
  name: string;
  rtl: boolean;
}

export const LOCALES: readonly LocaleInfo[] = [
  { code: 'ar', tag: 'ar', name: 'العربية', rtl: true },
  { code: 'de', tag: 'de', name: 'Deutsch', rtl: false },
  { code: 'en', tag: 'en', name: 'English', rtl: false },
  { code: 'es', tag: 'es', name: 'Español', rtl: false },
  { code: 'fr', tag: 'fr', name: 'Français', rtl: false },
  { code: 'he', tag: 'he', name: 'עברית', rtl: true },
  { code: 'hu', tag: 'hu', name: 'Magyar', rtl: false },
  { code: 'is', tag: 'is', name: 'Íslenska', rtl: false },
  { code: 'it', tag: 'it', name: 'Italiano', rtl: false },
  { code: 'ja', tag: 'ja', name: '日本語', rtl: false },
  { code: 'ko', tag: 'ko', name: '한국어', rtl: false },
  { code: 'nlBE', tag: 'nl-BE', name: 'Nederlands (België)', rtl: false },
  { code: 'pl', tag: 'pl', name: 'Polski', rtl: false },
  { code: 'pt', tag: 'pt-PT', name: 'Português', rtl: false },
  { code: 'ptBR', tag: 'pt-BR', name: 'Português (Brasil)', rtl: false },
  { code: 'ro', tag: 'ro', name: 'Română', rtl: false },
  { code: 'ru', tag: 'ru', name: 'Русский', rtl: false },
  { code: 'sk', tag: 'sk', name: 'Slovenčina', rtl: false },
  { code: 'svSE', tag: 'sv-SE', name: 'Svenska', rtl: false },
  { code: 'tr', tag: 'tr', name: 'Türkçe', rtl: false },
  { code: 'ua', tag: 'uk', name: 'Українська', rtl: false },
  { code: 'zhCN', tag: 'zh-CN', name: '简体中文', rtl: false },
  { code: 'zhTW', tag: 'zh-TW', name: '繁體中文', rtl: false },
];

const BY_CODE = new Map(LOCALES.map((l) => [l.code.toLowerCase(), l]));

export function localeInfo(code: LocaleCode): LocaleInfo {
  return BY_CODE.get(code.toLowerCase())!;
}

export function isRtl(code: LocaleCode): boolean {
  return localeInfo(code).rtl;
}

/**
 * Maps one language tag (a browser's `navigator.language`, or a stored user locale in any of
 * the spellings filebrowser used: `pt-br`, `pt_BR`, `ptBR`, `zh-cn`, `nl-be`, `sv-se`, `uk`, `ua`)
 * to a supported locale, or undefined.
 */
export function mapLanguageTag(raw: string): LocaleCode | undefined {
  const tag = raw.trim().replace(/_/g, '-').toLowerCase();
  if (!tag) return undefined;
  const exact = BY_CODE.get(tag.replace(/-/g, ''));
  if (exact) return exact.code;
  const [lang, ...rest] = tag.split('-');
  const region = rest.join('-');
  switch (lang) {
    case 'pt':
      return region === 'br' ? 'ptBR' : 'pt';
    case 'zh':
      return /^(tw|hk|mo|hant)/.test(region) ? 'zhTW' : 'zhCN';
    case 'nl':
      return 'nlBE';
    case 'sv':
      return 'svSE';
    case 'uk':
    case 'ua':
      return 'ua';
    case 'iw':
      return 'he';
    default: {
      const base = BY_CODE.get(lang);
      return base && base.code.length === 2 ? base.code : undefined;
    }
  }
}

/** The locale for the browser's language list: the first one supported, else English. */
export function detectLocale(languages: readonly string[]): LocaleCode {
  for (const l of languages) {
    const code = mapLanguageTag(l);
    if (code) return code;
  }
  return 'en';
}

/** The locale a user sees: their stored locale when it is supported, else the browser's. */
export function userLocale(stored: string | undefined, languages: readonly string[]): LocaleCode {
  return (stored && mapLanguageTag(stored)) || detectLocale(languages);
}
