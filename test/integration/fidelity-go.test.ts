import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { evaluateTest, type Evaluation } from '../../src/engine/execute/evaluate';
import { DockerExecutor } from '../../src/engine/execute/docker';
import { LocalExecutor } from '../../src/engine/execute/local';
import { extractRepository } from '../../src/engine/extract/extract';
import { goStatementStarts } from '../../src/engine/languages/go/statement-lines';
import type { TaskRecord } from '../../src/engine/tasks/record';
import { engineForTests, languageImageForTests } from '../helpers/engine';
import { goNativeLines } from '../helpers/go-cover-lines';
import { REPO_ROOT } from '../helpers/paths';
import { describeSource, realRepository, removeRealRepository, type RealRepo, type RealRepoSource } from '../helpers/real-repo';
import { hasTool, skipBecause } from '../helpers/skip';

/**
 * Go fidelity on real modules (issue 12, item 7): tests written as a model would — passing, failing,
 * not compiling, using the package's own test helpers, named like a test the package already has,
 * in a nested package — run through the engine (local executor), and the same test run natively on a
 * plain copy: `go test -c`, `go test -coverprofile`, the profile read with Go's own parser
 * (test/helpers/go-cover-lines, go/ast). Verdicts and executable/covered focal lines must be equal;
 * the expected values, with the module versions, are in test/data/fidelity/go.json.
 *
 * Natively, a test named like one the package declares does not build at all; what a person does is
 * rename it, so the native run takes the test with that one name changed by hand (`nativeRenames`).
 */

interface ModuleRef {
  module: string;
  version: string;
}

interface Expected {
  compiled: boolean;
  passed: boolean;
  category: string | null;
  executable: number[];
  covered: number[];
  /** Focal lines the older every-line-of-a-block rule counted as executable (for the record). */
  blockLines: number;
}

interface FidelityData {
  modules: Record<string, ModuleRef>;
  cases: Record<string, Expected & { module: string; file: string; function: string }>;
}

const DATA = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'test', 'data', 'fidelity', 'go.json'), 'utf8')) as FidelityData;

/** The tests, by case id; `nativeRenames` only where the name collides with the package's own. */
const TESTS: Record<string, { code: string; nativeRenames?: Record<string, string> }> = {
  // Named like uuid_test.go's TestValidate; leaves the 32-digit and bad-prefix branches unrun.
  'uuid-validate-collides': {
    code: `package uuid

import "testing"

func TestValidate(t *testing.T) {
	valid := []string{
		"f47ac10b-58cc-0372-8567-0e02b2c3d479",
		"urn:uuid:f47ac10b-58cc-0372-8567-0e02b2c3d479",
		"{f47ac10b-58cc-0372-8567-0e02b2c3d479}",
	}
	for _, s := range valid {
		if err := Validate(s); err != nil {
			t.Errorf("Validate(%q) = %v, want nil", s, err)
		}
	}
	if err := Validate("f47ac10b"); err == nil {
		t.Error("Validate of a short string: want an error")
	}
}
`,
    nativeRenames: { TestValidate: 'TestValidateNative' },
  },
  // Uses the package's own table and checker (uuid_test.go: tests, testTest).
  'uuid-parse-helper': {
    code: `package uuid

import "testing"

func TestParseAgainstPackageTable(t *testing.T) {
	for _, tt := range tests[:6] {
		testTest(t, tt.in, tt)
	}
	if _, err := Parse("urn:uuid:f47ac10b-58cc-0372-8567-0e02b2c3d479"); err != nil {
		t.Fatal(err)
	}
}
`,
  },
  // A wrong expectation: String() has no braces.
  'uuid-parsebytes-fails': {
    code: `package uuid

import "testing"

func TestParseBytesBraces(t *testing.T) {
	got, err := ParseBytes([]byte("{f47ac10b-58cc-0372-8567-0e02b2c3d479}"))
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != "{f47ac10b-58cc-0372-8567-0e02b2c3d479}" {
		t.Errorf("String() = %q, want the braces kept", got.String())
	}
}
`,
  },
  // Collides with sql_test.go's TestScan and calls a method UUID does not have.
  'uuid-scan-nocompile': {
    code: `package uuid

import "testing"

func TestScan(t *testing.T) {
	var u UUID
	if err := u.ScanString("f47ac10b-58cc-0372-8567-0e02b2c3d479"); err != nil {
		t.Fatal(err)
	}
}
`,
    nativeRenames: { TestScan: 'TestScanNative' },
  },
  // Nested package (middleware), named like strip_test.go's test, using middleware_test.go's testRequest.
  'chi-stripslashes-helper': {
    code: `package middleware

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"
)

func TestStripSlashes(t *testing.T) {
	r := chi.NewRouter()
	r.Use(StripSlashes)
	r.Get("/hello", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("hi"))
	})
	ts := httptest.NewServer(r)
	defer ts.Close()
	for _, p := range []string{"/hello", "/hello/"} {
		if _, body := testRequest(t, ts, "GET", p, nil); body != "hi" {
			t.Errorf("GET %s = %q, want hi", p, body)
		}
	}
}
`,
    nativeRenames: { TestStripSlashes: 'TestStripSlashesNative' },
  },
  // Expects 302; chi redirects with 301.
  'chi-redirectslashes-fails': {
    code: `package middleware

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestRedirectSlashesStatus(t *testing.T) {
	h := RedirectSlashes(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/a/?x=1", nil))
	if rec.Code != http.StatusFound {
		t.Errorf("status %d, want 302", rec.Code)
	}
	if loc := rec.Header().Get("Location"); loc != "//example.com/a?x=1" {
		t.Errorf("Location %q", loc)
	}
}
`,
  },
  // Named like mux_test.go's TestMuxFind; a mounted sub-router takes Find's recursive branch.
  'chi-find-collides': {
    code: `package chi

import (
	"net/http"
	"testing"
)

func TestMuxFind(t *testing.T) {
	r := NewRouter()
	r.Get("/users/{id}", func(w http.ResponseWriter, r *http.Request) {})
	r.Route("/api", func(r Router) {
		r.Get("/items/{item}", func(w http.ResponseWriter, r *http.Request) {})
	})
	if got := r.Find(NewRouteContext(), "GET", "/users/7"); got != "/users/{id}" {
		t.Errorf("Find /users/7 = %q", got)
	}
	if got := r.Find(NewRouteContext(), "GET", "/api/items/3"); got != "/api/items/{item}" {
		t.Errorf("Find /api/items/3 = %q", got)
	}
	if got := r.Find(NewRouteContext(), "BREW", "/users/7"); got != "" {
		t.Errorf("Find with an unknown method = %q", got)
	}
}
`,
    nativeRenames: { TestMuxFind: 'TestMuxFindNative' },
  },
};

const GO_ENV = { GOFLAGS: '-mod=mod', GOPROXY: 'off', GOTOOLCHAIN: 'local', CGO_ENABLED: '0' };

function go(args: string[], cwd: string): { status: number | null; output: string } {
  const r = spawnSync('go', args, { cwd, env: { ...process.env, ...GO_ENV }, encoding: 'utf8', timeout: 300_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

interface NativeResult {
  compiled: boolean;
  passed: boolean;
  executable: number[];
  covered: number[];
  blockLines: number;
}

/** The same test on a plain copy with the go tool alone; nothing of the engine runs. */
function nativeRun(repo: string, mod: ModuleRef, file: string, task: TaskRecord, code: string, renames: Record<string, string>): NativeResult {
  for (const [from, to] of Object.entries(renames)) code = code.replace(new RegExp(`\\b${from}\\b`, 'g'), to);
  const pkgDir = path.dirname(path.join(repo, file));
  const pkg = `./${path.relative(repo, pkgDir).split(path.sep).join('/')}`;
  fs.writeFileSync(path.join(pkgDir, 'zz_native_fidelity_test.go'), code);
  const names = [...code.matchAll(/^func (Test\w*)\(t \*testing\.T\)/gm)].map((m) => m[1]);
  const none = { executable: [], covered: [], blockLines: 0 };
  if (go(['test', '-c', '-o', path.join(repo, 'pkg.test'), pkg], repo).status !== 0) return { compiled: false, passed: false, ...none };
  const profile = path.join(repo, 'cover.out');
  const test = go(['test', '-count=1', '-v', '-run', `^(${names.join('|')})$`, '-covermode=count', `-coverprofile=${profile}`, pkg], repo);
  const ran = /^=== RUN /m.test(test.output);
  const { start_line, end_line } = task.function_component;
  const lines = goNativeLines(profile, path.join(repo, file), `${mod.module}/${file}`, start_line, end_line);
  return { compiled: true, passed: test.status === 0 && ran, executable: lines.executable, covered: lines.covered, blockLines: lines.blockLines.length };
}

/** Every .go file under dir (tests included: they are Go too), relative, '/'-separated. */
function goFiles(dir: string, rel = ''): string[] {
  return fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((d) => {
    const r = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory()) return goFiles(dir, r);
    return d.isFile() && d.name.endsWith('.go') ? [r] : [];
  });
}

/** What is compared with the expectations, from an engine run. */
function verdictOf(e: Evaluation): Omit<Expected, 'blockLines'> {
  return { compiled: e.score.compiled, passed: e.score.passed, category: e.score.failure?.category ?? null, executable: e.score.coverage.executable, covered: e.score.coverage.covered };
}

function expectedOf(x: Expected): Omit<Expected, 'blockLines'> {
  return { compiled: x.compiled, passed: x.passed, category: x.category, executable: x.executable, covered: x.covered };
}

function why(e: Evaluation): string {
  return `\n${e.phases.map((p) => `$ ${p.argv.join(' ')} -> ${p.exitCode}\n${p.output.slice(-1500)}`).join('\n')}`;
}

describe('Go fidelity on real modules: the engine against the go tool, line by line (local executor)', function () {
  this.timeout(900_000);
  const executor = new LocalExecutor();
  const tasks = new Map<string, TaskRecord[]>();
  const copies: RealRepo[] = [];
  /** One copy per module, for extraction and the whole-file check; removed at the end. */
  const pristine = new Map<string, string>();
  const kept: RealRepo[] = [];
  const source = (name: string): RealRepoSource => ({ kind: 'go-module', ...DATA.modules[name]! });

  before(async function () {
    if (!hasTool('go', ['version'])) skipBecause(this, 'go not installed here');
    for (const name of Object.keys(DATA.modules)) {
      const got = await realRepository(source(name));
      kept.push(got);
      if ('unavailable' in got) skipBecause(this, got.unavailable);
      const { tasks: found } = await extractRepository(got.dir, { repository: { name, url: describeSource(source(name)), commit: null } });
      tasks.set(name, found);
      pristine.set(name, got.dir);
    }
  });

  after(() => {
    for (const c of kept.splice(0)) removeRealRepository(c);
  });

  afterEach(() => {
    for (const c of copies.splice(0)) removeRealRepository(c);
  });

  it('covers passing, failing and non-compiling tests, helpers, collisions and a nested package', () => {
    const ids = Object.keys(DATA.cases);
    assert.deepEqual(ids.sort(), Object.keys(TESTS).sort(), 'every case has a test and an expectation');
    const verdicts = Object.values(DATA.cases);
    assert.ok(verdicts.some((c) => c.passed) && verdicts.some((c) => c.compiled && !c.passed) && verdicts.some((c) => !c.compiled));
    assert.ok(Object.values(TESTS).some((t) => t.nativeRenames) && verdicts.some((c) => c.file.includes('/')));
  });

  it("finds the statements Go's own parser finds, in every Go file of both modules", async () => {
    let files = 0;
    for (const [name, dir] of pristine) {
      const empty = path.join(dir, 'empty.cover.out');
      fs.writeFileSync(empty, 'mode: count\n');
      for (const rel of goFiles(dir)) {
        const source = fs.readFileSync(path.join(dir, rel), 'utf8');
        const ours = (await goStatementStarts(source))?.map((s) => `${s.line}.${s.column}`);
        assert.deepEqual(ours, goNativeLines(empty, path.join(dir, rel), `${name}/${rel}`).starts, rel);
        files++;
      }
    }
    assert.ok(files > 20, `${files} files`);
  });

  for (const [id, expected] of Object.entries(DATA.cases)) {
    it(`${id}: ${expected.function} in ${DATA.modules[expected.module]!.module}@${DATA.modules[expected.module]!.version} ${expected.file}`, async function () {
      const task = tasks.get(expected.module)?.find((t) => t.file_path === `${expected.module}/${expected.file}` && t.function_name === expected.function);
      assert.ok(task, `the engine extracts ${expected.function} from ${expected.file}`);
      const { code, nativeRenames = {} } = TESTS[id]!;

      const forEngine = await realRepository(source(expected.module));
      const forNative = await realRepository(source(expected.module));
      copies.push(forEngine, forNative);
      if ('unavailable' in forEngine) skipBecause(this, forEngine.unavailable);
      if ('unavailable' in forNative) skipBecause(this, forNative.unavailable);

      const e = await evaluateTest(task, 'go', code, { executor, repoDir: forEngine.dir });
      const native = nativeRun(forNative.dir, DATA.modules[expected.module]!, expected.file, task, code, nativeRenames);
      process.stdout.write(
        `      ${id}: engine compiled=${e.score.compiled} passed=${e.score.passed} category=${e.score.failure?.category ?? null}; ` +
          `executable ${e.score.coverage.executable.length} (block lines ${native.blockLines}), covered ${e.score.coverage.covered.length}\n`,
      );

      // The engine against the go tool run by hand.
      assert.equal(e.score.compiled, native.compiled, 'compiled, as natively' + why(e));
      assert.equal(e.score.passed, native.passed, 'passed, as natively' + why(e));
      assert.deepEqual(e.score.coverage.executable, native.executable, 'executable focal lines, as natively');
      assert.deepEqual(e.score.coverage.covered, native.covered, 'covered focal lines, as natively');
      // And both against what was recorded when the suite was written.
      assert.deepEqual(verdictOf(e), expectedOf(expected));
      assert.equal(native.blockLines, expected.blockLines, 'focal lines the older every-line-of-a-block rule counted');
      if (Object.keys(nativeRenames).length && e.score.compiled) {
        assert.ok(e.placement?.notes.some((n) => /untouched/.test(n)), `renamed in our file only: ${e.placement?.notes.join('\n')}`);
      }
    });
  }
});

describe('Go fidelity on real modules: the docker executor gives the same verdicts and lines', function () {
  this.timeout(1_800_000);
  let docker: DockerExecutor;
  let image: string;
  const kept: RealRepo[] = [];
  const tasks = new Map<string, TaskRecord[]>();
  const source = (name: string): RealRepoSource => ({ kind: 'go-module', ...DATA.modules[name]! });

  before(async function () {
    const engine = await engineForTests(this);
    image = await languageImageForTests(this, 'go');
    docker = await DockerExecutor.create({ engine });
    for (const name of Object.keys(DATA.modules)) {
      const got = await realRepository(source(name));
      kept.push(got);
      if ('unavailable' in got) skipBecause(this, got.unavailable);
      tasks.set(name, (await extractRepository(got.dir, { repository: { name, url: describeSource(source(name)), commit: null } })).tasks);
    }
  });

  after(async () => {
    for (const c of kept.splice(0)) removeRealRepository(c);
    // Its reused containers: a later suite counts the containers this process leaves.
    await docker?.close();
  });

  // The local suite above ties the expectations to the go tool's own run; here the container must match them.
  for (const [id, expected] of Object.entries(DATA.cases)) {
    it(id, async () => {
      const task = tasks.get(expected.module)!.find((t) => t.file_path === `${expected.module}/${expected.file}` && t.function_name === expected.function)!;
      const repo = kept.find((c) => 'dir' in c && c.source.kind === 'go-module' && c.source.module === DATA.modules[expected.module]!.module) as { dir: string };
      const e = await evaluateTest(task, 'go', TESTS[id]!.code, { executor: docker, repoDir: repo.dir, image });
      assert.equal(e.executor.kind, 'docker');
      assert.deepEqual(verdictOf(e), expectedOf(expected), why(e));
    });
  }
});
