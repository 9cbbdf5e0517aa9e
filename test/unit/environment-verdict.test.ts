import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { formatEnvironment, localVerdict, noEngineVerdict, noImageVerdict, verdictOfProblem, type EnvironmentReport, type LanguageReadiness } from '../../src/engine/environment';
import { fixActions, fixSection, statusOf, type StatusReport } from '../../src/extension/environment-model';
import { summaryOf } from '../../src/server/candidates';
import { workspaceLanguages } from '../../src/server/workspace-languages';
import { editorVerdict } from '../../src/server/verdict-actions';
import type { LanguageId } from '../../src/engine/parse/grammars';

const NAMES: Record<LanguageId, string> = { rust: 'Rust', go: 'Go', julia: 'Julia', php: 'PHP', ruby: 'Ruby' };

/** A report where `localMissing` names each language's missing commands; the engine answers when `engine` is set. */
function report(localMissing: Partial<Record<LanguageId, string[]>>, engine?: string): EnvironmentReport {
  const languages: LanguageReadiness[] = (Object.keys(NAMES) as LanguageId[]).map((language) => {
    const missing = localMissing[language] ?? [];
    return {
      language,
      displayName: NAMES[language],
      local: missing.length ? `the local executor cannot run ${language} here` : null,
      localMissing: missing,
      docker: engine ? { image: `xrepotest-${language}:1` } : { missing: 'no container engine' },
      languageServer: language === 'php' ? { missing: 'php LSP context needs intelephense: … Install it with: npm install --save-dev intelephense' } : { command: `${language}-ls` },
      verdicts: { local: localVerdict(language, missing), docker: engine ? null : noEngineVerdict() },
    };
  });
  return {
    localIsolation: 'local: bubblewrap 0.8.0',
    exposes: { local: ['read-only: /usr'], docker: ['read-only: nothing of the host'] },
    engine: engine ? { description: engine } : { missing: 'no Docker or Podman engine answered', tried: ['unix:///var/run/docker.sock: no such socket'] },
    languages,
    missing: [],
  };
}

const status = (r: EnvironmentReport, workspaceLanguages: LanguageId[], executor = 'local'): StatusReport => ({ ...r, executor, workspaceLanguages });

describe('Environment verdicts', () => {
  describe('the status bar', () => {
    it("names the workspace's own languages only, and no container engine with the local executor", () => {
      const v = statusOf(status(report({ julia: ['julia'] }), ['go']));
      assert.equal(v.text, '$(beaker) XRepoTest: Go ✓');
      assert.doesNotMatch(v.text + v.tooltip, /docker|container|Julia/i);
      assert.deepEqual(v.blocked, []);
    });

    it("flags a workspace language that cannot run, with the missing command", () => {
      const v = statusOf(status(report({ ruby: ['bundle'] }), ['go', 'ruby']));
      assert.equal(v.text, "$(warning) XRepoTest: Go ✓ · Ruby can't run (bundle missing)");
      assert.deepEqual(v.blocked.map((b) => b.language), ['ruby']);
      assert.match(v.tooltip, /Ruby: can't run here: bundle is not installed.*How to fix: install Ruby \(Debian\/Ubuntu: `sudo apt install ruby/);
    });

    it("agrees with the last scoring's verdict, which the machine check cannot see (a project's missing gem, an unfinished build)", () => {
      const gem = editorVerdict({ cause: 'dependencies-unresolvable', reason: "the project's spec helper needs a gem that is not installed here (cannot load simplecov-cobertura-2.1.0); install the gems its Gemfile names (`bundle install` in /w/lib, or Debian's ruby-* packages)" }, 'ruby', 'local', '/w/lib');
      const v = statusOf(status(report({}), ['go', 'ruby']), { ruby: gem });
      assert.equal(v.text, "$(warning) XRepoTest: Go ✓ · Ruby can't run (dependencies unresolvable)");
      assert.match(v.tooltip, /Ruby: can't run here: .*simplecov-cobertura/);
      assert.deepEqual(v.blocked.map((b) => b.language), ['ruby']);
      const unfinished = editorVerdict({ cause: 'build-unfinished', reason: 'the first build of hex was still going after 6 min and was stopped; what it built is kept', fixes: [{ kind: 'retry' }] }, 'rust', 'local', '/w/hex');
      assert.equal(statusOf(status(report({}), ['rust']), { rust: unfinished }).text, '$(warning) XRepoTest: Rust first build not finished');
      // A later scoring that ran clears it.
      assert.equal(statusOf(status(report({}), ['go', 'ruby']), { ruby: undefined }).text, '$(beaker) XRepoTest: Go ✓ · Ruby ✓');
    });

    it('shows the container engine only with the docker executor', () => {
      assert.equal(statusOf(status(report({ julia: ['julia'] }, 'Docker 27 at unix:///var/run/docker.sock'), ['go', 'julia'], 'docker')).text, '$(beaker) XRepoTest: Go ✓ · Julia ✓ · container engine ✓');
      const down = statusOf(status(report({}), ['go'], 'docker'));
      assert.equal(down.text, "$(warning) XRepoTest: no container engine (Go can't run)");
      assert.match(down.tooltip, /start Docker .* or Podman/);
    });

    it('a workspace with none of the languages gets the plain item', () => {
      const v = statusOf(status(report({ julia: ['julia'] }), []));
      assert.equal(v.text, '$(beaker) XRepoTest');
      assert.match(v.tooltip, /no Rust, Go, Julia, PHP, Ruby files/);
    });
  });

  describe('the verdicts', () => {
    it('a missing toolchain names the commands and a user-level install, and offers the executor setting', () => {
      const v = localVerdict('julia', ['julia'])!;
      assert.equal(v.cause, 'julia is not installed');
      assert.match(v.fix, /finds julia on PATH/);
      assert.equal(v.short, 'julia missing');
      assert.match(v.fix, /install\.julialang\.org/);
      assert.match(v.fix, /set xrepotest\.executor to docker/);
      assert.equal(v.setting, 'xrepotest.executor');
      assert.equal(localVerdict('go', []), null);
      assert.deepEqual(fixActions(v), ['Open settings', 'Check the environment']);
    });

    it('a missing image gives the command to build it; other problems keep their cause and fix', () => {
      const image = verdictOfProblem({ cause: 'toolchain-missing', reason: 'the docker executor has no go image: run `xrepotest images build --lang go` first' }, 'go', 'docker');
      assert.deepEqual(image, noImageVerdict('go'));
      assert.equal(image.command, 'xrepotest images build --lang go');
      assert.deepEqual(fixActions(image), ['Copy command', 'Open settings', 'Check the environment']);
      const deps = verdictOfProblem({ cause: 'dependencies-unresolvable', reason: 'the module github.com/x/y cannot be fetched; run `go mod download` with network' }, 'go', 'local');
      assert.equal(deps.cause, 'the module github.com/x/y cannot be fetched');
      assert.equal(deps.fix, 'run `go mod download` with network');
      assert.equal(deps.command, 'go mod download');
      assert.match(fixSection(deps, 'Find'), /^Can't run here \(scoring Find\): the module/);
    });

    it('the lens says "can\'t run here" and shows no metrics for a test that never ran', () => {
      const summary = summaryOf({
        functionName: 'Find',
        smoke: false,
        compiled: false,
        passed: false,
        failureCategory: 'environment',
        testsRan: 0,
        testsPassed: 0,
        coveredLines: [],
        executableLines: [],
        invoked: true,
        provider: 'baseline',
        environment: localVerdict('julia', ['julia'])!,
      });
      assert.equal(summary, "⚠ can't run here: julia is not installed");
      assert.doesNotMatch(summary, /Cov|IR|TPR|compile|✗|✓/);
    });
  });

  describe('"Check the environment" text', () => {
    it('is scoped to the chosen executor and the workspace languages, with user-level instructions', () => {
      const text = formatEnvironment(report({ julia: ['julia'] }), { executor: 'local', languages: ['go', 'julia', 'php'] });
      assert.match(text, /^Executor: local/);
      assert.match(text, /Go: ready/);
      assert.match(text, /Julia: can't run here: julia is not installed/);
      assert.match(text, /How to fix: install Julia/);
      assert.doesNotMatch(text, /Rust|Ruby|Container engine|docker executor\)/);
      assert.doesNotMatch(text, /npm install|scripts\/setup\.sh|\.tools\/bin|Tried:\s*$/m);
    });

    it('with the docker executor says how to start an engine, and lists the addresses tried', () => {
      const text = formatEnvironment(report({}), { executor: 'docker', languages: ['go'] });
      assert.match(text, /Container engine: no Docker or Podman engine answered\n {2}tried unix:\/\/\/var\/run\/docker\.sock: no such socket\n {2}How to fix: start Docker/);
      assert.match(text, /Go: can't run with the docker executor until a container engine answers/);
      assert.doesNotMatch(text, /Local executor/);
    });

    it("keeps the developer's detail behind the developer option", () => {
      const user = formatEnvironment(report({}));
      const developer = formatEnvironment(report({}), { developer: true });
      assert.doesNotMatch(user, /npm install/);
      assert.match(user, /PHP: intelephense not found/);
      assert.match(developer, /\(developer\) .*npm install --save-dev intelephense/);
    });
  });

  describe("the workspace's languages", () => {
    it('are found from manifests at the root and source files, skipping dependency and hidden folders', () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-wslang-'));
      try {
        fs.writeFileSync(path.join(dir, 'go.mod'), 'module x\n');
        fs.mkdirSync(path.join(dir, 'scripts', 'jl'), { recursive: true });
        fs.writeFileSync(path.join(dir, 'scripts', 'jl', 'tool.jl'), 'f(x) = x\n');
        fs.mkdirSync(path.join(dir, 'vendor', 'r'), { recursive: true });
        fs.writeFileSync(path.join(dir, 'vendor', 'r', 'a.rb'), '');
        fs.mkdirSync(path.join(dir, '.git'));
        fs.writeFileSync(path.join(dir, '.git', 'x.rs'), '');
        assert.deepEqual(workspaceLanguages([dir]), ['go', 'julia']);
        assert.deepEqual(workspaceLanguages([dir], 1), ['go'], 'the walk stops at its limit');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
