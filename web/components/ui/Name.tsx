/** A file name as people see it: each byte that is not UTF-8 as a marked `\xHH` (lib/names.ts). */
import { Fragment, useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { hasEscapes, nameParts, nameTitle } from '../../lib/names.ts';

export function Name({ name }: { name: string }) {
  if (!hasEscapes(name)) return <>{name}</>;
  return (
    <>
      {nameParts(name).map((p, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one name, in order; they never move
        <Fragment key={i}>{p.byte === undefined ? p.text : <span className="name-byte">{p.text}</span>}</Fragment>
      ))}
    </>
  );
}

/** The tooltip of a name: the name, or its display form and its bytes. */
export function useNameTitle(): (name: string) => string {
  const { t } = useTranslation();
  return useCallback((name: string) => nameTitle(name, (bytes) => t('files.nameBytes', { bytes })), [t]);
}
