import { strict as assert } from 'node:assert';
import { rustStatementLines, statementHits } from '../../src/engine/languages/rust/statement-lines';
import { parseLcov } from '../../src/engine/score/coverage/lcov';

/*
 * Rust executable lines (METRICS.md, docs/execution.md "Executable lines"): llvm-cov's DA lines on
 * which a statement starts. The lines llvm-cov marks besides (the signature, `}`, a match arm's
 * pattern, continuation lines of a call) must drop out; statements must stay.
 */

/** Sorted lines of a source whose statement lines are marked `// S` at their end. */
function marked(source: string): number[] {
  return source
    .split('\n')
    .map((l, i) => (/\/\/ S$/.test(l) ? i + 1 : 0))
    .filter(Boolean);
}

async function linesOf(source: string): Promise<number[]> {
  const got = await rustStatementLines(source);
  assert.ok(got, 'the source parses');
  return [...got].sort((a, b) => a - b);
}

describe('Rust statement lines (coverage counts statement starts only)', () => {
  it('FnvHasher::write (fnv 1.0.7): llvm-cov DA 122 123 125 126 127 128 130 131 -> statements 123 125 126 127 130', async () => {
    // The same lines as fnv's lib.rs 121-131, at the same line numbers.
    const source = '\n'.repeat(120) + [
      '    #[inline]',
      '    fn write(&mut self, bytes: &[u8]) {',
      '        let FnvHasher(mut hash) = *self;',
      '',
      '        for byte in bytes {',
      '            hash ^= u64::from(*byte);',
      '            hash = hash.wrapping_mul(PRIME);',
      '        }',
      '',
      '        *self = FnvHasher(hash);',
      '    }',
    ].join('\n');
    const wrapped = `impl Hasher for FnvHasher {${source}\n}\n`;
    const statements = await rustStatementLines(wrapped);
    const lcov = ['SF:/x/src/lib.rs', ...[122, 123, 125, 126, 127, 128, 130, 131].map((l) => `DA:${l},${l === 131 ? 0 : 3}`), 'end_of_record'].join('\n');
    const hits = statementHits(parseLcov(lcov, '/x/src/lib.rs'), statements, 131);
    assert.deepEqual([...hits.keys()].sort((a, b) => a - b), [123, 125, 126, 127, 130]);
    assert.equal(hits.get(123), 3);
  });

  it('counts lets, expression statements, tail expressions, non-block arm and closure bodies, else-if conditions', async () => {
    const source = [
      'fn f(x: Option<u8>, v: &[u8]) -> u8 {',
      '    let a = 1; // S',
      '    g(a); // S',
      '    println!("{}", a); // S',
      '    let total = v', // S on the line below is not a new statement
      '        .iter()',
      '        .map(|b| {',
      '            b + 1 // S',
      '        })',
      '        .count();',
      '    let double = |b: u8|',
      '        b * 2; // S',
      '    match x { // S',
      '        Some(0) => 0, // S',
      '        Some(n) => {',
      '            h(n); // S',
      '        }',
      '        None =>',
      '            1, // S',
      '    };',
      '    if a > 0 { // S',
      '        k(); // S',
      '    } else if a < 0 { // S',
      '        k(); // S',
      '    } else {',
      '        k(); // S',
      '    }',
      '    loop { // S',
      '        break; // S',
      '    }',
      '    unsafe { k() }; // S',
      '    a as u8 // S',
      '}',
    ].join('\n');
    const expected = marked(source);
    expected.push(5, 11); // `let total = v` and `let double = |b: u8|` start there
    assert.deepEqual(await linesOf(source), expected.sort((a, b) => a - b));
  });

  it('leaves out items, `use`, attributes, comments, bare blocks, labels, and code inside a macro call\'s arguments', async () => {
    const source = [
      'fn f() {',
      '    use std::mem::size_of;',
      '    const N: usize = 3;',
      '    fn inner() -> usize {',
      '        size_of::<u8>() // S',
      '    }',
      '    // a comment',
      '    #[cfg(not(unix))]',
      '    return; // S',
      '    {',
      "        let b = 2; // S",
      '    }',
      "    'outer: loop { // S",
      "        break 'outer; // S",
      '    }',
      '    ;',
      '    assert!(v().iter().all(|x| { // S',
      '        let y = x + 1;',
      '        y > 0',
      '    }));',
      '}',
      'fn one_line() -> u8 { 7 } // S',
    ].join('\n');
    assert.deepEqual(await linesOf(source), marked(source));
  });

  it('keeps only lines up to the focal item: the test module inserted after it shifts the later lines', () => {
    const hits = new Map([
      [2, 1],
      [3, 0],
      [9, 4],
      [40, 1],
    ]);
    const kept = statementHits(hits, new Set([2, 3, 9, 40]), 9);
    assert.deepEqual([...kept], [
      [2, 1],
      [3, 0],
      [9, 4],
    ]);
  });

  it('falls back to the tool\'s lines when the source did not parse', () => {
    const hits = new Map([
      [2, 1],
      [4, 0],
    ]);
    assert.deepEqual([...statementHits(hits, null, 10)], [...hits]);
  });

  it('a forged report with huge or absurd DA lines adds nothing and costs one pass', async () => {
    const statements = await rustStatementLines('fn f() {\n    g();\n}\n');
    const forged = ['SF:/x/a.rs', 'DA:9007199254740991,1', 'DA:-5,1', 'DA:2,1', ...Array.from({ length: 50_000 }, (_, i) => `DA:${i + 100},1`), 'end_of_record'].join('\n');
    const hits = statementHits(parseLcov(forged, '/x/a.rs'), statements, 3);
    assert.deepEqual([...hits], [[2, 1]]);
  });

  it('keeps the answer per source (scored once per sample and per mutant)', async () => {
    const src = 'fn a() {\n    b();\n}\n';
    assert.equal(await rustStatementLines(src), await rustStatementLines(src));
  });
});
