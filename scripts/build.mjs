// One esbuild script for every entry point: the extension (vscode external), the CLI, and the
// integration-test bundle. `--watch` rebuilds on change; `--production` minifies without maps;
// `--meta` prints what takes room in the extension bundle. `--package [folder]` builds only the
// CLI's npm package into folder/dist (default packages/pi-plans): the CLI with every dependency
// inlined, and their licences.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');
const meta = process.argv.includes('--meta');
// The npm package's folder, as its caller names it (its prepack passes `.`).
const packageFlag = process.argv.indexOf('--package');
const packageArg = packageFlag < 0 ? undefined : process.argv[packageFlag + 1];
const npmPackageDir = packageFlag < 0 ? undefined : path.resolve(packageArg && !packageArg.startsWith('--') ? packageArg : path.join(repoRoot, 'packages', 'pi-plans'));
// Paths below are the repository's, whoever runs this.
process.chdir(repoRoot);

/** gray-matter's own js-yaml 3 backs engines we replace: keep it out of the bundle. */
const dropGrayMatterYaml = {
  name: 'drop-gray-matter-yaml',
  setup(build) {
    build.onResolve({ filter: /^js-yaml$/ }, (args) =>
      args.importer.includes('/gray-matter/') ? { path: 'gray-matter-js-yaml', namespace: 'stub' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({
      contents: 'module.exports = { load() { throw new Error("disabled") }, safeLoad() { throw new Error("disabled") }, dump() { throw new Error("disabled") }, safeDump() { throw new Error("disabled") } };',
      loader: 'js',
    }));
  },
};

/** zod re-exports every locale's messages; we use English only (its default). */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /locales\/index\.js$/ }, (args) =>
      args.importer.includes('/zod/') ? { path: new URL('../node_modules/zod/v4/locales/en.js', import.meta.url).pathname, namespace: 'zod-locales' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      loader: 'js',
      resolveDir: '.',
    }));
  },
};

/** jsonc-parser's `main` is a UMD build whose inner requires esbuild cannot follow: bundle its ES module build. */
const jsoncEsm = {
  name: 'jsonc-esm',
  setup(build) {
    build.onResolve({ filter: /^jsonc-parser$/ }, () => ({ path: path.join(repoRoot, 'node_modules/jsonc-parser/lib/esm/main.js') }));
  },
};

/**
 * markdown-it writes a few characters past ASCII into its regular expressions (its typographer's
 * `…`, which we never run): written as escapes here, which mean the same in a regex or a string,
 * so the CLI's bundle stays ASCII (see refuseNonAscii).
 */
const markdownItAscii = {
  name: 'markdown-it-ascii',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]markdown-it[\\/].*\.m?js$/ }, async (args) => ({
      contents: (await fs.promises.readFile(args.path, 'utf8')).replace(/[^\0-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
      loader: 'js',
    }));
  },
};

/** Problem-matcher friendly output for `npm run watch` in VS Code. */
const problemMatcher = {
  name: 'problem-matcher',
  setup(build) {
    build.onStart(() => console.log('[watch] build started'));
    build.onEnd((r) => {
      for (const e of r.errors) console.error(`✘ [ERROR] ${e.text}\n    ${e.location?.file}:${e.location?.line}:${e.location?.column}:`);
      console.log('[watch] build finished');
    });
  },
};

/** The hook's bundle must not grow the Markdown stack, the store or commander back: the build fails if it does. */
const hookStaysSmall = {
  name: 'hook-stays-small',
  setup(build) {
    build.onResolve({ filter: /^(unified|remark-[a-z]+|mdast-util-to-string|commander|@modelcontextprotocol\/sdk.*|zod.*)$|^(\.\.\/)+(store|service|node|tools|mcp|core)(\/index)?$/ }, (args) => ({
      errors: [{ text: `dist/hook.js must not load ${args.path} (imported by ${path.relative(repoRoot, args.importer)}): the hook runs on every tool call; load it from dist/cli.js when needed` }],
    }));
  },
};

/**
 * The bundles dist/bin.js loads (src/cli/bin.ts: cli.js, hook.js, hook-shell.js) must be ASCII:
 * V8 keeps a loaded script's source for as long as the process runs, and a source with one
 * character past Latin-1 (a comment's “quote”, a regex's →) is kept at two bytes per character:
 * 6 MB instead of 3 for the CLI, in every command's peak memory. Strings and identifiers esbuild
 * escapes itself; comments it keeps as they are (the CLI drops them: `minifyWhitespace`), and a
 * regular expression literal of ours writes such a character as an escape (`\u2192`).
 */
function refuseNonAscii(file) {
  const bytes = fs.readFileSync(file);
  const at = bytes.findIndex((b) => b > 0x7f);
  if (at < 0) return;
  const line = bytes.subarray(0, at).toString('utf8').split('\n').length;
  const text = bytes.subarray(bytes.lastIndexOf(0x0a, at) + 1, bytes.indexOf(0x0a, at) < 0 ? undefined : bytes.indexOf(0x0a, at)).toString('utf8');
  throw new Error(`${file}:${line} is not ASCII (${JSON.stringify(text.slice(0, 160))}): write the character as an escape (\\u2192 for →), since V8 would keep this bundle's whole source at two bytes a character in every pi-plans process`);
}

/** @type {esbuild.BuildOptions} */
const common = {
  bundle: true,
  absWorkingDir: process.cwd(), // esbuild takes the folder it was loaded in otherwise, before the chdir above
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  // jsonc-parser's main build is UMD with requires a bundler cannot follow: its ES module build instead.
  alias: { 'jsonc-parser': './node_modules/jsonc-parser/lib/esm/main.js' },
  define: { __PI_PLANS_VERSION__: JSON.stringify(JSON.parse(fs.readFileSync('package.json', 'utf8')).version) },
  plugins: [dropGrayMatterYaml, zodEnglishOnly, jsoncEsm, markdownItAscii, ...(watch ? [problemMatcher] : [])],
};

const builds = [
  { ...common, entryPoints: ['src/vscode/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'], metafile: meta },
  // Without comments (they kept non-ASCII characters: see refuseNonAscii); names and syntax as written, the map beside it.
  { ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' }, minifyWhitespace: true },
  // The `pi-plans` bin: routes `hook` to dist/hook.js before anything else loads, the rest to dist/cli.js.
  { ...common, entryPoints: ['src/cli/bin.ts'], outfile: 'dist/bin.js', banner: { js: '#!/usr/bin/env node' }, sourcemap: false, minify: true },
  // `pi-plans hook`, run by agent hosts on every tool call: no commander, no store, no Markdown stack.
  { ...common, entryPoints: ['src/hosts/hook/main.ts'], outfile: 'dist/hook.js', sourcemap: false, minify: true, metafile: true, plugins: [...common.plugins, hookStaysSmall] },
  // Its shell parser (a terminal command's reading), loaded by dist/hook.js only for a shell command.
  { ...common, entryPoints: ['src/hosts/policy/commands.ts'], outfile: 'dist/hook-shell.js', sourcemap: false, minify: true, plugins: [...common.plugins, hookStaysSmall] },
  // The extension host's Markdown parses of large plans run here, on a worker thread.
  { ...common, entryPoints: ['src/node/ports/outlineWorker.ts'], outfile: 'dist/outlineWorker.js' },
  // The plan editor's webview: a browser bundle, always minified (it has a size budget).
  { ...common, entryPoints: ['src/webview/main.ts'], outfile: 'dist/webview.js', platform: 'browser', format: 'iife', target: 'es2022', minify: true, sourcemap: false },
];
if (fs.existsSync('test/integration')) {
  builds.push({
    ...common,
    entryPoints: fs.readdirSync('test/integration').filter((f) => f.endsWith('.ts') && !f.startsWith('run')).map((f) => `test/integration/${f}`),
    outdir: 'out/test/integration',
    external: ['vscode', 'mocha'],
    sourcemap: true,
    minify: false,
  });
}

/**
 * The CLI's npm package (packages/pi-plans): one minified file that needs nothing but Node (every
 * dependency inlined, the MCP SDK too), and the licences of what it inlines.
 */
async function buildNpmPackage(dir) {
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const version = JSON.parse(fs.readFileSync('package.json', 'utf8')).version;
  if (pkg.name !== 'pi-plans') throw new Error(`${dir} is not the pi-plans npm package (its package.json names ${pkg.name})`);
  if (pkg.version !== version) throw new Error(`${path.relative(repoRoot, dir)}/package.json has version ${pkg.version} and package.json ${version}: give both the same version`);
  fs.rmSync(path.join(dir, 'dist'), { recursive: true, force: true });
  const outfile = path.join(dir, 'dist', 'cli.js');
  const result = await esbuild.build({ ...common, entryPoints: ['src/cli/main.ts'], outfile, banner: { js: '#!/usr/bin/env node' }, minify: true, sourcemap: false, metafile: true });
  // The bin, and `pi-plans hook` on its own (what agents run on every tool call): see the builds below.
  const bin = path.join(dir, 'dist', 'bin.js');
  await esbuild.build({ ...common, entryPoints: ['src/cli/bin.ts'], outfile: bin, banner: { js: '#!/usr/bin/env node' }, minify: true, sourcemap: false });
  await esbuild.build({ ...common, entryPoints: ['src/hosts/hook/main.ts'], outfile: path.join(dir, 'dist', 'hook.js'), minify: true, sourcemap: false, plugins: [...common.plugins, hookStaysSmall] });
  await esbuild.build({ ...common, entryPoints: ['src/hosts/policy/commands.ts'], outfile: path.join(dir, 'dist', 'hook-shell.js'), minify: true, sourcemap: false, plugins: [...common.plugins, hookStaysSmall] });
  // Each bundled package once (nested copies by their own folder), with its licence text.
  const packages = new Map();
  for (const input of Object.keys(Object.values(result.metafile.outputs)[0].inputs)) {
    if (/^[a-z-]+:/.test(input)) continue; // a plugin's stand-in (zod's English locale is zod's own file too)
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) packages.set(m[1], true);
  }
  const notices = [...packages.keys()].sort().map((folder) => {
    const p = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8'));
    const file = fs.readdirSync(folder).find((f) => /^(licen[cs]e|copying)([-.]|$)/i.test(f));
    if (!file) throw new Error(`${folder} has no licence file: the npm package cannot ship it without one`);
    return `${p.name}@${p.version} (${p.license})\n\n${fs.readFileSync(path.join(folder, file), 'utf8').trim()}\n`;
  });
  fs.writeFileSync(path.join(dir, 'dist', 'THIRD-PARTY-NOTICES.txt'), `The pi-plans CLI (dist/cli.js, and dist/hook.js and dist/hook-shell.js of a few of them) includes the following packages.\n\n${notices.join(`\n${'-'.repeat(72)}\n\n`)}`);
  for (const f of [outfile, path.join(dir, 'dist', 'hook.js'), path.join(dir, 'dist', 'hook-shell.js')]) refuseNonAscii(f);
  fs.chmodSync(outfile, 0o755);
  fs.chmodSync(bin, 0o755);
  console.log(`${path.relative(repoRoot, outfile)} ${(fs.statSync(outfile).size / 1024).toFixed(0)} KB (minified, ${packages.size} packages inlined), version ${version}`);
}
if (npmPackageDir) {
  await buildNpmPackage(npmPackageDir);
  process.exit(0);
}

// Codicons for the plan editor (the icon font VS Code draws with), beside its bundle.
fs.mkdirSync('dist/codicons', { recursive: true });
for (const f of ['codicon.css', 'codicon.ttf']) fs.copyFileSync(path.join('node_modules/@vscode/codicons/dist', f), path.join('dist/codicons', f));
// The icons are CC BY 4.0 (Microsoft): their licence travels with them.
fs.copyFileSync('node_modules/@vscode/codicons/LICENSE', 'dist/codicons/LICENSE');
// The plan editor's stylesheet beside its bundle: the webview may load from dist/ and nothing else.
fs.copyFileSync('media/planEditor.css', 'dist/planEditor.css');

// The chat files (the Planner agent, the planning prompt files), made from the strategy module.
{
  const gen = await esbuild.build({ ...common, plugins: [], entryPoints: ['src/tools/chatFiles.ts'], format: 'esm', write: false, sourcemap: false, minify: false });
  const url = `data:text/javascript;base64,${Buffer.from(gen.outputFiles[0].text).toString('base64')}`;
  const { chatFiles } = await import(url);
  fs.rmSync('dist/chat', { recursive: true, force: true });
  for (const f of chatFiles()) {
    fs.mkdirSync(path.dirname(path.join('dist/chat', f.path)), { recursive: true });
    fs.writeFileSync(path.join('dist/chat', f.path), f.text);
  }
}

if (watch) {
  for (const b of builds) await (await esbuild.context(b)).watch();
} else {
  const results = await Promise.all(builds.map((b) => esbuild.build(b)));
  for (const f of ['dist/cli.js', 'dist/hook.js', 'dist/hook-shell.js']) refuseNonAscii(f);
  const size = fs.statSync('dist/extension.js').size;
  console.log(`dist/extension.js ${(size / 1024).toFixed(0)} KB${production ? ' (minified)' : ''}, dist/cli.js ${(fs.statSync('dist/cli.js').size / 1024).toFixed(0)} KB, dist/hook.js ${(fs.statSync('dist/hook.js').size / 1024).toFixed(0)} KB (+ ${(fs.statSync('dist/hook-shell.js').size / 1024).toFixed(0)} KB for a shell command), dist/webview.js ${(fs.statSync('dist/webview.js').size / 1024).toFixed(0)} KB (minified)`);
  if (meta) {
    const byPackage = new Map();
    for (const [file, info] of Object.entries(results[0].metafile.outputs['dist/extension.js'].inputs)) {
      const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
      const key = m ? m[1] : file.split('/').slice(0, 2).join('/');
      byPackage.set(key, (byPackage.get(key) ?? 0) + info.bytesInOutput);
    }
    for (const [k, v] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${(v / 1024).toFixed(1).padStart(7)} KB  ${k}`);
  }
}
