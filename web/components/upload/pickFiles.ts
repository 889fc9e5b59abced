/** Reading what the user picked or dropped into relative paths, folders included (spec §3 "Upload job"). */
import type { PickedFile } from '../../lib/uploads.ts';

/** Files of an `<input type=file>` (with `webkitdirectory`, each carries its relative path). */
export function fromInput(files: FileList | null): PickedFile[] {
  return [...(files ?? [])].map((file) => ({ file, relativePath: file.webkitRelativePath || file.name }));
}

function readAll(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  return new Promise((resolve, reject) => {
    const out: FileSystemEntry[] = [];
    // readEntries answers in batches (100 in Chromium) until an empty one.
    const next = () =>
      reader.readEntries((batch) => {
        if (batch.length === 0) resolve(out);
        else {
          out.push(...batch);
          next();
        }
      }, reject);
    next();
  });
}

function fileOf(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

/** Walks dropped items: files with their paths, and folders that turned out empty. */
export async function fromDrop(data: DataTransfer): Promise<{ picked: PickedFile[]; emptyDirs: string[] }> {
  const picked: PickedFile[] = [];
  const emptyDirs: string[] = [];
  const entries = [...data.items].filter((i) => i.kind === 'file').map((i) => i.webkitGetAsEntry?.() ?? null);
  if (entries.every((e) => e === null)) return { picked: fromInput(data.files), emptyDirs };
  const walk = async (entry: FileSystemEntry, prefix: string): Promise<void> => {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isFile) {
      picked.push({ file: await fileOf(entry as FileSystemFileEntry), relativePath: rel });
      return;
    }
    const children = await readAll((entry as FileSystemDirectoryEntry).createReader());
    if (children.length === 0) emptyDirs.push(rel);
    for (const c of children) await walk(c, rel);
  };
  for (const e of entries) if (e) await walk(e, '');
  return { picked, emptyDirs };
}
