/** The rare formats' native addons are optional and loaded on first use (services/files/archive/compressors.ts). */
import { describe, expect, it } from 'vitest';
import { UnsupportedError } from '../../src/errors.ts';
import { createCompressor, systemDeps, type CompressorDeps, type OptionalPackage } from '../../src/services/files/archive/compressors.ts';

/** A machine without the programs, where `missing` packages fail to load; records what was loaded. */
function machine(missing: OptionalPackage[]): CompressorDeps & { loaded: string[] } {
  const loaded: string[] = [];
  return {
    loaded,
    hasProgram: () => false,
    load(pkg) {
      loaded.push(pkg);
      if (missing.includes(pkg)) throw new Error(`Cannot find module '${pkg}'`);
      return systemDeps.load(pkg);
    },
  };
}

describe('archive compressors', () => {
  it('answers 501 naming the package when an optional addon cannot be loaded', () => {
    const deps = machine(['snappystream', 'lzma-native', 'lz4-napi']);
    const cases: Array<[Parameters<typeof createCompressor>[0], string]> = [
      ['tarsz', 'tar.sz archives need the optional package snappystream, which is not installed on this server'],
      ['tarxz', 'tar.xz archives need the xz program or the optional package lzma-native, which is not installed on this server'],
      ['tarlz4', 'tar.lz4 archives need the lz4 program or the optional package lz4-napi, which is not installed on this server'],
    ];
    for (const [algo, message] of cases) {
      let thrown: unknown;
      try {
        createCompressor(algo, deps);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(UnsupportedError);
      expect([(thrown as UnsupportedError).status, (thrown as Error).message]).toEqual([501, message]);
    }
  });

  it('loads an addon only for its own format, on first use', () => {
    const deps = machine([]);
    createCompressor('targz', deps).destroy();
    createCompressor('tarbr', deps).destroy();
    expect(deps.loaded).toEqual([]);
    createCompressor('tarsz', deps).destroy();
    expect(deps.loaded).toEqual(['snappystream']);
  });

  it('prefers an installed program to the addon', () => {
    const deps = { ...machine([]), hasProgram: (cmd: string) => cmd === 'xz' };
    const loaded: string[] = [];
    const c = createCompressor('tarxz', {
      ...deps,
      load: (pkg) => {
        loaded.push(pkg);
        return systemDeps.load(pkg);
      },
    });
    c.on('error', () => {}); // the program is killed at once
    c.destroy();
    expect(loaded).toEqual([]);
  });

  it('names the program for formats that have no addon', () => {
    expect(() => createCompressor('tarzst', machine([]))).toThrow('tar.zst archives need the zstd program, which is not installed');
  });
});
