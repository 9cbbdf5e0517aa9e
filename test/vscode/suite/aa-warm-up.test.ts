import * as assert from 'node:assert';
import * as vscode from 'vscode';
import type { WarmUpApi } from '../../../src/extension/warm-up';
import { EXTENSION_ID, screenshot, waitFor } from './helpers';

/**
 * Issue 30: the background warm-up, its progress in the status bar and its Cancel. Named to run before
 * every scoring test (files run in name order): only then is the workspace's build still cold. The
 * runner turns the warm-up at opening off, so this test starts it as the opening would.
 */
describe('the background warm-up (inventory-go, local executor)', () => {
  let api: { warmUp: WarmUpApi };

  before(async () => {
    api = (await vscode.extensions.getExtension(EXTENSION_ID)!.activate()) as { warmUp: WarmUpApi };
  });

  it('shows the first build\'s progress in the status bar, and Cancel stops it keeping what was built', async function () {
    this.timeout(300_000);
    const warming = api.warmUp.start();
    // The build names its packages as it compiles them: the item counts them.
    await waitFor('the warm-up\'s progress in the status bar', 240_000, () => (/^\$\(sync~spin\) XRepoTest: building inventory-go \(Go\): \d+ packages? compiled$/.test(api.warmUp.status().text) ? true : undefined));
    const receipt = await screenshot({ name: 'warm-up-progress', waitForText: 'XRepoTest: building inventory-go (Go)' });
    assert.strictEqual(receipt.textFound, true, 'the status bar shows the build');
    assert.ok(api.warmUp.progress.some((p) => p.language === 'go' && p.built > 0 && p.unit === 'packages'), JSON.stringify(api.warmUp.progress.slice(-3)));
    await vscode.commands.executeCommand('xrepotest.cancelWarmUp');
    assert.strictEqual(await warming, undefined, 'the warm-up ends as cancelled');
    assert.match(api.warmUp.status().text, /warm-up stopped/);
    assert.strictEqual(api.warmUp.status().running, false);
  });

  it('continues on the next start and ends ready to score', async function () {
    this.timeout(300_000);
    const result = await api.warmUp.start();
    const go = result?.languages.find((l) => l.language === 'go');
    assert.strictEqual(go?.state, 'ready', JSON.stringify(result));
    assert.strictEqual(go?.built, true, 'this start finished the build');
    assert.match(api.warmUp.status().text, /^\$\(check\) XRepoTest: ready to score \(Go\)$/);
    // Nothing left to build: a third start finds it done at once.
    const again = await api.warmUp.start();
    assert.strictEqual(again?.languages.find((l) => l.language === 'go')?.built, false);
  });
});
