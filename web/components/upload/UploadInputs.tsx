/** Hidden file and folder pickers of the files screen; the upload prompt opens them. */
import { atom, useSetAtom } from 'jotai';
import { useEffect, useRef, type ChangeEvent } from 'react';
import { useFileOps } from '../../actions/files.ts';
import { useApp } from '../../app/context.tsx';
import { fromInput } from './pickFiles.ts';

/** Opens the file (or folder) picker of the mounted files screen (null while none is mounted). */
export const pickerAtom = atom<{ open(folder: boolean): void } | null>(null);

export function UploadInputs() {
  const { currentDir } = useFileOps();
  const { uploads } = useApp();
  const files = useRef<HTMLInputElement>(null);
  const folder = useRef<HTMLInputElement>(null);
  const setPicker = useSetAtom(pickerAtom);
  useEffect(() => {
    setPicker({ open: (dir) => (dir ? folder : files).current?.click() });
    return () => setPicker(null);
  }, [setPicker]);
  const onPick = (e: ChangeEvent<HTMLInputElement>) => {
    const picked = fromInput(e.target.files);
    // The same selection may be picked again later.
    e.target.value = '';
    void uploads.uploadInto(currentDir(), picked);
  };
  return (
    <>
      <input ref={files} type="file" multiple hidden aria-hidden="true" tabIndex={-1} data-upload="files" onChange={onPick} />
      <input ref={folder} type="file" multiple hidden aria-hidden="true" tabIndex={-1} data-upload="folder" {...{ webkitdirectory: '' }} onChange={onPick} />
    </>
  );
}
