/** TIFF-like files (tif, tiff, dng, cr2, nef) are fetched raw and decoded in the browser with utif2 (spec §2). */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { rawBytes } from '../../api/resources.ts';
import { ErrorScreen } from '../ui/ErrorScreen.tsx';
import { ImageViewer } from './ImageViewer.tsx';

export const TIFF_EXTENSIONS = /\.(tiff?|dng|cr2|nef)$/i;

/** Decodes the largest image of the file into a PNG blob URL. */
async function decode(buffer: ArrayBuffer): Promise<string> {
  const { default: UTIF } = await import('utif2');
  const ifds = UTIF.decode(buffer);
  let best: (typeof ifds)[number] | undefined;
  for (const ifd of ifds) {
    try {
      UTIF.decodeImage(buffer, ifd);
    } catch {
      continue;
    }
    if (ifd.width > 0 && ifd.height > 0 && (!best || ifd.width * ifd.height > best.width * best.height)) best = ifd;
  }
  if (!best) throw new Error('no decodable image');
  const rgba = UTIF.toRGBA8(best);
  const canvas = document.createElement('canvas');
  canvas.width = best.width;
  canvas.height = best.height;
  canvas.getContext('2d')!.putImageData(new ImageData(new Uint8ClampedArray(rgba), best.width, best.height), 0, 0);
  const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/png'));
  if (!blob) throw new Error('could not encode the image');
  return URL.createObjectURL(blob);
}

export function TiffImage({ path, alt }: { path: string; alt: string }) {
  const { t } = useTranslation();
  const [url, setUrl] = useState<string | null>(null);
  const [failed, setFailed] = useState<number | null>(null);
  useEffect(() => {
    const ac = new AbortController();
    let made: string | null = null;
    setUrl(null);
    setFailed(null);
    rawBytes(path, ac.signal)
      .then(decode)
      .then((u) => {
        made = u;
        if (ac.signal.aborted) URL.revokeObjectURL(u);
        else setUrl(u);
      })
      .catch((err: unknown) => {
        if (ac.signal.aborted) return;
        // A decoder failure is an internal error (spec §2); a failed download keeps its status.
        const status = (err as { status?: number }).status;
        setFailed(typeof status === 'number' ? status : 500);
      });
    return () => {
      ac.abort();
      if (made) URL.revokeObjectURL(made);
    };
  }, [path]);
  if (failed !== null) return <ErrorScreen code={failed} />;
  if (!url) return <span className="spinner preview-spinner" role="status" aria-label={t('files.loading')} />;
  return <ImageViewer key={url} src={url} alt={alt} />;
}
