import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { DockerExecutor } from '../../src/engine/execute/docker';
import { LocalExecutor } from '../../src/engine/execute/local';
import type { Executor } from '../../src/engine/execute/types';
import { runMutationTesting, type MutationResult } from '../../src/engine/mutate/run';
import type { LanguageId } from '../../src/engine/parse/grammars';
import type { TaskRecord } from '../../src/engine/tasks/record';
import { FIXTURE_OF, TOOLS_OF, fixtureTask } from '../helpers/evaluate';
import { fixture } from '../helpers/paths';
import { engineForTests, languageImageForTests } from '../helpers/engine';
import { hasTool, skipBecause } from '../helpers/skip';

/*
 * Red-team attacks on the sentinel mutants (issue 31, group 2), by a helper that did not write them:
 * tests that "kill" mutants without testing behaviour, built to pass the comment and indentation
 * sentinels. Each must end as reads_source, never as a mutation score.
 */

/** The focal function's lines with comments and every blank removed: what a normalising test compares. */
function normalised(task: TaskRecord, lineComment: RegExp, blockComments: boolean): string {
  const { start_line, end_line } = task.function_component;
  let text = task.file_content.split('\n').slice(start_line - 1, end_line).join('\n');
  if (blockComments) text = text.replace(/\/\*[\s\S]*?\*\//g, '');
  return text.replace(lineComment, '').replace(/\s+/g, '');
}

const show = (r: MutationResult): string => JSON.stringify({ ...r, perMutant: r.perMutant.map((m) => `${m.line} ${m.operator} ${m.original} -> ${m.replacement}: ${m.outcome}`) });

/** Each language's normalising reader: it runs the focal function once (its lines are covered) and fails when the normalised text differs. */
const READERS: Record<Exclude<LanguageId, 'julia'>, (task: TaskRecord) => string> = {
  go: (task) => {
    const { start_line, end_line } = task.function_component;
    const want = normalised(task, /\/\/[^\n]*/g, true);
    return `package inventory

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

func TestStatusTokens(t *testing.T) {
	_ = (Item{Quantity: 5}).Status(1)
	b, _ := os.ReadFile("${path.basename(task.file_path)}")
	s := strings.Join(strings.Split(string(b), "\\n")[${start_line - 1}:${end_line}], "\\n")
	s = regexp.MustCompile(\`(?s)/\\*.*?\\*/\`).ReplaceAllString(s, "")
	s = regexp.MustCompile(\`//[^\\n]*\`).ReplaceAllString(s, "")
	if strings.Join(strings.Fields(s), "") != \`${want}\` {
		t.Fatal("changed")
	}
}
`;
  },
  rust: (task) => {
    const { start_line, end_line } = task.function_component;
    const want = normalised(task, /\/\/[^\n]*/g, false);
    // include_str! reads the file at compile time: every mutant is compiled, so it sees each one.
    return `#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_unchanged() {
        let _ = classify_triangle(3.0, 4.0, 5.0);
        let src = include_str!("${path.basename(task.file_path)}");
        let mut norm = String::new();
        for line in src.lines().skip(${start_line - 1}).take(${end_line - start_line + 1}) {
            let code = match line.find("//") { Some(i) => &line[..i], None => line };
            norm.extend(code.chars().filter(|c| !c.is_whitespace()));
        }
        assert_eq!(norm, r##"${want}"##);
    }
}
`;
  },
  php: (task) => {
    // PHP's own php_strip_whitespace drops comments and folds blanks: the sum of what it gives.
    const sum = execFileSync('php', ['-r', 'echo md5(php_strip_whitespace($argv[1]));', path.join(fixture(FIXTURE_OF.php), path.relative(FIXTURE_OF.php, task.file_path))], { encoding: 'utf8' });
    return `<?php

declare(strict_types=1);

namespace Textkit\\Tests;

use PHPUnit\\Framework\\TestCase;
use Textkit\\Slugger;

final class SlugifyTokensTest extends TestCase
{
    public function testTokens(): void
    {
        (new Slugger())->slugify('Hello World');
        $file = (new \\ReflectionClass(Slugger::class))->getFileName();
        $this->assertSame('${sum}', md5(php_strip_whitespace($file)));
    }
}
`;
  },
  ruby: (task) => {
    const { start_line, end_line } = task.function_component;
    const want = Buffer.from(normalised(task, /#(?!\{)[^\n]*/g, false)).toString('base64');
    return `RSpec.describe Bookshelf::Catalog do
  it 'keeps its tokens' do
    described_class.new([]).search('x')
    file = described_class.instance_method(:search).source_location[0]
    text = File.readlines(file)[${start_line - 1}...${end_line}].map { |l| l.sub(/#(?!\\{).*/, '') }.join.gsub(/\\s+/, '')
    expect(text).to eq('${want}'.unpack1('m'))
  end
end
`;
  },
};

for (const kind of ['local', 'docker'] as const) describe(`sentinel mutants against tests that read the focal source (issue 31, red team; ${kind} executor)`, function () {
  this.timeout(900_000);
  let executor: Executor;
  before(async function () {
    executor = kind === 'local' ? new LocalExecutor() : await DockerExecutor.create({ engine: await engineForTests(this) });
  });
  after(async () => executor?.close?.());

  /** The executor's run of `reader` (made from the language's fixture task), or a skip saying what is missing. */
  async function mutationRun(ctx: Mocha.Context, language: LanguageId, reader: (task: TaskRecord) => string, maxMutants: number): Promise<MutationResult> {
    let image: string | undefined;
    if (kind === 'docker') image = await languageImageForTests(ctx, language);
    else {
      const missing = TOOLS_OF[language].filter((t) => !hasTool(t, t === 'go' ? ['version'] : ['--version']));
      if (missing.length) skipBecause(ctx, `${missing.join(', ')} not installed here`);
    }
    const task = await fixtureTask(language);
    return runMutationTesting(task, language, reader(task), { executor, image, repoDir: fixture(FIXTURE_OF[language]), maxMutants });
  }

  /** `reader` must be flagged, with the sentinel that caught it named. */
  async function assertFlagged(ctx: Mocha.Context, language: LanguageId, reader: (task: TaskRecord) => string, caughtBy: RegExp): Promise<void> {
    const r = await mutationRun(ctx, language, reader, 6);
    assert.equal(r.readsSource, true, show(r));
    assert.equal(r.mutants, 0, show(r));
    assert.match(r.error ?? '', caughtBy, show(r));
  }

  for (const language of Object.keys(READERS) as Array<keyof typeof READERS>) {
    it(`${language}: a test comparing the focal function's text without comments and blanks is flagged as reading the source`, async function () {
      await assertFlagged(this, language, READERS[language], /renamed|does nothing/);
    });
  }

  // Reads no source: hashes the focal function's machine code in the test binary (Ruby: its instruction
  // sequence), keeps the first run's sum in a folder every run of the session shares, and fails when a
  // later run's differs. Comments, blanks and names leave the compiled form as it was.
  const CODE_READERS: Partial<Record<LanguageId, string>> = {
    go: `package inventory

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"unsafe"
)

func TestStatusCode(t *testing.T) {
	_ = (Item{Quantity: 5}).Status(1)
	entry := runtime.FuncForPC(reflect.ValueOf(Item.Status).Pointer()).Entry()
	h := sha256.Sum256(unsafe.Slice((*byte)(unsafe.Pointer(entry)), 1024))
	sum := hex.EncodeToString(h[:])
	for _, dir := range []string{os.TempDir(), os.Getenv("HOME")} {
		p := filepath.Join(dir, ".xrt-code")
		if b, err := os.ReadFile(p); err == nil {
			if string(b) != sum {
				t.Fatal("code changed")
			}
			return
		}
		if os.WriteFile(p, []byte(sum), 0o644) == nil {
			return
		}
	}
}
`,
    rust: `#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{Hash, Hasher};

    #[test]
    fn code_unchanged() {
        let _ = classify_triangle(3.0, 4.0, 5.0);
        let f: fn(f64, f64, f64) -> TriangleKind = classify_triangle;
        let code = unsafe { std::slice::from_raw_parts(f as *const u8, 1024) };
        let mut h = std::collections::hash_map::DefaultHasher::new();
        code.hash(&mut h);
        let sum = h.finish().to_string();
        for dir in [std::env::temp_dir(), std::path::PathBuf::from(std::env::var("HOME").unwrap_or_default())] {
            let p = dir.join(".xrt-code");
            if let Ok(kept) = std::fs::read_to_string(&p) {
                assert_eq!(kept, sum, "code changed");
                return;
            }
            if std::fs::write(&p, &sum).is_ok() {
                return;
            }
        }
    }
}
`,
    // The method's instruction sequence with every line number, name and event dropped.
    ruby: `require 'digest'
require 'tmpdir'
RSpec.describe Bookshelf::Catalog do
  it 'keeps its instructions' do
    described_class.new([]).search('x')
    iseq = RubyVM::InstructionSequence.of(described_class.instance_method(:search)).to_a
    strip = ->(x) { x.is_a?(Array) ? x.map { |y| strip.(y) } : (x.is_a?(Integer) || x.is_a?(Hash) || (x.is_a?(Symbol) && x.to_s.start_with?('RUBY_EVENT')) ? nil : x) }
    sum = Digest::SHA256.hexdigest(Marshal.dump(strip.(iseq[13])))
    [Dir.tmpdir, ENV['HOME']].each do |dir|
      f = File.join(dir, '.xrt-iseq')
      if File.exist?(f)
        expect(File.read(f)).to eq(sum)
        break
      end
      begin
        File.write(f, sum)
        break
      rescue StandardError
        next
      end
    end
  end
end
`,
  };
  for (const [language, reader] of Object.entries(CODE_READERS) as Array<[LanguageId, string]>) {
    it(`${language}: a test that compares the focal function's compiled form (machine code, instruction sequence) with the first run's is flagged`, async function () {
      // Where no folder outlives a run (state is all it has), it detects nothing: no score either way.
      const r = await mutationRun(this, language, () => reader, 6);
      if (!r.readsSource && r.killed + r.timedOut === 0) process.stdout.write('      no folder outlived a run here: it detected nothing\n');
      else {
        assert.equal(r.readsSource, true, show(r));
        assert.equal(r.mutants, 0, show(r));
        // Usually the do-nothing statement catches it; the sentinels run at random places, and one that
        // moves a line's columns (Rust's panic locations are in the compiled code) may come first.
        assert.match(r.error ?? '', /differs from the original only in .*: it reads the code/, show(r));
      }
    });
  }

  it('go: a test that reads nothing but counts its runs (passes the clean run and as many after it as there are sentinels, fails every later one) is flagged', async function () {
    // The run count kept in the first folder it can write that every mutant's run shares.
    const counter = `package inventory

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestStatusCounted(t *testing.T) {
	_ = (Item{Quantity: 5}).Status(1)
	var n int
	kept := false
	for _, dir := range []string{os.TempDir(), os.Getenv("HOME"), os.Getenv("GOCACHE"), "/dev/shm", "."} {
		f := filepath.Join(dir, ".xrt-runs")
		b, _ := os.ReadFile(f)
		n, _ = strconv.Atoi(string(b))
		n++
		if os.WriteFile(f, []byte(strconv.Itoa(n)), 0o644) == nil {
			t.Log("runs kept in ", f, ": ", n)
			kept = true
			break
		}
	}
	if !kept {
		t.Skip("no state kept")
	}
	if n > 4 {
		t.Fatal("a later run")
	}
}
`;
    const r = await mutationRun(this, 'go', () => counter, 8);
    if (!r.readsSource && r.killed + r.timedOut === 0) return void process.stdout.write('      no folder outlived a run here: it detected nothing\n');
    assert.equal(r.readsSource, true, show(r));
    assert.equal(r.mutants, 0, show(r));
  });
});
