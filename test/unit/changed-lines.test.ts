import { strict as assert } from 'node:assert';
import { parseUnifiedZero, touches, type ChangedLines } from '../../src/engine/extract/changed-lines';

describe('extract --changed-since: the lines a diff changed', () => {
  const diff = [
    'diff --git a/pkg/a.go b/pkg/a.go',
    'index 1111111..2222222 100644',
    '--- a/pkg/a.go',
    '+++ b/pkg/a.go',
    '@@ -10,2 +10,3 @@ func A() {',
    '-x',
    '+y',
    '@@ -40 +41 @@ func B() {',
    '@@ -60,3 +61,0 @@ func C() {',
    'diff --git a/gone.go b/gone.go',
    'deleted file mode 100644',
    '--- a/gone.go',
    '+++ /dev/null',
    '@@ -1,5 +0,0 @@',
    'diff --git "a/d\\303\\251j\\303\\240.rb" "b/d\\303\\251j\\303\\240.rb"',
    '--- "a/d\\303\\251j\\303\\240.rb"',
    '+++ "b/d\\303\\251j\\303\\240.rb"',
    '@@ -0,0 +1,4 @@',
  ].join('\n');

  it('reads the new side of each hunk; a deletion marks the lines around it; a deleted file has none', () => {
    const files = parseUnifiedZero(diff);
    assert.deepEqual(files.get('pkg/a.go'), [
      [10, 12],
      [41, 41],
      [61, 62],
    ]);
    assert.equal(files.has('gone.go'), false);
    assert.deepEqual(files.get('déjà.rb'), [[1, 4]], 'a path git quoted is read back');
  });

  it('a function is touched when a changed range overlaps its lines, and only then', () => {
    const changed: ChangedLines = { ref: 'main', commit: 'a'.repeat(40), files: parseUnifiedZero(diff) };
    assert.equal(touches(changed, 'pkg/a.go', 1, 9), false);
    assert.equal(touches(changed, 'pkg/a.go', 5, 10), true);
    assert.equal(touches(changed, 'pkg/a.go', 42, 60), false);
    assert.equal(touches(changed, 'pkg/a.go', 62, 70), true, 'the function after a deletion');
    assert.equal(touches(changed, 'pkg/other.go', 1, 1000), false);
  });
});
