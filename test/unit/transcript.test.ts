import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as oniguruma from 'vscode-oniguruma';
import { INITIAL, parseRawGrammar, Registry, type IGrammar, type StateStack } from 'vscode-textmate';
import type { Evaluation } from '../../src/engine/execute/evaluate';
import { phaseLogsOf, toResultRecord } from '../../src/engine/store/results';
import type { TaskRecord } from '../../src/engine/tasks/record';
import {
  commandLine,
  exitStatus,
  FILE_REFERENCE_PATTERN,
  fileReferences,
  formatDuration,
  formatTranscript,
  phaseHeader,
  referenceCandidates,
  TRANSCRIPT_EXTENSION,
  TRANSCRIPT_LANGUAGE,
  verdictOf,
  type TranscriptPhase,
  type TranscriptSource,
} from '../../src/extension/transcript-model';
import { REPO_ROOT } from '../helpers/paths';

const GRAMMAR_FILE = path.join(REPO_ROOT, 'syntaxes', 'xrepotest-transcript.tmLanguage.json');
const SCOPE = 'text.xrepotest-transcript';

/** The grammar as VS Code loads it: vscode-textmate on the Oniguruma regex engine (WebAssembly, in this process). */
async function loadGrammar(): Promise<IGrammar> {
  const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer);
  const registry = new Registry({
    onigLib: Promise.resolve({ createOnigScanner: (sources) => new oniguruma.OnigScanner(sources), createOnigString: (s) => new oniguruma.OnigString(s) }),
    loadGrammar: async (scopeName) => (scopeName === SCOPE ? parseRawGrammar(fs.readFileSync(GRAMMAR_FILE, 'utf8'), GRAMMAR_FILE) : null),
  });
  const grammar = await registry.loadGrammar(SCOPE);
  assert.ok(grammar, `vscode-textmate loaded ${GRAMMAR_FILE}`);
  return grammar;
}

interface Token {
  text: string;
  scopes: string[];
}

/** Each line's tokens, tokenized as the editor does: line by line, carrying the rule stack. */
function tokenize(grammar: IGrammar, text: string): Token[][] {
  let stack: StateStack = INITIAL;
  return text.split('\n').map((line) => {
    const r = grammar.tokenizeLine(line, stack);
    stack = r.ruleStack;
    return r.tokens.map((t) => ({ text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes }));
  });
}

/** The scopes of the token(s) making up `what` on the first line that holds it (after `from`), each scope with the transcript's suffix dropped. */
function scopesOf(lines: Token[][], what: string, from = 0): string[] {
  for (let i = from; i < lines.length; i++) {
    const line = lines[i].map((t) => t.text).join('');
    const at = line.indexOf(what);
    if (at < 0) continue;
    let pos = 0;
    const covering: string[][] = [];
    for (const t of lines[i]) {
      const end = pos + t.text.length;
      if (end > at && pos < at + what.length) covering.push(t.scopes);
      pos = end;
    }
    // Scopes every token of `what` has.
    const common = covering.reduce((acc, s) => acc.filter((x) => s.includes(x)));
    return common.map((s) => s.replace(/\.xrepotest-transcript$/, ''));
  }
  assert.fail(`no line holds ${JSON.stringify(what)}`);
}

const lineIndex = (text: string, what: string): number => text.split('\n').findIndex((l) => l.includes(what));

const phase = (p: Partial<TranscriptPhase> & Pick<TranscriptPhase, 'phase' | 'argv' | 'output'>): TranscriptPhase => ({
  exitCode: 0,
  signal: null,
  timedOut: false,
  outputTruncated: false,
  durationMs: 1234,
  ...p,
});

/** A Go test that fails an assertion: a warm-up that passed, the test run that failed. */
const GO_FAILING: TranscriptSource = {
  functionName: 'Status',
  file: 'item.go',
  line: 7,
  test: 'offline baseline test 1 · written by the offline baseline (no model) · attempt 1',
  executor: { kind: 'local', engine: 'bubblewrap 0.8.0' },
  verdict: 'failed',
  summary: "✗ 0 of 1 tests pass · 40 % of the function's lines run · calls Status",
  why: 'TestStatusWrongValue: got "low", want "ok"',
  phases: [
    phase({ phase: 'warm-up', argv: ['go', 'build', './...'], output: '', durationMs: 1200 }),
    phase({
      phase: 'test',
      argv: ['go', 'test', '-json', '-run', '^TestStatusWrongValue$', '.'],
      exitCode: 1,
      durationMs: 412,
      output: '{"Action":"run"}',
      text: [
        '=== RUN   TestStatusWrongValue',
        '    item_test.go:9: got "low", want "ok"',
        '--- FAIL: TestStatusWrongValue (0.00s)',
        '── not a header, printed by the test',
        '  verdict: passed',
        'FAIL',
        'see https://example.com/docs/a.go:12 and 127.0.0.1:8080',
        'ok  \tinventory\t0.004s',
      ].join('\n'),
    }),
  ],
};

/** A Rust test that does not compile, then a run that timed out (as a later phase would be shown). */
const RUST_NOT_COMPILING: TranscriptSource = {
  functionName: 'parse',
  file: 'src/lib.rs',
  line: 12,
  test: 'claude-sonnet test 2 (repair 1)',
  executor: { kind: 'docker', engine: 'podman 4.3.1 (Docker API 1.41)' },
  verdict: 'does not compile',
  summary: '✗ the test does not compile',
  why: 'error[E0425]: cannot find function `nope` in this scope',
  phases: [
    phase({
      phase: 'compile',
      argv: ['cargo', 'test', '--no-run', '--message-format=json'],
      exitCode: 101,
      durationMs: 75_300,
      output: 'error[E0425]: cannot find function `nope` in this scope\n  --> src/lib.rs:42:9\n   |\n42 |         nope();\n',
    }),
    phase({ phase: 'test', argv: ['sh', '-c', "cargo test\necho 'done'"], exitCode: null, timedOut: true, signal: 'SIGKILL', durationMs: 300_000, output: '' }),
  ],
};

describe('the scoring transcript (src/extension/transcript-model.ts, syntaxes/xrepotest-transcript.tmLanguage.json)', () => {
  let grammar: IGrammar;
  before(async () => {
    grammar = await loadGrammar();
  });

  describe('the text', () => {
    it('has a header naming the function, file, test, executor and verdict, then one section per phase', () => {
      const text = formatTranscript(GO_FAILING);
      const lines = text.split('\n');
      assert.equal(lines[0], 'XRepoTest transcript · Status · item.go:7');
      assert.equal(lines[1], '  test:     offline baseline test 1 · written by the offline baseline (no model) · attempt 1');
      assert.equal(lines[2], '  executor: local · bubblewrap 0.8.0');
      assert.match(formatTranscript({ ...GO_FAILING, executor: { kind: 'local', engine: 'local: bubblewrap 0.8.0' } }), /^ {2}executor: local: bubblewrap 0\.8\.0$/m);
      assert.equal(lines[3], "  verdict:  failed · ✗ 0 of 1 tests pass · 40 % of the function's lines run · calls Status");
      assert.equal(lines[4], '  why:      TestStatusWrongValue: got "low", want "ok"');
      assert.equal(lines[5], '', 'a blank line ends the header');
      assert.equal(lines[6], '── warm-up · go build ./... · exit 0 · 1.2 s ──');
      assert.equal(lines[7], '(no output)');
      assert.equal(lines[9], "── test · go test -json -run '^TestStatusWrongValue$' . · exit 1 · 412 ms ──");
      // The text a person reads (decoded), not the runner's JSON.
      assert.equal(lines[10], '=== RUN   TestStatusWrongValue');
      assert.ok(!text.includes('"Action"'));
      // A printed line that would read as a section's header is moved off the line's start.
      assert.ok(lines.includes(' ── not a header, printed by the test'));
    });

    it('says how each phase ended and how long it took', () => {
      assert.equal(exitStatus({ exitCode: 0, signal: null, timedOut: false }), 'exit 0');
      assert.equal(exitStatus({ exitCode: 101, signal: null, timedOut: false }), 'exit 101');
      assert.equal(exitStatus({ exitCode: null, signal: 'SIGKILL', timedOut: true }), 'timed out');
      assert.equal(exitStatus({ exitCode: null, signal: 'SIGKILL', timedOut: true, stalled: true }), 'stalled');
      assert.equal(exitStatus({ exitCode: null, signal: 'SIGTERM', timedOut: false }), 'killed by SIGTERM');
      assert.equal(formatDuration(412), '412 ms');
      assert.equal(formatDuration(1234), '1.2 s');
      assert.equal(formatDuration(125_400), '2 min 5 s');
    });

    it('writes each command on one line, quoted as a shell reads it, and gives a long one whole below its header', () => {
      assert.equal(commandLine(['go', 'test', '-run', '^TestA$', "it's", '']), "go test -run '^TestA$' 'it'\\''s' ''");
      assert.equal(commandLine(['sh', '-c', "a\nb 'c'"]), "sh -c $'a\\nb \\'c\\''");
      const long = phaseHeader(phase({ phase: 'compile', argv: ['cargo', 'test', ...Array.from({ length: 60 }, (_, i) => `--feature-${i}`)], output: '' }));
      assert.match(long.header, /^── compile · cargo test --feature-0 .* … · exit 0 · 1\.2 s ──$/);
      assert.ok(long.fullCommand?.endsWith('--feature-59'));
      const text = formatTranscript({ ...GO_FAILING, phases: [phase({ phase: 'compile', argv: ['cargo', 'test', ...Array.from({ length: 60 }, (_, i) => `--feature-${i}`)], output: 'x' })] });
      assert.ok(text.includes(`\n$ ${long.fullCommand}\nx`), text);
    });

    it('names the verdict the way the grammar paints it: passed, or what went wrong', () => {
      const base = { compiled: true, passed: true, failureCategory: null };
      assert.equal(verdictOf(base), 'passed');
      assert.equal(verdictOf({ ...base, passed: false, failureCategory: 'logic-assertion' }), 'failed');
      assert.equal(verdictOf({ ...base, passed: false, failureCategory: 'flaky' }), 'flaky');
      assert.equal(verdictOf({ ...base, compiled: false, passed: false }), 'does not compile');
      assert.equal(verdictOf({ ...base, passed: false, failureCategory: 'tampering' }), 'tampers with its result');
      assert.equal(verdictOf({ ...base, compiled: false, passed: false, environment: {} }), "can't run here");
      assert.equal(verdictOf({ ...base, compiled: false, passed: false, environment: { actions: [{ kind: 'retry' }] } }), 'not scored yet');
    });

    it('shows the whole log as one section when it is not known phase by phase, and says when nothing ran', () => {
      assert.match(formatTranscript({ ...GO_FAILING, phases: [], log: 'FAIL x_test.go:3\n' }), /\n\n── log ──\nFAIL x_test\.go:3\n$/);
      assert.match(formatTranscript({ ...GO_FAILING, phases: [], executor: null }), /executor: nothing ran\n[\s\S]*\(no phase ran: nothing was built or run\)\n$/);
    });
  });

  describe('file:line references (the document links)', () => {
    it('finds paths with a line and maybe a column, where they are on the line', () => {
      const refs = fileReferences('    item_test.go:9: got\n  --> src/lib.rs:42:9\n/ws/a/Foo.php:23 and ./spec/x_spec.rb:12:in');
      assert.deepEqual(
        refs.map((r) => [r.documentLine, r.start, r.end, r.path, r.line, r.column]),
        [
          [0, 4, 18, 'item_test.go', 9, undefined],
          [1, 6, 21, 'src/lib.rs', 42, 9],
          [2, 0, 16, '/ws/a/Foo.php', 23, undefined],
          [2, 21, 40, './spec/x_spec.rb', 12, undefined],
        ],
      );
    });

    it('leaves out addresses, ports, times and line 0', () => {
      assert.deepEqual(fileReferences('https://example.com/docs/a.go:12 127.0.0.1:8080 at 12:30:45 v1.2:3 x.go:0'), []);
    });

    it('looks for a relative path under each base, in order, and takes an absolute one as it is', () => {
      assert.deepEqual(referenceCandidates({ path: './item_test.go' }, ['/ws/pkg', '/ws', '/ws/pkg/']), ['/ws/pkg/item_test.go', '/ws/item_test.go']);
      assert.deepEqual(referenceCandidates({ path: '../x/a.rs' }, ['/ws/pkg']), ['/ws/x/a.rs']);
      assert.deepEqual(referenceCandidates({ path: '/abs/a.go' }, ['/ws']), ['/abs/a.go']);
    });

    it("is the grammar's file-reference pattern, so what is underlined is what links", () => {
      const g = JSON.parse(fs.readFileSync(GRAMMAR_FILE, 'utf8')) as { repository: Record<string, { match?: string }> };
      assert.equal(g.repository['file-reference'].match, FILE_REFERENCE_PATTERN);
    });
  });

  describe('the grammar', () => {
    it('scopes the header: the title, the function, the field names and a failed verdict', () => {
      const lines = tokenize(grammar, formatTranscript(GO_FAILING));
      assert.ok(scopesOf(lines, 'XRepoTest transcript').includes('markup.heading.title'));
      assert.ok(scopesOf(lines, 'Status').includes('entity.name.function'));
      assert.ok(scopesOf(lines, 'item.go:7').includes('markup.underline.link.file-reference'), 'the title links the focal file');
      assert.ok(scopesOf(lines, 'executor').includes('support.type.property-name'));
      const verdict = scopesOf(lines, 'failed');
      assert.ok(verdict.includes('markup.deleted.verdict.failed'), verdict.join(' '));
      assert.ok(!verdict.includes('markup.inserted.verdict.passed'));
    });

    it('scopes a passing verdict as a success', () => {
      const lines = tokenize(grammar, formatTranscript({ ...GO_FAILING, verdict: 'passed', summary: '✓ 1 of 1 tests pass', why: null }));
      const verdict = scopesOf(lines, 'passed');
      assert.ok(verdict.includes('markup.inserted.verdict.passed'), verdict.join(' '));
      assert.ok(!verdict.some((s) => s.startsWith('markup.deleted')));
    });

    it("scopes a phase's header: phase name, command, exit code ok or failed, duration", () => {
      const text = formatTranscript(GO_FAILING);
      const lines = tokenize(grammar, text);
      const warm = lineIndex(text, '── warm-up');
      const test = lineIndex(text, '── test');
      assert.ok(scopesOf(lines, '── warm-up', warm).includes('markup.heading.phase'));
      assert.ok(scopesOf(lines, 'warm-up', warm).includes('entity.name.section.phase'));
      assert.ok(scopesOf(lines, 'go build ./...', warm).includes('string.unquoted.command'));
      const ok = scopesOf(lines, 'exit 0', warm);
      assert.ok(ok.includes('markup.inserted.exit-code.ok'), ok.join(' '));
      assert.ok(!ok.some((s) => s.startsWith('markup.deleted')));
      assert.ok(scopesOf(lines, '1.2 s', warm).includes('constant.numeric.duration'));

      assert.ok(scopesOf(lines, 'test', test).includes('entity.name.section.phase'));
      assert.ok(scopesOf(lines, "go test -json -run '^TestStatusWrongValue$' .", test).includes('string.unquoted.command'));
      const failed = scopesOf(lines, 'exit 1', test);
      assert.ok(failed.includes('markup.deleted.exit-code.failed'), failed.join(' '));
      assert.ok(!failed.some((s) => s.startsWith('markup.inserted')));
      assert.ok(scopesOf(lines, '412 ms', test).includes('constant.numeric.duration'));
    });

    it('scopes a timed-out phase as failed, and a non-zero exit of a compile', () => {
      const text = formatTranscript(RUST_NOT_COMPILING);
      const lines = tokenize(grammar, text);
      assert.ok(scopesOf(lines, 'exit 101', lineIndex(text, '── compile')).includes('markup.deleted.exit-code.failed'));
      assert.ok(scopesOf(lines, '1 min 15 s', lineIndex(text, '── compile')).includes('constant.numeric.duration'));
      const timedOut = lineIndex(text, '── test');
      assert.ok(scopesOf(lines, 'timed out', timedOut).includes('markup.deleted.exit-code.killed'));
      assert.ok(scopesOf(lines, '5 min 0 s', timedOut).includes('constant.numeric.duration'));
      // A command with a newline stays on its header line.
      assert.ok(scopesOf(lines, "sh -c $'cargo test\\necho \\'done\\''", timedOut).includes('string.unquoted.command'));
    });

    it('scopes file:line references in the output, inside error lines too, with their line and column', () => {
      const text = formatTranscript(RUST_NOT_COMPILING);
      const lines = tokenize(grammar, text);
      const ref = scopesOf(lines, 'src/lib.rs:42:9', lineIndex(text, '-->'));
      assert.ok(ref.includes('markup.underline.link.file-reference'), ref.join(' '));
      assert.ok(ref.includes('meta.phase'));
      const at = lineIndex(text, '-->');
      assert.ok(scopesOf(lines, 'src/lib.rs', at).includes('entity.name.file'));
      assert.ok(scopesOf(lines, '42', at).includes('constant.numeric.line'));
      assert.ok(scopesOf(lines, '9', at).includes('constant.numeric.column'));

      const go = formatTranscript(GO_FAILING);
      const goLines = tokenize(grammar, go);
      const inError = scopesOf(goLines, 'item_test.go:9', lineIndex(go, 'item_test.go:9'));
      assert.ok(inError.includes('markup.underline.link.file-reference'), inError.join(' '));
    });

    it('scopes error and pass lines of the output, and takes nothing in the output for a header or a field', () => {
      const text = formatTranscript(GO_FAILING);
      const lines = tokenize(grammar, text);
      assert.ok(scopesOf(lines, '--- FAIL: TestStatusWrongValue').includes('invalid.error.line'));
      assert.ok(scopesOf(lines, 'ok  \tinventory').includes('markup.inserted.pass'));
      const notHeader = scopesOf(lines, '── not a header');
      assert.ok(!notHeader.includes('markup.heading.phase'), notHeader.join(' '));
      assert.ok(notHeader.includes('meta.output'), 'the line stays in the test phase');
      const notField = scopesOf(lines, 'verdict: passed', lineIndex(text, '── test'));
      assert.ok(!notField.some((s) => s.includes('verdict') || s.startsWith('support.type')), notField.join(' '));
      // No link where no path is.
      assert.ok(!scopesOf(lines, 'https://example.com/docs/a.go:12').includes('markup.underline.link.file-reference'));
      assert.ok(!scopesOf(lines, '127.0.0.1:8080').includes('markup.underline.link.file-reference'));
    });
  });

  describe("the annotator's transcript: a stored result's log cut into its phases (engine/store/results.ts)", () => {
    const run = (phases: Evaluation['phases'], error?: string): Evaluation =>
      ({
        language: 'go',
        executor: { kind: 'local', engine: 'bubblewrap', versions: {} },
        placement: null,
        testHash: 'h',
        phases,
        ...(error ? { error } : {}),
        testReport: { ran: 1, passed: 1, failed: 0, errored: 0, skipped: 0, outsideErrors: 0, cases: [] },
        score: { compiled: true, passed: true, reason: null, coverage: { covered: [1], executable: [1] }, coverageRatio: 1, invocation: { invoked: true, strict: true }, failure: null },
      }) as unknown as Evaluation;
    const p = (phase: 'warm-up' | 'test', output: string, exitCode: number | null = 0): Evaluation['phases'][number] => ({
      phase,
      argv: ['go', phase === 'test' ? 'test' : 'build', './...'],
      exitCode,
      signal: exitCode === null ? 'SIGKILL' : null,
      timedOut: exitCode === null,
      outputTruncated: false,
      durationMs: 42,
      output,
    });

    it('gives each phase its own output, as toResultRecord wrote the log', () => {
      const record = toResultRecord({} as TaskRecord, 'test', 0, run([p('warm-up', 'built\n'), p('test', '$ not a head\n# test: exit 0 in 42 ms\nok', null)], 'the harness failed'));
      const phases = phaseLogsOf(record);
      assert.ok(phases);
      assert.deepEqual(
        phases.map((x) => [x.phase, x.exit_code, x.timed_out, x.output]),
        [
          ['warm-up', 0, false, 'built\n'],
          ['test', null, true, '$ not a head\n# test: exit 0 in 42 ms\nok'],
        ],
      );
    });

    it('is null for a record that holds no phases, or whose log does not hold them', () => {
      assert.equal(phaseLogsOf({ logs: ['whatever'], xrt: {} }), null);
      const record = toResultRecord({} as TaskRecord, 'test', 0, run([p('test', 'ok')]));
      assert.equal(phaseLogsOf({ ...record, logs: ['rewritten'] }), null);
    });
  });

  it('package.json contributes the language and the grammar, and the package ships syntaxes/', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      contributes: { languages: Array<{ id: string; extensions?: string[] }>; grammars: Array<{ language: string; scopeName: string; path: string }> };
    };
    const language = pkg.contributes.languages.find((l) => l.id === TRANSCRIPT_LANGUAGE);
    assert.ok(language, `contributes.languages has ${TRANSCRIPT_LANGUAGE}`);
    assert.deepEqual(language.extensions, [TRANSCRIPT_EXTENSION]);
    const grammarEntry = pkg.contributes.grammars.find((g) => g.language === TRANSCRIPT_LANGUAGE);
    assert.deepEqual(grammarEntry && { scopeName: grammarEntry.scopeName, path: path.resolve(REPO_ROOT, grammarEntry.path) }, { scopeName: SCOPE, path: GRAMMAR_FILE });
    assert.ok(fs.readFileSync(path.join(REPO_ROOT, '.vscodeignore'), 'utf8').split('\n').includes('!syntaxes/**'), '.vscodeignore keeps syntaxes/ in the .vsix');
  });
});
