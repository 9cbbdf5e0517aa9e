import { strict as assert } from 'node:assert';
import { stripDocblockAfterDeclare } from '../../src/engine/languages/php/prompt';
import { extractTest, fencedBlocks, MAX_BLOCKS } from '../../src/engine/prompt/extract-test';

const fence = (tag: string, body: string): string => '```' + tag + '\n' + body + '\n```';

describe('extractTest', () => {
  it('takes the block out of a reply wrapped in prose', () => {
    const code = 'func TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal("bad")\n\t}\n}';
    const reply = `Here are the tests you asked for:\n\n${fence('go', code)}\n\nThey cover the normal case. Run them with go test.`;
    assert.equal(extractTest(reply, 'go'), code);
  });

  it('joins several blocks of the language with a blank line, in order', () => {
    const a = "require 'rspec'";
    const b = "RSpec.describe Foo do\n  it 'works' do\n    expect(Foo.new.bar).to eq(1)\n  end\nend";
    const reply = `First the require:\n${fence('ruby', a)}\nThen the spec:\n${fence('rb', b)}\n`;
    assert.equal(extractTest(reply, 'ruby'), `${a}\n\n${b}`);
  });

  it('ignores blocks of other languages, and takes untagged ones', () => {
    const test = '#[test]\nfn adds() {\n    assert_eq!(add(1, 2), 3);\n}';
    const untagged = 'fn helper() -> i32 { 3 }';
    const reply = [
      'Add this to your file:',
      fence('rust', test),
      'Run it:',
      fence('bash', 'cargo test adds'),
      fence('toml', '[dev-dependencies]\nproptest = "1"'),
      fence('', untagged),
    ].join('\n');
    assert.equal(extractTest(reply, 'rust'), `${test}\n\n${untagged}`);
    assert.ok(!extractTest(reply, 'rust').includes('cargo test'));
  });

  it('accepts the usual aliases of each language, in any case', () => {
    const cases: Array<[Parameters<typeof extractTest>[1], string]> = [
      ['rust', 'rs'], ['go', 'golang'], ['ruby', 'rb'], ['julia', 'jl'], ['php', 'PHP'], ['go', 'Go'],
    ];
    for (const [lang, tag] of cases) assert.equal(extractTest(`x\n${fence(tag, 'code here')}\ny`, lang), 'code here', `${lang} / ${tag}`);
    // A fence in another of the five languages is not this one's.
    assert.equal(extractTest(`${fence('python', 'print(1)')}\n${fence('julia', '@test f(1) == 2')}`, 'julia'), '@test f(1) == 2');
    assert.equal(extractTest(`intro\n${fence('go', 'package x')}`, 'rust'), `intro\n${fence('go', 'package x')}`, 'no block of the language: raw text');
  });

  it('falls back to the whole reply, trimmed, when there is no fence', () => {
    const reply = '\n\n  using Test\n@testset "x" begin\n    @test f(1) == 2\nend\n\n';
    assert.equal(extractTest(reply, 'julia'), reply.trim());
  });

  it('keeps the last block when the reply is cut off inside it', () => {
    const first = 'package stack\n\nimport "testing"';
    const cut = 'func TestPush(t *testing.T) {\n\ts := New()\n\ts.Push(1)';
    const reply = `${fence('go', first)}\n\nAnd the test:\n\`\`\`go\n${cut}\n`;
    assert.equal(extractTest(reply, 'go'), `${first}\n\n${cut}`);
    assert.deepEqual(fencedBlocks(reply).map((b) => b.closed), [true, false]);
  });

  it('is not fooled by a fence inside the code: a Rust doc example, a longer outer fence', () => {
    const test = '/// ```\n/// assert_eq!(add(1, 1), 2);\n/// ```\n#[test]\nfn doc() {}';
    assert.equal(extractTest(fence('rust', test), 'rust'), test);
    const outer = '````rust\nlet s = "```";\n```\nstill code\n````';
    assert.equal(extractTest(outer, 'rust'), 'let s = "```";\n```\nstill code');
  });

  it(`joins at most ${MAX_BLOCKS} blocks`, () => {
    const reply = Array.from({ length: MAX_BLOCKS + 3 }, (_, i) => fence('go', `// block ${i}`)).join('\nprose\n');
    const out = extractTest(reply, 'go');
    assert.ok(out.includes(`// block ${MAX_BLOCKS - 1}`));
    assert.ok(!out.includes(`// block ${MAX_BLOCKS}`));
    assert.equal(out.split('\n\n').length, MAX_BLOCKS);
  });

  it('keeps Windows line endings out of the joined test', () => {
    const reply = 'Tests:\r\n```go\r\nfunc TestX(t *testing.T) {}\r\n```\r\n';
    assert.equal(extractTest(reply, 'go'), 'func TestX(t *testing.T) {}');
  });

  describe('PHP', () => {
    it('removes a docblock between declare(strict_types=1) and namespace, as the release does', () => {
      const code = '<?php\n\ndeclare(strict_types=1);\n\n/**\n * Tests for Slugger.\n */\nnamespace Textkit\\Tests;\n\nuse PHPUnit\\Framework\\TestCase;\n\n/** Kept: it documents the class. */\nfinal class SluggerTest extends TestCase {}';
      const out = extractTest(fence('php', code), 'php');
      assert.ok(!out.includes('Tests for Slugger'));
      assert.ok(out.includes('declare(strict_types=1);\n\nnamespace Textkit\\Tests;'));
      assert.ok(out.includes('/** Kept: it documents the class. */'), 'other docblocks stay');
      // Without a docblock there, nothing changes.
      const plain = '<?php\ndeclare(strict_types=1);\nnamespace A;\n';
      assert.equal(stripDocblockAfterDeclare(plain), plain);
    });

    it('keeps only the first <?php (and strict_types) when several blocks each open one', () => {
      const a = "<?php\ndeclare(strict_types=1);\n\nrequire_once __DIR__ . '/../vendor/autoload.php';\n\nuse PHPUnit\\Framework\\TestCase;";
      const b = '<?php\ndeclare(strict_types=1);\n\nfinal class WordStatsTest extends TestCase\n{\n    public function testCounts(): void {}\n}\n?>';
      const out = extractTest(`Setup:\n${fence('php', a)}\nTests:\n${fence('php', b)}`, 'php');
      assert.equal(out.match(/<\?php/g)?.length, 1);
      assert.equal(out.match(/declare\(strict_types=1\)/g)?.length, 1);
      assert.ok(out.startsWith('<?php\ndeclare(strict_types=1);'));
      assert.ok(out.includes('final class WordStatsTest'));
      assert.ok(!out.includes('?>'), 'a closing tag would print the next block as HTML');
    });
  });
});
