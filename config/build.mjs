// Builds dist/server/cli.js (server + CLI; pure-JS dependencies bundled, native ones external) and dist/web/ (the React UI,
// code-split, hashed, precompressed). Run by `npm run build` and by `prepare` on `npm ci`.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const webOut = path.join(dist, 'web');
const started = Date.now();

const EXTERNAL = [
  'sqlite3',
  '@keyv/sqlite',
  'sharp',
  // Optional native addons of rare archive formats, required on first use (archive/compressors.ts).
  'lz4-napi',
  'lzma-native',
  'snappystream',
  'heic-decode',
  'sh-syntax',
  '@inquirer/prompts',
  // Read only for --config files; bundled, its CommonJS build loses its named exports.
  'yaml',
  // Required on first use of a regex rule (services/files/rules.ts), kept out of start-up.
  're2js',
  // ws loads its optional native helpers (bufferutil, utf-8-validate) when they are installed.
  'ws',
];

/**
 * Code every start would parse and never run: zod exports its 40-odd locales as `z.locales`
 * (358 KB, half the bundled zod), and fm uses none but English, which zod sets itself up with.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)
        ? { path: path.resolve(args.resolveDir, '../locales/index.js'), namespace: 'zod-english-only' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, (args) => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: path.dirname(args.path),
    }));
  },
};

/**
 * One MIME table instead of three: accepts (Koa's) and co-body's type-is pin mime-types 2, each
 * with its own 200 KB copy of mime-db; they get the top-level mime-types 3 (same API).
 */
const oneMimeTable = {
  name: 'one-mime-table',
  setup(b) {
    const top = path.join(root, 'node_modules/mime-types/index.js');
    b.onResolve({ filter: /^mime-types$/ }, () => ({ path: top }));
  },
};

/**
 * Bundled JSON (mime-db, which every start reads, and iconv-lite's tables) as `JSON.parse` of a
 * string: V8 scans a string and parses JSON faster than the same data as an object literal.
 */
const jsonAsString = {
  name: 'json-as-string',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/].*\.json$/ }, async (args) => {
      const text = JSON.stringify(JSON.parse(await fs.promises.readFile(args.path, 'utf8')));
      return { contents: `module.exports = JSON.parse(${JSON.stringify(text)});`, loader: 'js' };
    });
  },
};

async function buildServer() {
  fs.rmSync(path.join(dist, 'server'), { recursive: true, force: true });
  await build({
    // Split so that each command loads only what it needs (`fm version` stays fast).
    entryPoints: { cli: path.join(root, 'src/cli/main.ts') },
    outdir: path.join(dist, 'server'),
    splitting: true,
    chunkNames: 'chunk-[hash]',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Pure-JS dependencies are bundled: resolving and loading hundreds of small module files
    // was most of the start-up time. Native addons, packages that load files (wasm, workers)
    // relative to their own folder, and what only some commands need stay in node_modules.
    external: EXTERNAL,
    plugins: [zodEnglishOnly, oneMimeTable, jsonAsString],
    // Bundled CommonJS code calls require() for Node's built-ins.
    banner: { js: "import { createRequire as __fmCreateRequire } from 'node:module'; const require = __fmCreateRequire(import.meta.url);" },
    sourcemap: 'linked',
    logLevel: 'warning',
  });
}

const COMPRESSIBLE = /\.(js|css|html|json|svg|map|txt|webmanifest)$/;

/** The project's home page for the UI's links: package.json `homepage`, else the repository URL, else none. */
function projectUrl() {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const repo = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
  const url = pkg.homepage || (repo ?? '').replace(/^git\+/, '').replace(/\.git$/, '');
  return /^https?:\/\//.test(url) ? url : '';
}

async function buildWeb() {
  fs.rmSync(webOut, { recursive: true, force: true });
  const assets = path.join(webOut, 'assets');
  const result = await build({
    entryPoints: { main: path.join(root, 'web/main.tsx') },
    outdir: assets,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox110', 'safari16'],
    minify: true,
    sourcemap: false,
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    assetNames: '[name]-[hash]',
    loader: { '.svg': 'file', '.png': 'file', '.woff2': 'file' },
    metafile: true,
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"', __FM_PROJECT_URL__: JSON.stringify(projectUrl()) },
    legalComments: 'none',
    logLevel: 'warning',
  });
  let mainJs = '';
  let mainCss = '';
  for (const [file, meta] of Object.entries(result.metafile.outputs)) {
    if (meta.entryPoint === 'web/main.tsx' && file.endsWith('.js')) mainJs = path.basename(file);
    if (meta.entryPoint === undefined && file.endsWith('.css') && path.basename(file).startsWith('main-')) mainCss = path.basename(file);
  }
  const template = fs.readFileSync(path.join(root, 'web/index.html'), 'utf8');
  const html = template
    .replaceAll('{{MAIN_JS}}', `assets/${mainJs}`)
    .replace('{{MAIN_CSS}}', mainCss ? `<link rel="stylesheet" href="{{STATIC}}/assets/${mainCss}">` : '');
  fs.writeFileSync(path.join(webOut, 'index.html'), html);
  const publicDir = path.join(root, 'web/public');
  if (fs.existsSync(publicDir)) fs.cpSync(publicDir, webOut, { recursive: true });
  fs.writeFileSync(path.join(dist, 'web-meta.json'), JSON.stringify(result.metafile));
}

function precompress(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) precompress(full);
    else if (COMPRESSIBLE.test(entry.name)) {
      const data = fs.readFileSync(full);
      fs.writeFileSync(`${full}.gz`, zlib.gzipSync(data, { level: 9 }));
      fs.writeFileSync(
        `${full}.br`,
        zlib.brotliCompressSync(data, {
          params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length },
        }),
      );
    }
  }
}

fs.mkdirSync(dist, { recursive: true });
await Promise.all([buildServer(), buildWeb()]);
precompress(webOut);
// When this build started: test/global-setup.ts rebuilds when a source is newer than this.
fs.writeFileSync(path.join(dist, 'build-stamp'), `${started}\n`);
console.log(`fm: built dist/ in ${Date.now() - started} ms`);
