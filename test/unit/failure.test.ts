import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LANGUAGE_IDS, type LanguageId } from '../../src/engine/languages';
import {
  classifyFailure,
  failureRulesFor,
  type ApiHallucinationKind,
  type FailureInput,
  type FailurePattern,
} from '../../src/engine/score/failure';
import { REPO_ROOT } from '../helpers/paths';

const DATA = path.join(REPO_ROOT, 'test', 'data', 'failures');

function input(over: Partial<FailureInput> & Pick<FailureInput, 'language'>): FailureInput {
  return { testCode: 'a test', compiled: true, compileLog: '', passed: true, testLog: '', coveredLines: 5, ...over };
}

function patternById(language: LanguageId, id: string): FailurePattern {
  const p = failureRulesFor(language).patterns.find((x) => x.id === id);
  if (!p) throw new Error(`${language}: no pattern ${id}`);
  return p;
}

describe('classifyFailure: the J.2 decision tree', () => {
  describe('preprocessing', () => {
    it('calls an empty or whitespace-only test syntactic, whatever the phases said', () => {
      for (const testCode of ['', '  \n\t ']) {
        assert.deepEqual(classifyFailure(input({ language: 'go', testCode, compiled: true, passed: true, coveredLines: 9 })), {
          category: 'syntactic-compilation',
          rule: 'empty-test',
        });
      }
    });

    it('calls a log saying "no tests generated" syntactic (the release marks filtered responses so)', () => {
      const v = classifyFailure(input({ language: 'ruby', compiled: false, compileLog: 'No tests generated for this sample' }));
      assert.equal(v?.rule, 'empty-test');
      assert.equal(v?.category, 'syntactic-compilation');
    });
  });

  describe('compile failures', () => {
    const goApi = './x_test.go:6:7: undefined: NewManager';
    const goType = './x_test.go:9:12: cannot use "x" (untyped string constant) as int value in argument to it.Status';

    it('static languages: API hallucination first, with the J.3 sub-category', () => {
      const v = classifyFailure(input({ language: 'go', compiled: false, passed: false, compileLog: `# pkg\n${goApi}\n` }));
      assert.deepEqual(v, { category: 'api-hallucination', rule: 'go-undefined', evidence: goApi, subcategory: 'non-existent-api' });
    });

    it('static languages: API hallucination outranks a type error even when the type error comes first', () => {
      const v = classifyFailure(input({ language: 'go', compiled: false, passed: false, compileLog: `${goType}\n${goApi}\n` }));
      assert.equal(v?.category, 'api-hallucination');
      assert.equal(v?.rule, 'go-undefined');
    });

    it('static languages: a type error without any API error is Type System & Memory', () => {
      const v = classifyFailure(input({ language: 'go', compiled: false, passed: false, compileLog: `${goType}\n` }));
      assert.equal(v?.category, 'type-system-memory');
      assert.equal(v?.rule, 'go-cannot-use');
      assert.equal(v?.subcategory, undefined);
    });

    it('static languages: anything else falls back to Syntactic & Compilation', () => {
      const v = classifyFailure(input({ language: 'rust', compiled: false, passed: false, compileLog: 'error: linker `cc` not found\n' }));
      assert.deepEqual(v, { category: 'syntactic-compilation', rule: 'fallback' });
    });

    it('dynamic languages: always syntactic, even when the log names an undefined method', () => {
      for (const language of ['php', 'ruby', 'julia'] as const) {
        const v = classifyFailure(
          input({ language, compiled: false, passed: false, compileLog: 'Error: Call to undefined method Foo::bar()\nUndefVarError: `x` not defined\nTypeError: x' }),
        );
        assert.deepEqual(v, { category: 'syntactic-compilation', rule: 'fallback' }, language);
      }
    });

    it('within a category, the error the tool reported first decides the sub-category', () => {
      const missing = 'x_test.go:5:2: no required module provides package github.com/stretchr/testify/assert';
      const args = './x_test.go:9:5: not enough arguments in call to it.Status';
      assert.equal(classifyFailure(input({ language: 'go', compiled: false, compileLog: `${missing}\n${args}` }))?.subcategory, 'phantom-library');
      assert.equal(classifyFailure(input({ language: 'go', compiled: false, compileLog: `${args}\n${missing}` }))?.subcategory, 'signature-mismatch');
    });
  });

  describe('runtime failures', () => {
    it('static languages: runtime type errors (panics) are Type System & Memory', () => {
      const v = classifyFailure(input({ language: 'go', passed: false, testLog: 'panic: runtime error: index out of range [0] with length 0\n' }));
      assert.equal(v?.category, 'type-system-memory');
      assert.equal(v?.rule, 'go-index-out-of-range');
    });

    it('static languages: API patterns are not checked at runtime; the rest is Logic & Assertion', () => {
      const v = classifyFailure(input({ language: 'go', passed: false, testLog: '--- FAIL: TestX\n    x_test.go:8: undefined: wanted 3, got 2\n' }));
      assert.deepEqual(v, { category: 'logic-assertion', rule: 'fallback' });
    });

    it('dynamic languages: API hallucination, then type system, then logic', () => {
      const api = 'Error: Call to undefined method Textkit\\Slugger::nope()';
      const type = 'TypeError: Textkit\\Slugger::slugify(): Argument #1 ($text) must be of type string, int given';
      assert.equal(classifyFailure(input({ language: 'php', passed: false, testLog: `1) A::b\n${type}\n2) A::c\n${api}\n` }))?.rule, 'php-undefined-method');
      assert.equal(classifyFailure(input({ language: 'php', passed: false, testLog: `1) A::b\n${type}\n` }))?.category, 'type-system-memory');
      assert.deepEqual(classifyFailure(input({ language: 'php', passed: false, testLog: 'Failed asserting that false is true.' })), {
        category: 'logic-assertion',
        rule: 'fallback',
      });
    });

    it('a timed-out run is a runtime failure: a pattern if one hits, else Logic & Assertion', () => {
      assert.deepEqual(classifyFailure(input({ language: 'rust', compiled: true, passed: true, timedOut: true, testLog: 'running 1 test\n' })), {
        category: 'logic-assertion',
        rule: 'fallback',
      });
      const v = classifyFailure(input({ language: 'rust', passed: false, timedOut: true, testLog: "thread 'main' has overflowed its stack\n" }));
      assert.equal(v?.rule, 'rust-stack-overflow');
    });

    it('reads go test -json: the panic is inside an escaped Output string', () => {
      const event = { Action: 'output', Package: 'example.com/x', Test: 'TestA', Output: 'panic: interface conversion: interface {} is string, not int [recovered]\n' };
      const v = classifyFailure(input({ language: 'go', passed: false, testLog: `${JSON.stringify({ Action: 'run', Test: 'TestA' })}\n${JSON.stringify(event)}\n` }));
      assert.equal(v?.rule, 'go-interface-conversion');
      assert.equal(v?.evidence, 'panic: interface conversion: interface {} is string, not int [recovered]');
    });

    it("reads cargo's JSON: the rendered diagnostic counts, the code's long explanation does not", () => {
      const msg = {
        reason: 'compiler-message',
        message: {
          rendered: 'error[E0308]: mismatched types\n --> src/a.rs:3:9\n',
          code: { code: 'E0308', explanation: 'Example:\nerror[E0425]: cannot find value `x`\n' },
        },
      };
      const v = classifyFailure(input({ language: 'rust', compiled: false, passed: false, compileLog: `   Compiling a v0.1.0\n${JSON.stringify(msg)}\n` }));
      assert.equal(v?.rule, 'rust-E0308');
      assert.equal(v?.category, 'type-system-memory');
    });
  });

  describe('all checks pass', () => {
    it('zero focal lines covered is Test Design & Mocking', () => {
      assert.deepEqual(classifyFailure(input({ language: 'php', coveredLines: 0 })), { category: 'test-design-mocking', rule: 'zero-coverage' });
    });

    it('Ruby, like the others, needs no allowance: its Cov no longer counts the def line run at load time', () => {
      assert.equal(classifyFailure(input({ language: 'ruby', coveredLines: 0 }))?.category, 'test-design-mocking');
      assert.equal(classifyFailure(input({ language: 'ruby', coveredLines: 1 })), null);
      assert.equal(classifyFailure(input({ language: 'go', coveredLines: 1 })), null);
    });

    it('reports nothing when the focal code ran', () => {
      for (const language of LANGUAGE_IDS) assert.equal(classifyFailure(input({ language, coveredLines: 3 })), null, language);
    });
  });
});

/** `<pattern-id>[.<variant>].log`, or `fallback-<what>.log` for a log that no pattern should claim. */
interface LogCase {
  language: LanguageId;
  file: string;
  expectedRule: string;
  phase: 'compile' | 'runtime';
  how: string;
}

function logCases(): LogCase[] {
  const out: LogCase[] = [];
  for (const language of LANGUAGE_IDS) {
    const dir = path.join(DATA, language);
    if (!fs.existsSync(dir)) continue;
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.log')).sort()) {
      const base = file.slice(0, -'.log'.length);
      const howFile = path.join(dir, `${base}.how.txt`);
      const how = fs.existsSync(howFile) ? fs.readFileSync(howFile, 'utf8') : '';
      const phase = /the output of the compile phase|^Phase: compile/m.test(how) ? 'compile' : 'runtime';
      const expectedRule = base.startsWith('fallback-') ? 'fallback' : base.split('.')[0];
      out.push({ language, file: path.join(dir, file), expectedRule, phase, how });
    }
  }
  return out;
}

/** Sub-categories J.3 defines by example: asserted independently of how the patterns are written. */
const EXPECTED_SUBCATEGORY: Record<string, ApiHallucinationKind> = {
  'go-missing-module': 'phantom-library',
  'go-not-in-std': 'phantom-library',
  'go-undefined': 'non-existent-api',
  'go-no-field-or-method': 'non-existent-api',
  'go-argument-count': 'signature-mismatch',
  'rust-unresolved-crate': 'phantom-library',
  'rust-unresolved-path': 'non-existent-api',
  'rust-E0599': 'non-existent-api',
  'rust-E0061': 'signature-mismatch',
  'php-class-not-found': 'phantom-library',
  'php-undefined-method': 'non-existent-api',
  'php-argument-count': 'signature-mismatch',
  'php-removed-phpunit-api': 'other',
  'ruby-load-error': 'phantom-library',
  'ruby-nomethod': 'non-existent-api',
  'ruby-argument-count': 'signature-mismatch',
  'ruby-should-syntax': 'other',
  'julia-package-not-found': 'phantom-library',
  'julia-undef-var': 'non-existent-api',
  'julia-method-error': 'signature-mismatch',
};

describe('classifyFailure on real tool output (test/data/failures)', () => {
  const cases = logCases();

  it('has a log for every pattern of every language, each with its .how.txt', () => {
    for (const language of LANGUAGE_IDS) {
      for (const p of failureRulesFor(language).patterns) {
        assert.ok(
          cases.some((c) => c.language === language && c.expectedRule === p.id),
          `${language}: no log for pattern ${p.id}`,
        );
      }
    }
    for (const c of cases) assert.ok(c.how.length > 0, `${c.file} has no .how.txt`);
  });

  it('says which logs were captured from a real tool and which (Julia) were written by hand', () => {
    for (const c of cases) {
      if (c.language === 'julia') assert.match(c.how, /HAND-WRITTEN, NOT CAPTURED/, c.file);
      else assert.match(c.how, /Captured from the real tool by: test\/data\/failures\/capture\.sh/, c.file);
    }
  });

  for (const c of cases) {
    const name = `${c.language}/${path.basename(c.file)} -> ${c.expectedRule}`;
    it(name, () => {
      const log = fs.readFileSync(c.file, 'utf8');
      const v = classifyFailure(
        c.phase === 'compile'
          ? input({ language: c.language, compiled: false, passed: false, compileLog: log })
          : input({ language: c.language, compiled: true, passed: false, testLog: log }),
      );
      assert.ok(v, 'a failing run always gets a category');
      assert.equal(v.rule, c.expectedRule);
      if (c.expectedRule === 'fallback') {
        assert.equal(v.category, c.phase === 'compile' ? 'syntactic-compilation' : 'logic-assertion');
        return;
      }
      assert.equal(v.category, patternById(c.language, c.expectedRule).category);
      const expectedSub = EXPECTED_SUBCATEGORY[c.expectedRule];
      if (expectedSub) assert.equal(v.subcategory, expectedSub);
      // The evidence is text from the log (whitespace collapsed), not a description.
      assert.ok(v.evidence && v.evidence.length > 0);
      const squashed = log.replace(/\s+/g, ' ');
      for (const word of v.evidence.replace(/…$/, '').split(' ').slice(0, 6)) assert.ok(squashed.includes(word), `evidence word ${word} not in the log`);
    });
  }
});

describe('failure patterns', () => {
  it('are neither global nor sticky (exec must start at the beginning of the log) and have unique ids', () => {
    for (const language of LANGUAGE_IDS) {
      const ids = new Set<string>();
      for (const p of failureRulesFor(language).patterns) {
        assert.ok(!p.regex.global && !p.regex.sticky, `${language}/${p.id}`);
        assert.ok(!ids.has(p.id), `${language}: duplicate ${p.id}`);
        ids.add(p.id);
        assert.equal(p.subcategory === undefined || p.category === 'api-hallucination', true, `${p.id}: sub-category outside API hallucination`);
      }
    }
  });

  it('Ruby: NoMethodError on nil is Type System & Memory, on anything else API hallucination (J.1)', () => {
    const rspec = (msg: string) => `  1) A b\n     Failure/Error: x\n\n     NoMethodError:\n       ${msg}\n`;
    const onNil31 = classifyFailure(input({ language: 'ruby', passed: false, testLog: rspec("undefined method `title' for nil:NilClass") }));
    const onNil34 = classifyFailure(input({ language: 'ruby', passed: false, testLog: rspec("undefined method 'title' for nil") }));
    const onObject = classifyFailure(input({ language: 'ruby', passed: false, testLog: rspec("undefined method 'title' for an instance of Bookshelf::Catalog") }));
    assert.equal(onNil31?.rule, 'ruby-nomethod-nil');
    assert.equal(onNil34?.rule, 'ruby-nomethod-nil');
    assert.equal(onObject?.rule, 'ruby-nomethod');
  });

  it('Julia: a DomainError the project throws itself stays Logic & Assertion; a Base math one is a type rule', () => {
    const thrown = 'Error During Test\n  DomainError with 0.7:\n  fraction must be in [0, 0.5)\n';
    const math = 'Error During Test\n  DomainError with -1:\n  Cannot raise an integer x to a negative power -1.\n  Convert input to float.\n';
    assert.equal(classifyFailure(input({ language: 'julia', passed: false, testLog: thrown }))?.category, 'logic-assertion');
    assert.equal(classifyFailure(input({ language: 'julia', passed: false, testLog: math }))?.category, 'type-system-memory');
  });
});
