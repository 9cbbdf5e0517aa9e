import { strict as assert } from 'node:assert';
import { monotonicProgress, type McpProgress } from '../../src/mcp/progress';
import { mcpToolName, toolByMcpName } from '../../src/mcp/tool-names';
import { mcpToolOf } from '../../src/mcp/server';
import { TOOLS } from '../../src/engine/tools';

/** The MCP side of the tools that needs no client: names, the tool list's entries, progress values. */
describe('the MCP server (src/mcp)', () => {
  it('names the tools in snake case and finds them by that name only', () => {
    assert.deepEqual(TOOLS.map((t) => mcpToolName(t.id)), ['focal_functions', 'score_test', 'generate_tests', 'coverage', 'run_benchmark', 'mutants']);
    assert.equal(toolByMcpName('score_test')?.id, 'scoreTest');
    assert.equal(toolByMcpName('scoreTest'), undefined);
  });

  it('lists each tool with its schema as it is, and hints that only the reading tools are read-only', () => {
    for (const t of TOOLS) {
      const listed = mcpToolOf(t);
      assert.strictEqual(listed.inputSchema, t.inputSchema, 'the same object the editor\'s tools declare');
      assert.strictEqual(listed.outputSchema, t.outputSchema, 'each tool says the shape of its structured result');
      assert.equal(listed.annotations?.readOnlyHint, !t.runsCode && !t.callsModel, t.id);
      assert.equal(listed.annotations?.destructiveHint, false);
      assert.doesNotMatch(listed.description ?? '', /xrepotest_|focalFunctions|scoreTest/, 'other tools are named in MCP style');
    }
  });

  it('sends a growing value for every phase, whole units when tasks finish, never past the total', () => {
    const sent: McpProgress[] = [];
    const report = monotonicProgress((p) => sent.push(p));
    report({ done: 0, total: 2, message: 'a: context' });
    report({ done: 0, total: 2, message: 'a: compile' });
    report({ done: 0, total: 2, message: 'a: test' });
    report({ done: 1, total: 2, message: '1 of 2' });
    report({ done: 1, total: 2, message: 'b: test' });
    report({ done: 2, total: 2, message: '2 of 2' });
    report({ done: 2, total: 2, message: 'after the end' });
    assert.deepEqual(sent.map((p) => p.progress), [0, 0.5, 0.75, 1, 1.5, 2]);
    assert.ok(sent.every((p) => p.total === 2));
    assert.equal(sent[sent.length - 1].message, '2 of 2', 'nothing past the total is sent');
  });

  it('stops sending, rather than repeating a value, when a unit\'s halves are worn out', () => {
    const sent: number[] = [];
    const report = monotonicProgress((p) => sent.push(p.progress));
    for (let i = 0; i < 200; i++) report({ done: 3, message: `phase ${i}` });
    for (let i = 1; i < sent.length; i++) assert.ok(sent[i] > sent[i - 1]);
    assert.ok(sent.length < 200 && sent.every((v) => v < 4));
    report({ done: 4, message: 'next' });
    assert.equal(sent[sent.length - 1], 4);
  });
});
