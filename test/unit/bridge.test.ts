import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { URI } from 'vscode-uri';
import { toLocations } from '../../src/engine/context/lsp/headless-resolver';
import { hoverToText, toBridgeLocations, toBridgeSymbols } from '../../src/extension/bridge-convert';
import { type BridgeSymbol } from '../../src/shared/bridge-protocol';

const range = (l1: number, c1: number, l2: number, c2: number) => ({ start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });

describe('bridge: the editor answers as plain LSP data', () => {
  it('turns Locations and LocationLinks into uri + range, links by the name they target, each place once', () => {
    const a = URI.file('/ws/inventory.go');
    const b = URI.file('/ws/item.go');
    const out = toBridgeLocations([
      { uri: a, range: range(15, 5, 15, 9) },
      { targetUri: b, targetRange: range(6, 0, 28, 1), targetSelectionRange: range(6, 15, 6, 21) },
      { targetUri: b, targetRange: range(30, 0, 33, 1) },
      { uri: a, range: range(15, 5, 15, 9) },
    ]);
    assert.deepEqual(out, [
      { uri: a.toString(), range: range(15, 5, 15, 9) },
      { uri: b.toString(), range: range(6, 15, 6, 21) },
      { uri: b.toString(), range: range(30, 0, 33, 1) },
    ]);
    assert.deepEqual(toBridgeLocations(undefined), []);
  });

  it('gives the server locations it reads back as the same files and ranges (the engine side of the bridge)', () => {
    const file = path.resolve('/ws/pkg/inventory.go');
    const bridged = toBridgeLocations([{ targetUri: URI.file(file), targetRange: range(1, 0, 9, 1), targetSelectionRange: range(1, 5, 1, 9) }]);
    assert.deepEqual(toLocations(bridged), [{ file, range: range(1, 5, 1, 9) }]);
  });

  it('joins hovers from every provider, keeping a code block\'s language as a fence', () => {
    const text = hoverToText([
      { contents: [{ value: '```go\ntype Item struct\n```' }, ''] },
      { contents: ['plain words', { language: 'go', value: 'func (it Item) Status(today int) string' }] },
    ]);
    assert.equal(text, '```go\ntype Item struct\n```\n\nplain words\n\n```go\nfunc (it Item) Status(today int) string\n```');
    assert.equal(hoverToText([{ contents: ['  '] }]), null);
    assert.equal(hoverToText(undefined), null);
  });

  it('keeps the nesting of document symbols and numbers their kinds as LSP does', () => {
    // The editor's command answers with objects that are a SymbolInformation and a DocumentSymbol at once.
    const method = { name: 'Status', kind: 5, range: range(6, 0, 28, 1), selectionRange: range(6, 15, 6, 21), children: [], location: { uri: URI.file('/ws/item.go'), range: range(6, 0, 28, 1) } };
    const struct = { name: 'Item', kind: 22, range: range(15, 0, 22, 1), selectionRange: range(15, 5, 15, 9), children: [method], location: { uri: URI.file('/ws/item.go'), range: range(15, 0, 22, 1) } };
    const flat = { name: 'CategoryLabel', kind: 11, location: { uri: URI.file('/ws/item.go'), range: range(36, 0, 60, 1) } };
    const out = toBridgeSymbols([struct, flat]);
    const expected: BridgeSymbol[] = [
      { name: 'Item', kind: 23, range: range(15, 0, 22, 1), selectionRange: range(15, 5, 15, 9), children: [{ name: 'Status', kind: 6, range: range(6, 0, 28, 1), selectionRange: range(6, 15, 6, 21), children: [] }] },
      { name: 'CategoryLabel', kind: 12, range: range(36, 0, 60, 1), selectionRange: range(36, 0, 60, 1), children: [] },
    ];
    assert.deepEqual(out, expected);
  });
});
