import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CODE_SERVER, EXTENSION_ID, REPO_ROOT, runProcess } from './helpers';

describe('the packaged extension', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'xrepotest-vsix-'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('packages with `npm run package` and installs into code-server', async function () {
    this.timeout(180_000);
    const { version } = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const vsix = path.join(tmp, 'xrepotest.vsix');
    const packed = await runProcess('npm', ['run', 'package', '--', '--out', vsix]);
    assert.strictEqual(packed.code, 0, `npm run package failed:\n${packed.stdout}\n${packed.stderr}`);
    assert.ok(fs.statSync(vsix).size > 0);

    // A code-server of its own: its own extensions, user data and XDG folders.
    const extensions = path.join(tmp, 'extensions');
    const dirs = ['--extensions-dir', extensions, '--user-data-dir', path.join(tmp, 'user-data')];
    const env = { XDG_CONFIG_HOME: path.join(tmp, 'config'), XDG_DATA_HOME: path.join(tmp, 'data') };
    const installed = await runProcess(CODE_SERVER, ['--install-extension', vsix, ...dirs], { env });
    assert.strictEqual(installed.code, 0, `install failed:\n${installed.stdout}\n${installed.stderr}`);
    const listed = await runProcess(CODE_SERVER, ['--list-extensions', '--show-versions', ...dirs], { env });
    assert.strictEqual(listed.code, 0, listed.stderr);
    assert.deepStrictEqual(listed.stdout.trim().split('\n'), [`${EXTENSION_ID}@${version}`]);

    // What the extension needs at run time came along, and the sources did not.
    const root = path.join(extensions, `${EXTENSION_ID}-${version}`);
    for (const file of ['package.json', 'dist/extension.js', 'dist/server.js', 'dist/tree-sitter.wasm', 'grammars/go.wasm.gz', 'grammars/rust.wasm.gz', 'syntaxes/xrepotest-transcript.tmLanguage.json', 'dist/example/tasks.jsonl', 'dist/example/manifest.json', 'dist/example/repos/inventory-go/item.go']) {
      assert.ok(fs.existsSync(path.join(root, file)), `${file} is in the installed extension`);
    }
    for (const dir of ['src', 'test', 'node_modules', '.vscode-test']) {
      assert.ok(!fs.existsSync(path.join(root, dir)), `${dir}/ is not in the installed extension`);
    }
  });
});
