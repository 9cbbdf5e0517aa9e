// Puts the example dataset into dist/example/ for the packaged extension ("Run a benchmark…" → the
// example dataset): tasks.jsonl, the five fixture repositories under repos/ (their committed files
// only, no build products), and a manifest pointing at them. examples/fixtures/ points into test/,
// which the package leaves out. Run by `npm run package`; `node scripts/package-example.mjs [outDir]`.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'examples', 'fixtures');
const out = resolve(process.argv[2] ?? join(root, 'dist', 'example'));
const { repositories } = JSON.parse(readFileSync(join(source, 'manifest.json'), 'utf8'));

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
copyFileSync(join(source, 'tasks.jsonl'), join(out, 'tasks.jsonl'));
const packaged = {};
let files = 0;
for (const [name, entry] of Object.entries(repositories)) {
  const checkout = resolve(source, entry.checkout);
  // Committed files only: a developer's target/, vendor/ or caches stay out of the package.
  const tracked = execFileSync('git', ['-C', checkout, 'ls-files', '-z', '--', '.'], { encoding: 'utf8' }).split('\0').filter(Boolean);
  if (!tracked.length) throw new Error(`${checkout}: no committed files (is this a git checkout?)`);
  for (const rel of tracked) {
    const to = join(out, 'repos', name, rel);
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(join(checkout, rel), to);
    files++;
  }
  packaged[name] = { ...entry, checkout: `repos/${name}` };
}
writeFileSync(join(out, 'manifest.json'), JSON.stringify({ repositories: packaged }, null, 2) + '\n');
console.log(`example dataset: ${Object.keys(packaged).length} repositories, ${files} files in ${out}`);
