/** The QR code of a share link (spec §9: size 200, level M); qrcode.react loads with this chunk only. */
import { QRCodeSVG } from 'qrcode.react';
import { QR_LEVEL, QR_SIZE } from '../../lib/shareLinks.ts';

export default function ShareQr({ value, label }: { value: string; label: string }) {
  return <QRCodeSVG value={value} size={QR_SIZE} level={QR_LEVEL} marginSize={2} role="img" aria-label={label} title={label} />;
}
