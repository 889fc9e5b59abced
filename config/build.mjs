// Builds dist/server/fm.cjs (server + CLI; pure-JS dependencies bundled, native ones external) with its loader, and dist/web/ (the React UI,
// code-split, hashed, precompressed). Run by `npm run build` and by `prepare` on `npm ci`.
import { build } from 'esbuild';
import crypto from 'node:crypto';
import { createRequire, isBuiltin } from 'node:module';
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
 * One copy of a package instead of several. One MIME table instead of three: accepts (Koa's) and
 * co-body's type-is pin mime-types 2, each with its own 200 KB copy of mime-db; they get the
 * top-level mime-types 3 (same API). http-assert (Koa's ctx.assert) pins http-errors 1, which
 * builds a class per status code at load like the top-level http-errors 2 (same createError).
 */
const onePackageCopy = {
  name: 'one-package-copy',
  setup(b) {
    for (const pkg of ['mime-types', 'http-errors']) {
      const top = path.join(root, 'node_modules', pkg, 'index.js');
      b.onResolve({ filter: new RegExp(`^${pkg}$`) }, () => ({ path: top }));
    }
  },
};

/**
 * mime-types' tables as built at build time: at load, mime-types scores every type of mime-db for
 * every extension, twice (the second for a debugging list), ~4 ms of every start for a table that
 * only changes with mime-db. Its other use of mime-db's 200 KB (~2 ms to parse at every start) is
 * the type → extensions map and the charsets, so mime-db is replaced by the types that name a
 * charset, and the map is built here too. Unit tests compare the bundled tables with mime-types' own.
 */
const mimeTableAtBuild = {
  name: 'mime-table-at-build',
  setup(b) {
    const top = path.join(root, 'node_modules', 'mime-types', 'index.js');
    b.onLoad({ filter: /[\\/]mime-types[\\/]index\.js$/ }, async (args) => {
      if (args.path !== top) return undefined;
      const load = createRequire(top);
      const mime = load(top);
      const db = load('mime-db');
      const charsets = Object.fromEntries(Object.entries(db).flatMap(([type, { charset }]) => (charset ? [[type, { charset }]] : [])));
      const json = (value) => `JSON.parse(${JSON.stringify(JSON.stringify(value))})`;
      const source = await fs.promises.readFile(top, 'utf8');
      const require = "var db = require('mime-db')";
      const call = 'populateMaps(exports.extensions, exports.types)';
      for (const line of [require, call]) {
        if (!source.includes(line)) throw new Error(`mime-types no longer has ${line}: see mimeTableAtBuild in config/build.mjs`);
      }
      const tables = [
        '// fm build (config/build.mjs, mimeTableAtBuild): the tables populateMaps builds, computed at build time.',
        `Object.assign(exports.types, ${json(mime.types)})`,
        `Object.assign(exports.extensions, ${json(mime.extensions)})`,
        `exports._extensionConflicts = ${json(mime._extensionConflicts)}`,
      ].join('\n');
      const charsetsOnly = `// fm build (mimeTableAtBuild): of mime-db, what charset() reads.\nvar db = ${json(charsets)}`;
      return { contents: source.replace(require, charsetsOnly).replace(call, tables), loader: 'js' };
    });
  },
};

/**
 * Bundled JSON (statuses' codes, which every start reads, and iconv-lite's tables) as `JSON.parse` of a
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
  await Promise.all([buildLoader(), buildServerScript()]);
}

/** dist/server/boot.js: what bin/fm.js imports, the loader of the server script below (src/boot/). */
async function buildLoader() {
  await build({
    entryPoints: { boot: path.join(root, 'src/boot/main.ts') },
    outdir: path.join(dist, 'server'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
}

/** The placeholder of the bundle's content hash in fm.cjs's first line (src/boot/script.ts reads it). */
const HASH_PLACEHOLDER = '0'.repeat(64);

/**
 * `import()` of a package left outside the bundle, in fm's own modules, becomes `__fmImport()`:
 * the loader's real `import()` (a script run by `vm` has none), so each package loads as it does
 * in the ESM build (the same entry point, ESM-only ones included). `typeof import()` is a type.
 */
const externalImports = {
  name: 'external-imports',
  setup(b) {
    const external = new Set(EXTERNAL);
    const own = path.join(root, 'src') + path.sep;
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (!args.path.startsWith(own)) return undefined;
      const source = await fs.promises.readFile(args.path, 'utf8');
      const contents = source.replace(/(?<!typeof\s*)\bimport\((['"])([^'"]+)\1\)/g, (call, _q, spec) =>
        external.has(spec) || spec.startsWith('node:') ? `__fmImport(${JSON.stringify(spec)})` : call,
      );
      return { contents, loader: 'ts' };
    });
  },
};

/**
 * One ES module view per Node built-in, not one per importing module. esbuild turns each
 * `import fs from 'node:fs'` into `__toESM(require("node:fs"), 1)`, which copies every export of
 * the built-in into a new object of getters: ~130 such calls (node:fs's 104 exports 31 times,
 * node:crypto's 73 21 times, …), ~5 ms of every start. A built-in's exports are complete once
 * required and the view's getters read them live, so importers can share one view. Each call is
 * replaced in place (the lines, and so the source map's lines, stay as they are).
 */
function oneViewPerBuiltin(text) {
  let replaced = 0;
  text = text.replace(/__toESM\(require\("([^"]+)"\), 1\)/g, (call, spec) => {
    if (!isBuiltin(spec)) return call;
    replaced++;
    return `__fmBuiltinView(require(${JSON.stringify(spec)}))`;
  });
  const helperEnd = text.indexOf('\n));\n', text.indexOf('var __toESM = '));
  if (replaced === 0 || helperEnd < 0) throw new Error("esbuild's __toESM calls changed: see oneViewPerBuiltin in config/build.mjs");
  const views =
    ' var __fmBuiltinViews = new Map(); var __fmBuiltinView = (mod) => { let view = __fmBuiltinViews.get(mod); if (!view) __fmBuiltinViews.set(mod, (view = __toESM(mod, 1))); return view; };';
  const at = helperEnd + '\n));'.length;
  return text.slice(0, at) + views + text.slice(at);
}

/**
 * The server and the CLI as one CommonJS script, dist/server/fm.cjs, run by src/boot/ through
 * `vm.Script` with V8's code cache of the last start. Pure-JS dependencies are bundled (resolving
 * and loading hundreds of small module files was most of the start-up time); native addons,
 * packages that load files (wasm, workers) relative to their own folder, and what only some
 * commands need stay in node_modules. Its free names `__fmImport`, `__fmImportMetaUrl` and
 * `__fmBoot` are the loader's wrapper parameters.
 */
async function buildServerScript() {
  const result = await build({
    entryPoints: [path.join(root, 'src/cli/main.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: EXTERNAL,
    plugins: [zodEnglishOnly, onePackageCopy, mimeTableAtBuild, jsonAsString, externalImports],
    define: { 'import.meta.url': '__fmImportMetaUrl' },
    // Strict like the ESM build, where every bundled module is in strict mode.
    banner: { js: `/* fm-bundle ${HASH_PLACEHOLDER} */ 'use strict';` },
    outfile: path.join(dist, 'server', 'fm.cjs'),
    sourcemap: 'linked',
    write: false,
    logLevel: 'warning',
  });
  for (const file of result.outputFiles) {
    let text = file.text;
    if (file.path.endsWith('.cjs')) {
      text = oneViewPerBuiltin(text);
      // ASCII only, so that the loader reads it as a one-byte string (half the memory, no UTF-8
      // decoding): esbuild escapes strings, regular expressions and templates, but keeps the
      // comments' characters (a dash, an arrow, an emoji), which are escaped here.
      text = text.replace(/[^\x00-\x7f]/gu, (c) => `\\u{${c.codePointAt(0).toString(16)}}`);
      const hash = crypto.createHash('sha256').update(text).digest('hex');
      text = text.replace(HASH_PLACEHOLDER, hash);
    }
    fs.mkdirSync(path.dirname(file.path), { recursive: true });
    fs.writeFileSync(file.path, text);
  }
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
