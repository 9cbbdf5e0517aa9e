// Rebuilds examples/fixtures/: the example dataset (tasks extracted from the five fixture projects)
// and its manifest (where each repository is checked out, relative to the manifest). Portable: no
// machine path enters the records. `npm run build && node scripts/make-example-dataset.mjs`; a test
// checks that the committed files equal a fresh extraction.
import { execFileSync } from 'node:child_process';
import { writeFileSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const FIXTURES = ['geometry-rs', 'inventory-go', 'textkit-php', 'bookshelf-rb', 'MiniStats.jl'];
const out = join(root, 'examples', 'fixtures');
const tmp = mkdtempSync(join(tmpdir(), 'xrt-example-'));
try {
  const tasksFile = join(tmp, 'tasks.jsonl');
  execFileSync(process.execPath, [join(root, 'dist', 'cli.js'), 'extract', ...FIXTURES.map((f) => join(root, 'test', 'fixtures', f)), '--out', tasksFile, '--no-progress'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const tasks = readFileSync(tasksFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  for (const t of tasks) t.repository = { name: t.repository.name, url: `test/fixtures/${t.repository.name}`, commit: null };
  writeFileSync(join(out, 'tasks.jsonl'), tasks.map((t) => JSON.stringify(t)).join('\n') + '\n');
  const repositories = Object.fromEntries(FIXTURES.map((f) => [f, { checkout: `../../test/fixtures/${f}`, commit: null }]));
  writeFileSync(join(out, 'manifest.json'), JSON.stringify({ repositories }, null, 2) + '\n');
  console.log(`wrote ${tasks.length} tasks and the manifest to ${out}`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
