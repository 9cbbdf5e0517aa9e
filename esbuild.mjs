// Bundles the engine server and the extension (one file each, CommonJS, Node 20), the CLI (ES module
// chunks, below), and copies the tree-sitter runtime's .wasm next to them. Grammars stay in grammars/
// (see VERSIONS.md).
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, chmodSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';

const require = createRequire(import.meta.url);
const watch = process.argv.includes('--watch');
// `--clean`: drop every chunk an earlier build left in dist/cli/ at once (`npm run package`: the .vsix holds this build's only).
const clean = process.argv.includes('--clean');
// esbuild picks web-tree-sitter's ESM build for `import`, whose `import.meta.url` is empty in a CommonJS
// bundle; its CommonJS build finds the runtime .wasm through __dirname instead.
const treeSitterCjs = {
  name: 'web-tree-sitter-cjs',
  setup(b) {
    b.onResolve({ filter: /^web-tree-sitter$/ }, () => ({ path: require.resolve('web-tree-sitter') }));
  },
};
const common = {
  bundle: true, platform: 'node', target: 'node20', format: 'cjs', sourcemap: true, logLevel: 'warning',
  plugins: [treeSitterCjs],
  // dockerode's ssh2 loads optional native modules inside try/catch; only ssh:// engine addresses need them.
  external: ['web-tree-sitter/tree-sitter.wasm', 'cpu-features', '*.node'],
};

// The CLI loads what a verb needs when it runs (src/cli/main.ts: `await import()` in each action). esbuild
// splits only ES modules, so the CLI is ES module chunks in dist/cli/ (.mjs: ES modules whatever
// package.json says), each dynamically imported module graph a chunk, shared code in shared chunks;
// `node dist/cli.js --help` reads commander and the flags, `run` adds the scoring, never the queue, the
// Docker client or the model SDKs. The bundled CommonJS packages call `require` and read `__dirname`:
// every chunk defines both for itself (`__dirname` is the chunk's folder, dist/cli/; the engine finds
// grammars/ by walking up from it, util/resources.ts).
const CLI_CHUNK_BANNER = [
  "import { createRequire as __xrtCreateRequire } from 'node:module';",
  "import { fileURLToPath as __xrtFileURLToPath } from 'node:url';",
  'const require = __xrtCreateRequire(import.meta.url);',
  'const __xrtFilename = __xrtFileURLToPath(import.meta.url);',
  "const __xrtDirname = __xrtFileURLToPath(new URL('.', import.meta.url)).replace(/\\/$/, '');",
].join('\n');
const cli = {
  ...common,
  format: 'esm',
  splitting: true,
  entryPoints: { xrepotest: 'src/cli/bin.ts' },
  outdir: 'dist/cli',
  outExtension: { '.js': '.mjs' },
  entryNames: '[name]',
  chunkNames: '[name]-[hash]',
  banner: { js: CLI_CHUNK_BANNER },
  // Only free references: a module's own `__dirname` binding stays its own.
  define: { __dirname: '__xrtDirname', __filename: '__xrtFilename' },
};

/** Writes a file whole or not at all (a temporary file renamed over it): a process starting now reads the old or the new. */
function writeWhole(file, contents) {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, contents);
  renameSync(tmp, file);
}

/**
 * The work tree is shared: while this build runs, other processes start `node dist/cli.js`, and a
 * running one (a bench, a worker, an MCP server) imports a verb's or an executor's chunks when it
 * first needs them. So nothing is removed first: the new chunks are written beside the old (a chunk's
 * name is its content's hash), each whole, the entry last; an earlier build's chunks are removed once
 * nothing has written them for an hour (with --clean, now).
 */
const STALE_CHUNK_MS = 60 * 60 * 1000;
async function buildCli() {
  const { outputFiles } = await build({ ...cli, write: false });
  const dir = path.resolve(cli.outdir);
  const entry = path.join(dir, 'xrepotest.mjs');
  mkdirSync(dir, { recursive: true });
  for (const f of [...outputFiles].sort((a, b) => (a.path === entry) - (b.path === entry))) writeWhole(f.path, f.contents);
  const current = new Set(outputFiles.map((f) => f.path));
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (current.has(file)) continue;
    try {
      if (clean || Date.now() - statSync(file).mtimeMs > STALE_CHUNK_MS) rmSync(file, { force: true });
    } catch {
      /* another build removed it */
    }
  }
}

// `node dist/cli.js` and package.json's bin: CommonJS (the package is), starting the ES module entry.
const CLI_SHIM =
  "#!/usr/bin/env node\n// The xrepotest CLI: ES module chunks in dist/cli/ (esbuild.mjs), started from here.\n" +
  "import('./cli/xrepotest.mjs').catch((e) => {\n  process.stderr.write(`xrepotest: ${(e && e.stack) || e}\\n`);\n  process.exitCode = 1;\n});\n";

mkdirSync('dist', { recursive: true });
copyFileSync(require.resolve('web-tree-sitter/tree-sitter.wasm'), 'dist/tree-sitter.wasm');
// The line tracer's Go source, which the engine builds on the user's machine (src/engine/tracer/build.ts):
// an installed extension has dist/ and no src/.
mkdirSync('dist/linetrace', { recursive: true });
copyFileSync('src/engine/tracer/linetrace/main.go', 'dist/linetrace/main.go');
rmSync('dist/cli.js.map', { force: true }); // the single CommonJS bundle's, before the chunks

await Promise.all([
  buildCli(),
  build({ ...common, entryPoints: ['src/server/main.ts'], outfile: 'dist/server.js' }),
  build({ ...common, entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'] }),
  build({ ...common, entryPoints: ['bench/extract.ts'], outfile: 'dist/bench-extract.js' }),
  build({ ...common, entryPoints: ['bench/execute.ts'], outfile: 'dist/bench-execute.js' }),
  build({ ...common, entryPoints: ['bench/environments.ts'], outfile: 'dist/bench-environments.js' }),
  build({ ...common, entryPoints: ['bench/first-score.ts'], outfile: 'dist/bench-first-score.js' }),
  build({ ...common, entryPoints: ['bench/scale.ts'], outfile: 'dist/bench-scale.js' }),
  build({ ...common, entryPoints: ['bench/cli-start.ts'], outfile: 'dist/bench-cli-start.js' }),
  build({ ...common, entryPoints: ['bench/docker-restart.ts'], outfile: 'dist/bench-docker-restart.js' }),
]);
// Last, once its entry exists; rewritten only when it differs from what is there (a build before the chunks: the whole CLI).
let shim = null;
try {
  shim = readFileSync('dist/cli.js', 'utf8');
} catch {
  /* a fresh checkout */
}
if (shim !== CLI_SHIM) writeWhole('dist/cli.js', CLI_SHIM);
chmodSync('dist/cli.js', 0o755);
if (watch) console.log('esbuild: --watch is not supported; rerun `npm run build`');
