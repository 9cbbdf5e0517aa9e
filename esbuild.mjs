// Bundles the CLI, the engine server and the extension (one file each, CommonJS, Node 20), and
// copies the tree-sitter runtime's .wasm next to them. Grammars stay in grammars/ (see VERSIONS.md).
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, chmodSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const watch = process.argv.includes('--watch');
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

mkdirSync('dist', { recursive: true });
copyFileSync(require.resolve('web-tree-sitter/tree-sitter.wasm'), 'dist/tree-sitter.wasm');

await Promise.all([
  build({ ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } }),
  build({ ...common, entryPoints: ['src/server/main.ts'], outfile: 'dist/server.js' }),
  build({ ...common, entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'] }),
  build({ ...common, entryPoints: ['bench/extract.ts'], outfile: 'dist/bench-extract.js' }),
  build({ ...common, entryPoints: ['bench/execute.ts'], outfile: 'dist/bench-execute.js' }),
  build({ ...common, entryPoints: ['bench/environments.ts'], outfile: 'dist/bench-environments.js' }),
  build({ ...common, entryPoints: ['bench/scale.ts'], outfile: 'dist/bench-scale.js' }),
]);
chmodSync('dist/cli.js', 0o755);
if (watch) console.log('esbuild: --watch is not supported; rerun `npm run build`');
