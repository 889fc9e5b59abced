/** i18next set-up: English bundled, every other locale loaded on demand; `lang`/`dir` on <html>. */
import i18next from 'i18next';
import { initReactI18next, useTranslation } from 'react-i18next';
import en from './en.json' with { type: 'json' };
import { localeInfo, mapLanguageTag, type LocaleCode } from './locales.ts';

export const i18n = i18next;

async function loadBundle(code: LocaleCode): Promise<void> {
  if (code === 'en' || i18next.hasResourceBundle(code, 'translation')) return;
  const mod = (await import(`./${code}.json`, { with: { type: 'json' } })) as { default: Record<string, unknown> };
  i18next.addResourceBundle(code, 'translation', mod.default);
}

function applyDocument(code: LocaleCode): void {
  const info = localeInfo(code);
  document.documentElement.lang = info.tag;
  document.documentElement.dir = info.rtl ? 'rtl' : 'ltr';
}

/** Initialises the translation layer in a locale (before the first render). */
export async function initI18n(code: LocaleCode): Promise<void> {
  await i18next.use(initReactI18next).init({
    resources: { en: { translation: en } },
    lng: 'en',
    fallbackLng: 'en',
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  await loadBundle(code);
  await i18next.changeLanguage(code);
  applyDocument(code);
}

/** The active locale code. */
export function currentLocale(): LocaleCode {
  return mapLanguageTag(i18next.language) ?? 'en';
}

/**
 * Switches the UI language. A switch between left-to-right and right-to-left reloads the page
 * (spec §1), so the whole layout starts again in the new direction.
 */
export async function setLocale(code: LocaleCode): Promise<void> {
  if (code === currentLocale()) return;
  if (localeInfo(code).rtl !== localeInfo(currentLocale()).rtl) {
    window.location.reload();
    return;
  }
  await loadBundle(code);
  await i18next.changeLanguage(code);
  applyDocument(code);
}

/** The BCP 47 tag of the active locale, for Intl formatting (re-renders on language change). */
export function useLocaleTag(): string {
  const { i18n: inst } = useTranslation();
  return localeInfo(mapLanguageTag(inst.language) ?? 'en').tag;
}
