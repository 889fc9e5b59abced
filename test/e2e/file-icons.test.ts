/** The file-type icons as drawn: the PDF icon's label reads three letters (P, D, F), not two ("PF"). */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { openLoggedIn, useBrowser } from '../helpers/browser.ts';

describe('file-type icons', () => {
  const browser = useBrowser();
  const root = tempDir('fm-e2e-icons-');
  let fm: FmServer;
  let admin: Client;

  beforeAll(async () => {
    fs.writeFileSync(path.join(root, 'report.pdf'), '%PDF-1.4\n');
    fm = await startFm({ root });
    admin = await adminClient(fm);
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('draws the PDF label as three separate glyphs under the fold', async () => {
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/files/');
    const icon = page.getByRole('option', { name: 'report.pdf' }).locator('svg.icon');
    // Rasterised at 10 px per icon unit; the glyphs are the runs of inked columns in the label's band
    // (y 11–18.5), between the page's sides (x 5–19).
    const glyphs = await icon.evaluate(async (svg) => {
      const clone = svg.cloneNode(true) as SVGSVGElement;
      clone.setAttribute('width', '240');
      clone.setAttribute('height', '240');
      const img = new Image();
      img.src = `data:image/svg+xml,${encodeURIComponent(new XMLSerializer().serializeToString(clone))}`;
      await img.decode();
      const canvas = document.createElement('canvas');
      canvas.width = canvas.height = 240;
      const g = canvas.getContext('2d')!;
      g.drawImage(img, 0, 0);
      const pixels = g.getImageData(0, 0, 240, 240).data;
      const alpha = (x: number, y: number) => pixels[(y * 240 + x) * 4 + 3];
      let runs = 0;
      let inked = false;
      for (let x = 50; x < 190; x++) {
        let ink = false;
        for (let y = 110; y < 185 && !ink; y++) ink = alpha(x, y) > 128;
        if (ink && !inked) runs++;
        inked = ink;
      }
      return runs;
    });
    expect(glyphs).toBe(3);
  });
});
