import * as fs from 'node:fs';
import * as path from 'node:path';
import { extractRepository } from '../../src/engine/extract/extract';
import type { LanguageId } from '../../src/engine/parse/grammars';
import type { TaskRecord } from '../../src/engine/tasks/record';
import { REPO_ROOT, fixture } from './paths';

export const FIXTURE_OF: Record<LanguageId, string> = {
  go: 'inventory-go',
  rust: 'geometry-rs',
  php: 'textkit-php',
  ruby: 'bookshelf-rb',
  julia: 'MiniStats.jl',
};

/** The kept function each language's hand-written tests (test/data/generated) aim at. */
export const FOCAL_OF: Record<LanguageId, string> = {
  go: 'Status',
  rust: 'classify_triangle',
  php: 'slugify',
  ruby: 'search',
  julia: 'histogram',
};

const EXT: Record<LanguageId, string> = { go: 'go', rust: 'rs', php: 'php', ruby: 'rb', julia: 'jl' };

export const TOOLS_OF: Record<LanguageId, string[]> = {
  go: ['go'],
  rust: ['cargo', 'llvm-profdata-22'],
  php: ['php', 'phpunit'],
  ruby: ['ruby', 'rspec'],
  julia: ['julia'],
};

const cache = new Map<LanguageId, TaskRecord>();

/** The fixture task for a language's focal function, extracted for real. */
export async function fixtureTask(language: LanguageId): Promise<TaskRecord> {
  let task = cache.get(language);
  if (!task) {
    const dir = fixture(FIXTURE_OF[language]);
    const { tasks } = await extractRepository(dir, { repository: { name: FIXTURE_OF[language], url: dir, commit: null, path: dir } });
    task = tasks.find((t) => t.function_name === FOCAL_OF[language]);
    if (!task) throw new Error(`no task ${FOCAL_OF[language]} in ${dir}`);
    cache.set(language, task);
  }
  return task;
}

export function generatedTest(language: LanguageId, name: 'pass' | 'fail' | 'nocompile' | 'noinvoke'): string {
  return fs.readFileSync(path.join(REPO_ROOT, 'test', 'data', 'generated', language, `${name}.${EXT[language]}`), 'utf8');
}

/** A digest of every file under a folder (paths and bytes), to prove a run left it unchanged. */
export function treeDigest(dir: string): string {
  const { createHash } = require('node:crypto') as typeof import('node:crypto');
  const h = createHash('sha256');
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(d, e.name);
      h.update(path.relative(dir, p) + '\0');
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) h.update(fs.readFileSync(p));
      else if (e.isSymbolicLink()) h.update('link:' + fs.readlinkSync(p));
    }
  };
  walk(dir);
  return h.digest('hex');
}
