/**
 * The compressing stage of tar.* archives. gzip (in parallel blocks, parallel-gzip.ts) and brotli come with Node; bzip2, xz, zstd and
 * lz4 run as programs (argv only, no shell) when they are installed. The rare formats' native
 * addons (lzma-native for xz, lz4-napi for lz4, snappystream for tar.sz) are optional
 * dependencies, loaded on first use; without one, the request is a 501 naming the package.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Duplex, Transform } from 'node:stream';
import zlib from 'node:zlib';
import { ARCHIVE_FORMATS, type ArchiveAlgo } from '../../../api/files.ts';
import { UnsupportedError } from '../../../errors.ts';
import { isExecutable } from '../disk/lookup.ts';
import { createParallelGzip } from './parallel-gzip.ts';

/** The optional packages, each serving one rare format. */
export type OptionalPackage = 'lzma-native' | 'lz4-napi' | 'snappystream';

/** What the compressors need from the machine; tests replace them. */
export interface CompressorDeps {
  /** Loads an optional package (throws when it is not installed or its addon does not load). */
  load(pkg: OptionalPackage): unknown;
  /** Whether a program is on PATH. */
  hasProgram(cmd: string): boolean;
}

const requireModule = createRequire(import.meta.url);
const pathCache = new Map<string, boolean>();

export const systemDeps: CompressorDeps = {
  load: (pkg) => requireModule(pkg),
  hasProgram(cmd) {
    let found = pathCache.get(cmd);
    if (found === undefined) {
      found = (process.env.PATH ?? '/usr/bin:/bin').split(':').some((dir) => isExecutable(path.join(dir || '.', cmd)));
      pathCache.set(cmd, found);
    }
    return found;
  },
};

/** Compressors run as programs; the first argument list is used. */
const PROGRAMS: Partial<Record<ArchiveAlgo, [string, string[]]>> = {
  tarbz2: ['bzip2', ['-c', '-9']],
  tarxz: ['xz', ['-c', '-1', '-T0']],
  tarzst: ['zstd', ['-c', '-q', '-3', '-T0']],
  tarlz4: ['lz4', ['-c', '-q']],
};

/** The optional package that serves a format when its program is missing (or always, for tar.sz). */
const PACKAGES: Partial<Record<ArchiveAlgo, OptionalPackage>> = { tarxz: 'lzma-native', tarlz4: 'lz4-napi', tarsz: 'snappystream' };

/** The compressing stage of a tar.* archive; throws UnsupportedError (501) when nothing on this machine can write the format. */
export function createCompressor(algo: ArchiveAlgo, deps: CompressorDeps = systemDeps): Duplex {
  if (algo === 'targz') return createParallelGzip({ level: 6 });
  if (algo === 'tarbr') return zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } });
  const program = PROGRAMS[algo];
  if (program && deps.hasProgram(program[0])) return programStream(program[0], program[1]);
  const pkg = PACKAGES[algo];
  const label = ARCHIVE_FORMATS[algo].label;
  if (!pkg) throw new UnsupportedError(`${label} archives need the ${program?.[0] ?? algo} program, which is not installed`);
  let mod: unknown;
  try {
    mod = deps.load(pkg);
  } catch {
    const needs = program ? `the ${program[0]} program or the optional package ${pkg}` : `the optional package ${pkg}`;
    throw new UnsupportedError(`${label} archives need ${needs}, which is not installed on this server`);
  }
  return nativeCompressor(pkg, mod);
}

/** A compressor from a loaded optional package (they ship no types: only what is used is declared). */
function nativeCompressor(pkg: OptionalPackage, mod: unknown): Duplex {
  switch (pkg) {
    case 'lzma-native':
      return (mod as { createCompressor(opts: { preset: number; threads: number }): Duplex }).createCompressor({ preset: 1, threads: 1 });
    case 'snappystream':
      return new (mod as { SnappyStream: new () => Duplex }).SnappyStream();
    case 'lz4-napi': {
      // LZ4 frames, one per chunk: `lz4 -d` reads concatenated frames.
      const { compressFrame } = mod as { compressFrame(data: Buffer): Promise<Buffer> };
      return new Transform({
        transform(chunk: Buffer, _enc, done) {
          compressFrame(chunk).then((frame) => done(null, frame), done);
        },
      });
    }
  }
}

/** A program's stdin/stdout as a Duplex; destroying it kills the program (client gone). */
function programStream(cmd: string, args: string[]): Duplex {
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'ignore'] });
  const duplex = Duplex.from({ writable: child.stdin, readable: child.stdout });
  child.stdin.on('error', () => {}); // EPIPE when the program dies first; 'exit' reports it
  child.on('error', (err) => duplex.destroy(err));
  child.on('exit', (code, signal) => {
    if (code !== 0 && !duplex.destroyed) duplex.destroy(new Error(`${cmd} failed (${code ?? signal})`));
  });
  duplex.on('close', () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return duplex;
}
