import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from '../helpers/paths';

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('architecture', () => {
  it('keeps src/engine free of vscode imports (it runs in plain Node, the CLI and the server)', () => {
    const offenders = sources(path.join(REPO_ROOT, 'src', 'engine')).filter((f) =>
      /from\s+['"]vscode(-languageclient|-languageserver)?(\/[^'"]*)?['"]|require\(['"]vscode['"]\)/.test(fs.readFileSync(f, 'utf8')),
    );
    assert.deepEqual(offenders, []);
  });

  it('ships compiled grammars for all five languages, not grammar packages', () => {
    for (const id of ['rust', 'go', 'php', 'ruby', 'julia']) assert.ok(fs.existsSync(path.join(REPO_ROOT, 'grammars', `${id}.wasm.gz`)), id);
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    const deps = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies });
    assert.deepEqual(deps.filter((d) => /^tree-sitter-/.test(d)), []);
  });
});
