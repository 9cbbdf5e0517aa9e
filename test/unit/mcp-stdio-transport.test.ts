import { strict as assert } from 'node:assert';
import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { idFromEnds, LimitedStdioTransport } from '../../src/mcp/stdio-transport';

/**
 * The MCP server's stdio transport on streams of the test's own: messages split across chunks and
 * lines, a message over the limit refused for its id wherever the id is, and the connection going on.
 * (test/integration/mcp-server.test.ts sends the real process a 40 MB message.)
 */

interface Wired {
  input: PassThrough;
  received: JSONRPCMessage[];
  errors: string[];
  /** What the transport wrote back, one parsed message a line. */
  written(): Array<{ id: unknown; error?: { code: number; message: string } }>;
}

async function wire(maxMessageBytes: number): Promise<Wired> {
  const input = new PassThrough();
  const output = new PassThrough();
  let out = '';
  output.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const t = new LimitedStdioTransport({ maxMessageBytes, limitHint: '--max-message-mb 1', stdin: input, stdout: output });
  const w: Wired = { input, received: [], errors: [], written: () => out.split('\n').filter(Boolean).map((l) => JSON.parse(l)) };
  t.onmessage = (m) => w.received.push(m);
  t.onerror = (e) => w.errors.push(e.message);
  await t.start();
  return w;
}

const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('the MCP stdio transport: a bounded message size that refuses instead of closing', () => {
  it('finds a request\'s id at either end of a message, never one nested inside it', () => {
    assert.equal(idFromEnds('{"jsonrpc":"2.0","id":7,"method":"x","params":{"a":"', ''), 7);
    assert.equal(idFromEnds('{"id":"abc","method"', ''), 'abc');
    assert.equal(idFromEnds('{"method":"tools/call","params":{"x":"', 'xxxx"}},"jsonrpc":"2.0","id":42}'), 42);
    assert.equal(idFromEnds('{"method":"m","params":{"', 'xx","id":3}}'), null, 'an id of the params is not the message\'s');
    assert.equal(idFromEnds('{"method":"m","params":{"s":"', 'a,\\"id\\":9}"}}'), null, 'nor one inside a string');
    assert.equal(idFromEnds('{"method":"m","params":{"', 'x"}}'), null);
  });

  it('delivers messages split across chunks and joined in one, with \\r\\n or \\n line ends', async () => {
    const w = await wire(1024);
    const a = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const b = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
    w.input.write(a.slice(0, 5));
    w.input.write(a.slice(5) + '\r\n' + b + '\n\n');
    await settle();
    assert.deepEqual(w.received, [JSON.parse(a), JSON.parse(b)]);
    assert.deepEqual(w.written(), []);
  });

  it('refuses a message over the limit, sent in many chunks, answers for its id, and delivers the next one', async () => {
    const w = await wire(1024);
    w.input.write('{"method":"tools/call","params":{"s":"');
    for (let i = 0; i < 100; i++) w.input.write('y'.repeat(1000));
    w.input.write('"},"jsonrpc":"2.0","id":5}\n' + JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'ping' }) + '\n');
    await settle();
    const [refusal] = w.written();
    assert.equal(refusal.id, 5);
    assert.equal(refusal.error?.code, -32600);
    assert.equal(refusal.error?.message, 'message of 100064 bytes is over the limit of 1024 bytes (--max-message-mb 1); nothing of it was read');
    assert.deepEqual(w.received, [{ jsonrpc: '2.0', id: 6, method: 'ping' }]);
    assert.match(w.errors.join('\n'), /refused a message of 100064 bytes, over the limit of 1024 bytes \(--max-message-mb 1\), request 5/);
  });

  it('answers a line that is not JSON with -32700 and one that is not JSON-RPC with -32600, but never a malformed response', async () => {
    const w = await wire(1024);
    w.input.write('{"jsonrpc":\n{"jsonrpc":"1.0","id":3,"method":"x"}\n{"jsonrpc":"2.0","id":4,"result":"not an object"}\n');
    await settle();
    assert.deepEqual(
      w.written().map((m) => [m.id, m.error?.code]),
      [
        [null, -32700],
        [3, -32600],
      ],
    );
    assert.equal(w.errors.length, 3);
    assert.deepEqual(w.received, []);
  });
});
