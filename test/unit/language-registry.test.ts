import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { baselineReply } from '../../src/engine/generate/baseline';
import { adapterFor, LANGUAGE_IDS } from '../../src/engine/languages';
import type { LanguageAdapter } from '../../src/engine/languages/types';
import { extractTest } from '../../src/engine/prompt/extract-test';
import { systemPromptFor } from '../../src/engine/prompt/templates';
import { failureRulesFor } from '../../src/engine/score/failure';
import { tamperingRulesFor } from '../../src/engine/score/tampering';
import { REPO_ROOT } from '../helpers/paths';

const ENGINE = path.join(REPO_ROOT, 'src', 'engine');

/** The scoring parts every adapter holds, and the file of its folder each one lives in. */
const SCORING_PARTS: ReadonlyArray<[keyof LanguageAdapter, string]> = [
  ['failureRules', 'failures.ts'],
  ['invocation', 'invocation.ts'],
  ['tampering', 'tampering.ts'],
  ['mutationOperators', 'mutation.ts'],
  ['baseline', 'baseline.ts'],
  ['prompt', 'prompt.ts'],
  ['suite', 'suite.ts'],
];

/** The language-neutral registries and machinery that look the scoring parts up (no language named in them). */
const NEUTRAL = [
  'score/failure.ts',
  'score/failure-rules.ts',
  'score/invocation.ts',
  'score/invocation-target.ts',
  'score/tampering.ts',
  'score/tampering-rules.ts',
  'mutate/mutants.ts',
  'mutate/types.ts',
  'mutate/edits.ts',
  'generate/baseline/index.ts',
  'generate/baseline/common.ts',
  'prompt/templates.ts',
  'prompt/language-prompt.ts',
  'prompt/extract-test.ts',
  'prompt/focal-code.ts',
  'prompt/context.ts',
];

/** Source without comments, so a comment that gives a language as an example is not a mention. */
function code(rel: string): string {
  return fs.readFileSync(path.join(ENGINE, rel), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
}

describe('language registry: the scoring parts', () => {
  for (const id of LANGUAGE_IDS) {
    describe(id, () => {
      const adapter = adapterFor(id);

      it('holds every scoring part, each from its own file of the language folder', () => {
        for (const [part, file] of SCORING_PARTS) {
          assert.ok(adapter[part] !== undefined && adapter[part] !== null, `${id}: ${part}`);
          assert.ok(fs.existsSync(path.join(ENGINE, 'languages', id, file)), `languages/${id}/${file}`);
        }
        assert.equal(typeof adapter.invocation.find, 'function');
        assert.equal(typeof adapter.mutationOperators, 'function');
        assert.equal(typeof adapter.baseline, 'function');
        assert.equal(typeof adapter.failureRules.typeCheckedCompile, 'boolean');
        assert.equal(typeof adapter.prompt.wrapsMethodInClass, 'boolean');
      });

      it('holds the native test command (the benchmark reference) from native.ts of its folder', () => {
        assert.equal(typeof adapter.native.mark, 'function');
        assert.equal(typeof adapter.native.prepare, 'function');
        assert.ok(fs.existsSync(path.join(ENGINE, 'languages', id, 'native.ts')), `languages/${id}/native.ts`);
        const marked = adapter.native.mark('body', 'xrt-marker');
        assert.ok(marked.includes('xrt-marker') && marked.includes('body'), 'the marker is added, the test kept');
      });

      it('has failure patterns and tampering signs with ids of its own, looked up through the adapter', () => {
        assert.ok(adapter.failureRules.patterns.length > 0);
        assert.ok(adapter.tampering.signs.length > 0);
        const ids = [...adapter.failureRules.patterns.map((p) => p.id), ...adapter.tampering.signs.map((s) => s.id)];
        assert.equal(new Set(ids).size, ids.length, 'duplicate rule ids');
        assert.equal(failureRulesFor(id), adapter.failureRules);
        assert.equal(tamperingRulesFor(id), adapter.tampering);
      });

      it('reads back the tests it fences: a baseline reply and every fence tag it claims', () => {
        const test = 'line one\n\nline two';
        assert.equal(extractTest(baselineReply(test, id), id), test);
        assert.ok(adapter.prompt.fenceTags.has(adapter.prompt.fence), 'the fence it writes is a tag it reads');
        for (const tag of adapter.prompt.fenceTags) assert.equal(extractTest('```' + tag + '\n' + test + '\n```', id), test);
        assert.ok(systemPromptFor(id).includes('```' + adapter.prompt.fence + '\n'), 'the system prompt shows the fence');
      });
    });
  }

  it('gives no fence tag to two languages (a reply block would be read as both)', () => {
    const owner = new Map<string, string>();
    for (const id of LANGUAGE_IDS) {
      for (const tag of adapterFor(id).prompt.fenceTags) {
        assert.equal(owner.get(tag), undefined, `${tag}: ${owner.get(tag)} and ${id}`);
        owner.set(tag, id);
      }
    }
  });

  it('leaves the registries language-neutral: no language folder imported, no language id spelled', () => {
    const ids = LANGUAGE_IDS.join('|');
    const mentions = NEUTRAL.flatMap((rel) => {
      const text = code(rel);
      const found = [
        ...text.matchAll(new RegExp(`from\\s+['"][./]*languages/(${ids})\\b[^'"]*['"]`, 'g')),
        ...text.matchAll(new RegExp(`['"\`](${ids})['"\`]`, 'g')),
      ];
      return found.map((m) => `${rel}: ${m[0]}`);
    });
    assert.deepEqual(mentions, []);
  });

  it('the neutrality check sees a mention (it can fail)', () => {
    const ids = LANGUAGE_IDS.join('|');
    const sample = "import { goFailureRules } from '../languages/go/failures';\nif (language === 'go') {}";
    assert.equal([...sample.matchAll(new RegExp(`from\\s+['"][./]*languages/(${ids})\\b[^'"]*['"]`, 'g'))].length, 1);
    assert.equal([...sample.matchAll(new RegExp(`['"\`](${ids})['"\`]`, 'g'))].length, 1);
  });
});
