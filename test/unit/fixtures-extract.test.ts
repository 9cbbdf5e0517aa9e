import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { extractRepository, type ExtractResult } from '../../src/engine/extract/extract';
import type { LanguageId } from '../../src/engine/parse/grammars';
import { FIXTURES, fixture } from '../helpers/paths';

interface Expected {
  repo_dir: string;
  seen: number;
  kept: number;
  dropped: Record<string, number>;
  tasks: Array<Record<string, string | number>>;
}

const SCOPE_KEY: Record<LanguageId, string> = { rust: 'module', go: 'package', php: 'namespace', ruby: 'module', julia: 'module' };
const LANGS: LanguageId[] = ['rust', 'go', 'php', 'ruby', 'julia'];

describe('extraction on the fixture repositories', () => {
  for (const lang of LANGS) {
    const expected = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'expected', `${lang}.json`), 'utf8')) as Expected;

    describe(`${lang} (${expected.repo_dir})`, () => {
      let result: ExtractResult;
      before(async () => {
        result = await extractRepository(fixture(expected.repo_dir), {
          repository: { name: expected.repo_dir, url: fixture(expected.repo_dir), commit: null },
        });
      });

      it('sees, keeps and drops exactly the expected numbers of functions, per rule', () => {
        const counts = result.summary.languages[lang]!;
        assert.equal(counts.seen, expected.seen, 'seen');
        assert.equal(counts.kept, expected.kept, 'kept');
        assert.deepEqual(counts.dropped, expected.dropped);
        assert.equal(counts.kept + Object.values(counts.dropped).reduce((a, b) => a + b, 0), counts.seen);
      });

      it('yields exactly the expected tasks, in order, with their metadata', () => {
        const got = result.tasks.map((t) => {
          const row: Record<string, string | number> = {
            function_name: t.function_name,
            file_path: t.file_path,
            start_line: t.function_component.start_line,
            end_line: t.function_component.end_line,
            class_name: t.metadata.class_name,
            class_signature: t.metadata.class_signature,
            [SCOPE_KEY[lang]]: t.metadata[SCOPE_KEY[lang]] as string,
          };
          if (t.metadata.method_kind !== undefined) row.method_kind = t.metadata.method_kind as string;
          return row;
        });
        assert.deepEqual(got, expected.tasks);
      });

      it('writes records whose focal code is exactly lines start..end of the file content', () => {
        for (const t of result.tasks) {
          const lines = t.file_content.split('\n');
          const { start_line, end_line } = t.function_component;
          assert.equal(t.focal_code, lines.slice(start_line - 1, end_line).join('\n'), `${t.file_path}:${start_line}`);
          const onDisk = fs.readFileSync(path.join(FIXTURES, t.file_path), 'utf8');
          assert.equal(t.file_content, onDisk);
          assert.equal(t.language, lang);
          assert.match(t.id!, /^[0-9a-f]{16}$/);
          assert.ok(t.function_component.signature.length > 0);
        }
        assert.deepEqual(result.tasks.map((t) => t.task_id), result.tasks.map((_, i) => i));
        assert.equal(new Set(result.tasks.map((t) => t.id)).size, result.tasks.length);
      });

      it('gives the same ids when extracted again from another location', async () => {
        const again = await extractRepository(fixture(expected.repo_dir), {
          repository: { name: expected.repo_dir, url: '/elsewhere/' + expected.repo_dir, commit: 'abc' },
          firstTaskId: { [lang]: 100 },
        });
        assert.deepEqual(again.tasks.map((t) => t.id), result.tasks.map((t) => t.id));
        assert.equal(again.tasks[0].task_id, 100);
      });
    });
  }

  it('extracts only the requested languages', async () => {
    const r = await extractRepository(fixture('geometry-rs'), { languages: ['go'], repository: { name: 'x', url: 'x', commit: null } });
    assert.equal(r.tasks.length, 0);
    assert.equal(r.summary.files.parsed, 0);
  });

  it('applies configurable line bounds', async () => {
    const r = await extractRepository(fixture('geometry-rs'), {
      filters: { minLines: 1, maxLines: 1000 },
      repository: { name: 'geometry-rs', url: 'x', commit: null },
    });
    const counts = r.summary.languages.rust!;
    assert.equal(counts.dropped['min-lines'], 0);
    assert.equal(counts.dropped['max-lines'], 0);
    assert.ok(counts.kept > 5, `kept ${counts.kept}`);
  });
});
