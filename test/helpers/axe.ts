/**
 * axe-core in the page under test: every rule (WCAG and best practice), every impact. The answer
 * is one line per failing node, `rule (impact): target — summary`, so a failing test names what
 * to fix.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import type * as Axe from 'axe-core';
import { PROJECT_ROOT } from './server.ts';

const AXE_SOURCE = fs.readFileSync(path.join(PROJECT_ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');

/** Runs axe on the whole document once its entry animations have ended; returns the violations as lines. */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's Content-Security-Policy (no inline
  // scripts, so no addScriptTag) does not govern; the policy stays on for what the page does.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  // A fade-in caught halfway reads as low contrast: wait for the finite animations to end.
  // (An animation cancelled meanwhile, its element gone, rejects: that one is over too.)
  await page.evaluate(() =>
    Promise.all(document.getAnimations().map((a) => (a.effect?.getTiming().iterations === Infinity ? undefined : a.finished.catch(() => undefined)))),
  );
  const results = await page.evaluate(async () => {
    const { axe } = window as unknown as { axe: typeof Axe };
    return axe.run(document, { resultTypes: ['violations'] });
  });
  return results.violations.flatMap((v) =>
    v.nodes.map((n) => `${v.id} (${v.impact ?? n.impact}): ${n.target.join(' ')} — ${(n.failureSummary ?? v.help).split('\n').slice(0, 2).join(' ').trim()}`),
  );
}
