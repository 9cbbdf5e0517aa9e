// Refreshes grammars/*.wasm.gz from the pinned grammar packages on npm. Only the compiled grammars
// are shipped (about 3 MB gzipped); the grammar packages themselves are 178 MB installed.
// Run by hand when a grammar version changes: `node scripts/update-grammars.mjs`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Pinned together: different builds of one grammar shape trees differently (notes/toolchains.md).
const grammars = [
  { id: 'rust', pkg: 'tree-sitter-rust@0.24.0', wasm: 'tree-sitter-rust.wasm' },
  { id: 'go', pkg: 'tree-sitter-go@0.25.0', wasm: 'tree-sitter-go.wasm' },
  { id: 'php', pkg: 'tree-sitter-php@0.24.2', wasm: 'tree-sitter-php.wasm' },
  { id: 'ruby', pkg: 'tree-sitter-ruby@0.23.1', wasm: 'tree-sitter-ruby.wasm' },
  { id: 'julia', pkg: 'tree-sitter-julia@0.23.1', wasm: 'tree-sitter-julia.wasm' },
];

const work = mkdtempSync(join(tmpdir(), 'xrt-grammars-'));
try {
  const lines = [];
  for (const g of grammars) {
    const out = execFileSync('npm', ['pack', g.pkg, '--silent'], { cwd: work, encoding: 'utf8' }).trim().split('\n').pop();
    const unpack = join(work, g.id);
    execFileSync('mkdir', ['-p', unpack]);
    execFileSync('tar', ['-xzf', join(work, out), '-C', unpack]);
    const wasm = readFileSync(join(unpack, 'package', g.wasm));
    writeFileSync(join(root, 'grammars', `${g.id}.wasm.gz`), gzipSync(wasm, { level: 9 }));
    lines.push(`| ${g.id} | ${g.pkg} | ${g.wasm} | ${wasm.length} |`);
  }
  writeFileSync(join(root, 'grammars', 'VERSIONS.md'),
    '# Grammars shipped with xrepotest\n\nGzipped copies of the compiled grammars from these npm packages ' +
    '(made by `node scripts/update-grammars.mjs`), loaded by web-tree-sitter 0.25.10.\n\n' +
    '| language | package | file | bytes (unzipped) |\n|---|---|---|---|\n' + lines.join('\n') + '\n');
  console.log(readdirSync(join(root, 'grammars')).join('\n'));
} finally {
  rmSync(work, { recursive: true, force: true });
}
