/**
 * Tar entry names that are not UTF-8 (disk/names.ts) stored as their exact bytes. archiver and
 * tar-stream take names only as strings and write them as UTF-8, so the escaped form travels
 * through them and is swapped for its bytes where the engine writes a header: a pax header
 * whose `path=` record holds the bytes, as GNU tar writes such names (without
 * `hdrcharset=BINARY`, which GNU tar 1.34 warns about as an unknown keyword on every entry),
 * before the entry's own header, which carries an ASCII stand-in for readers without pax.
 * (Zip archives are written by zip-writer.ts, which takes names as bytes.) The hook reaches
 * into the engine's internals (exact pinned version); the integration tests extract with tar
 * and compare the names byte for byte.
 */
import type { Archiver } from 'archiver';
import { hasEscapes, nameBytes } from '../disk/names.ts';

/** The parts of a tar-stream header the tar hook reads. */
interface TarHeader {
  name: string;
  type?: string;
  mode?: number;
  mtime?: Date;
  uid?: number;
  gid?: number;
  [key: string]: unknown;
}

/** archiver keeps the format engine (tar-stream's pack) at `_module.engine`. */
type WithEngine<E> = { _module: { engine: E } };

/** Makes a tar archiver store escaped names as their exact bytes. */
export function keepByteNames(archive: Archiver): void {
  hookTar((archive as unknown as WithEngine<TarPack>)._module.engine);
}

interface TarPack {
  _encode(header: TarHeader): void;
  push(chunk: Buffer): boolean;
}

/** Every header goes through `_encode`, which pushes it onto the archive. */
function hookTar(pack: TarPack): void {
  const encode = pack._encode.bind(pack);
  pack._encode = (header) => {
    if (!hasEscapes(header.name)) {
      encode(header);
      return;
    }
    const pax = paxRecord('path', nameBytes(header.name));
    encode({ name: 'PaxHeader', type: 'pax-header', size: pax.length, mode: header.mode, mtime: header.mtime, uid: header.uid, gid: header.gid });
    pack.push(pax);
    if (pax.length % 512) pack.push(Buffer.alloc(512 - (pax.length % 512)));
    encode({ ...header, name: asciiStandIn(header.name) });
  };
}

/** One pax record, `<length> <key>=<value>\n`, where the length counts the whole record. */
export function paxRecord(key: string, value: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(` ${key}=`), value, Buffer.from('\n')]);
  let length = body.length + String(body.length).length;
  if (String(length).length + body.length !== length) length++;
  return Buffer.concat([Buffer.from(String(length)), body]);
}

/**
 * The name old readers see: printable ASCII, and short enough for a plain ustar header (so that
 * tar-stream writes no pax header of its own, which would override ours).
 */
export function asciiStandIn(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_');
  return ascii.length <= 99 ? ascii : ascii.slice(-99).replace(/^\/+/, '');
}
