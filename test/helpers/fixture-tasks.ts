import { extractRepository } from '../../src/engine/extract/extract';
import type { LanguageId } from '../../src/engine/parse/grammars';
import type { TaskRecord } from '../../src/engine/tasks/record';
import { FIXTURE_OF } from './evaluate';
import { fixture } from './paths';

/* Shared by test/unit/baseline.test.ts and test/integration/baseline.test.ts. */

const tasksByLanguage = new Map<LanguageId, Promise<TaskRecord[]>>();

/** Every kept task of a language's fixture, extracted for real. */
export function fixtureTasks(language: LanguageId): Promise<TaskRecord[]> {
  let p = tasksByLanguage.get(language);
  if (!p) {
    const dir = fixture(FIXTURE_OF[language]);
    p = extractRepository(dir, { languages: [language], repository: { name: FIXTURE_OF[language], url: dir, commit: null, path: dir } }).then((r) => r.tasks);
    tasksByLanguage.set(language, p);
  }
  return p;
}
