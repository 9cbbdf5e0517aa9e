import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { resolveServer, ServerMissingError } from '../../src/engine/context/lsp/commands';
import { HeadlessResolver } from '../../src/engine/context/lsp/headless-resolver';
import { collectLspContext, type LspContextReport } from '../../src/engine/context/lsp/lsp-context';
import { extractRepository } from '../../src/engine/extract/extract';
import type { LanguageId } from '../../src/engine/parse/grammars';
import type { TaskRecord } from '../../src/engine/tasks/record';
import { FIXTURE_OF } from '../helpers/evaluate';
import { fixture } from '../helpers/paths';
import { skipBecause } from '../helpers/skip';

/** A throwaway copy of a fixture: servers write caches and indexes next to the code. */
function copyFixture(language: LanguageId): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `xrt-lsp-test-${language}-`)));
  fs.cpSync(fixture(FIXTURE_OF[language]), path.join(dir, FIXTURE_OF[language]), { recursive: true, filter: (s) => !/\/(target|vendor|coverage)$/.test(s) });
  return path.join(dir, FIXTURE_OF[language]);
}

function allSnippets(ctx: LspContextReport): string[] {
  return [...ctx.argumentDefinitions, ...ctx.calleeDefinitions, ...ctx.conditionReferences];
}

describe('LSP context: a missing server', () => {
  it('names what to install (Julia, absent here)', function () {
    let err: unknown;
    try {
      resolveServer('julia');
    } catch (e) {
      err = e;
    }
    if (!err) skipBecause(this, 'Julia and LanguageServer.jl are installed here');
    assert.ok(err instanceof ServerMissingError);
    assert.match(err.message, /julia/i);
    assert.match(err.message, /Install it with: .*(julialang\.org|Pkg\.add\("LanguageServer"\))/);
  });
});

/** What each language's kept focal function must get from its real server. */
const CASES: Array<{ language: LanguageId; focal: string; check: (ctx: LspContextReport, task: TaskRecord) => void; also?: { focal: string; check: (ctx: LspContextReport) => void } }> = [
  {
    language: 'go',
    focal: 'Status',
    check(ctx) {
      // The receiver's type, whole.
      assert.ok(ctx.argumentDefinitions.some((s) => /^\/\/ Item is one stock-keeping unit\.\ntype Item struct \{[\s\S]*Expires\s+int[\s\S]*\}$/.test(s)), ctx.argumentDefinitions.join('\n---\n'));
      // Fields in the conditions (it.Quantity, it.Reorder…) are used by the inventory's methods.
      assert.ok(ctx.conditionReferences.some((s) => /^\/\/[^\n]*\nfunc \(inv \*Inventory\) \w+\(/.test(s) && /\.Quantity/.test(s)), ctx.conditionReferences.join('\n---\n'));
    },
  },
  {
    language: 'rust',
    focal: 'classify_triangle',
    check(ctx) {
      // The return type: the values a test compares against.
      assert.ok(ctx.calleeDefinitions.some((s) => /pub enum TriangleKind \{[\s\S]*Invalid,[\s\S]*Scalene,\n\}$/.test(s)), ctx.calleeDefinitions.join('\n---\n'));
    },
    also: {
      focal: 'is_convex',
      check(ctx) {
        // `&self` stands for the impl's type; Point is what Polygon depends on (one level).
        assert.ok(ctx.argumentDefinitions.some((s) => /pub struct Polygon \{/.test(s)), ctx.argumentDefinitions.join('\n---\n'));
        assert.ok(ctx.argumentDefinitions.some((s) => /pub struct Point \{/.test(s)), ctx.argumentDefinitions.join('\n---\n'));
      },
    },
  },
  {
    language: 'php',
    focal: 'slugify',
    check(ctx) {
      assert.ok(ctx.calleeDefinitions.some((s) => /^private function transliterate\(string \$text\): string/.test(s)), ctx.calleeDefinitions.join('\n---\n'));
      // `$this->maxLength > 0` in a condition: the property's declaration.
      assert.ok(ctx.conditionReferences.includes('private int $maxLength;'), ctx.conditionReferences.join('\n---\n'));
    },
  },
  {
    language: 'ruby',
    focal: 'search',
    check(ctx) {
      // `words = tokens(query)`: the private helper it calls.
      assert.ok(ctx.calleeDefinitions.some((s) => /^def tokens\(text\)\n[\s\S]*\bend$/.test(s)), ctx.calleeDefinitions.join('\n---\n'));
    },
  },
];

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

for (const c of CASES) {
  describe(`LSP context from the real ${c.language} server`, function () {
    this.timeout(240_000);
    let repo = '';
    let tasks: TaskRecord[] = [];
    let resolver: HeadlessResolver | undefined;
    let missing = '';

    before(async () => {
      try {
        resolveServer(c.language);
      } catch (e) {
        if (!(e instanceof ServerMissingError)) throw e;
        missing = e.message;
        return;
      }
      repo = copyFixture(c.language);
      ({ tasks } = await extractRepository(repo, { repository: { name: FIXTURE_OF[c.language], url: repo, commit: null, path: repo } }));
      resolver = new HeadlessResolver({ root: repo });
    });

    after(async () => {
      if (!resolver) return;
      const started = await resolver.started();
      await resolver.close();
      for (const s of started) if (s.pid !== undefined) assert.ok(!alive(s.pid), `${s.language} server ${s.pid} still running after close`);
      fs.rmSync(path.dirname(repo), { recursive: true, force: true });
    });

    const run = async (ctx: Mocha.Context, focal: string): Promise<{ report: LspContextReport; task: TaskRecord }> => {
      if (missing) skipBecause(ctx, missing);
      const task = tasks.find((t) => t.function_name === focal);
      assert.ok(task, `no kept task ${focal}`);
      const report = await collectLspContext(task, c.language, repo, resolver!);
      assert.equal(report.timedOut, false, report.notes.join('\n'));
      return { report, task };
    };

    const common = (report: LspContextReport, task: TaskRecord): void => {
      const snippets = allSnippets(report);
      assert.ok(snippets.length > 0);
      // Deduplicated, never the focal function itself, never an existing test (leakage).
      assert.equal(new Set(snippets.map((s) => s.trim())).size, snippets.length);
      assert.ok(!snippets.some((s) => s.includes(task.focal_code.trim())), 'the focal function came back as context');
      assert.ok(!snippets.some((s) => /func Test\w+\(t \*testing\.T\)|#\[test\]|extends TestCase|RSpec\.describe|\bdescribe\b.* do$/m.test(s)), 'test code came back as context');
      // Every snippet is text of the checkout, as read from disk.
      const sources = fs.readdirSync(repo, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => fs.readFileSync(path.join(e.parentPath, e.name), 'utf8'));
      for (const s of snippets) assert.ok(sources.some((src) => src.includes(s)), `not from the checkout:\n${s}`);
    };

    it(`finds the expected definitions for ${c.focal}`, async function () {
      const { report, task } = await run(this, c.focal);
      common(report, task);
      c.check(report, task);
    });

    if (c.also) {
      const also = c.also;
      it(`finds the expected definitions for ${also.focal}, on the same server`, async function () {
        const { report, task } = await run(this, also.focal);
        common(report, task);
        also.check(report);
        assert.equal((await resolver!.started()).length, 1, 'one server per (language, workspace)');
      });
    }

    it('respects the size limits', async function () {
      if (missing) skipBecause(this, missing);
      const task = tasks.find((t) => t.function_name === c.focal)!;
      const full = await collectLspContext(task, c.language, repo, resolver!);
      const small = await collectLspContext(task, c.language, repo, resolver!, { maxSnippetsPerKind: 1, maxSnippetChars: 60 });
      for (const kind of ['argumentDefinitions', 'calleeDefinitions', 'conditionReferences'] as const) {
        assert.ok(small[kind].length <= 1);
        assert.equal(small[kind].length, Math.min(1, full[kind].length), kind);
        for (const s of small[kind]) assert.ok(s.length <= 62, s);
      }
    });
  });
}
