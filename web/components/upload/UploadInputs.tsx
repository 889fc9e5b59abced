/** Hidden file and folder pickers of the files screen; the upload prompt opens them. */
import { useEffect, useRef, type ChangeEvent } from 'react';
import { useFileOps } from '../../actions/files.ts';
import { useApp } from '../../app/context.tsx';
import { fromInput } from './pickFiles.ts';

let opener: ((folder: boolean) => void) | null = null;

/** Opens the file (or folder) picker of the mounted files screen. */
export function openPicker(folder: boolean): void {
  opener?.(folder);
}

export function UploadInputs() {
  const { currentDir } = useFileOps();
  const { uploads } = useApp();
  const files = useRef<HTMLInputElement>(null);
  const folder = useRef<HTMLInputElement>(null);
  useEffect(() => {
    opener = (dir) => (dir ? folder : files).current?.click();
    return () => {
      opener = null;
    };
  }, []);
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
