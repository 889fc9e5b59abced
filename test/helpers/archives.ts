/** Decoding downloaded archives in tests: every format of the files API, to a plain tar or zip file. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { UnsnappyStream } from 'snappystream';

/** Writes a downloaded archive to `file` as a plain tar or zip (decompressed); returns which. */
export async function decompressArchive(algo: string, body: Buffer, file: string): Promise<'tar' | 'zip'> {
  const viaCli = (cmd: string) => fs.writeFileSync(file, execFileSync(cmd, ['-dc'], { input: body, maxBuffer: 1 << 28 }));
  switch (algo) {
    case 'zip':
      fs.writeFileSync(file, body);
      return 'zip';
    case 'tar':
      fs.writeFileSync(file, body);
      break;
    case 'targz':
      fs.writeFileSync(file, zlib.gunzipSync(body));
      break;
    case 'tarbr':
      fs.writeFileSync(file, zlib.brotliDecompressSync(body));
      break;
    case 'tarbz2':
      viaCli('bzip2');
      break;
    case 'tarxz':
      viaCli('xz');
      break;
    case 'tarzst':
      viaCli('zstd');
      break;
    case 'tarlz4':
      viaCli('lz4');
      break;
    case 'tarsz':
      await pipeline(Readable.from([body]), new UnsnappyStream(true), fs.createWriteStream(file));
      break;
    default:
      throw new Error(`unknown archive format ${algo}`);
  }
  return 'tar';
}
