/** Light or dark: the instance theme when set, else the system preference (followed live). */

export type Theme = 'light' | 'dark';

export function applyTheme(instanceTheme: string): void {
  const root = document.documentElement;
  if (instanceTheme === 'light' || instanceTheme === 'dark') {
    root.dataset.theme = instanceTheme;
    return;
  }
  const mq = window.matchMedia('(prefers-color-scheme: dark)');
  const set = () => {
    root.dataset.theme = mq.matches ? 'dark' : 'light';
  };
  set();
  mq.addEventListener('change', set);
}
