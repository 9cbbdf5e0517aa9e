import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  BASELINE_NOTICE,
  initialModel,
  modelPlan,
  NOTICE_ACTIONS,
  noticeCommand,
  shouldOpenWalkthrough,
  shouldReopenWalkthrough,
  WALKTHROUGH_MAX_REOPEN,
  shouldShowBaselineNotice,
  WALKTHROUGH_ID,
} from '../../src/extension/first-run-model';

const ROOT = path.join(__dirname, '..', '..', '..');

describe('first run: walkthrough, baseline notice, choosing a model', () => {
  it('opens the walkthrough on the first activation only, unless the editor does not open walkthroughs on install', () => {
    assert.equal(shouldOpenWalkthrough({ seen: undefined, openOnInstall: undefined }), true);
    assert.equal(shouldOpenWalkthrough({ seen: undefined, openOnInstall: true }), true);
    // The second activation: the flag the first one set.
    assert.equal(shouldOpenWalkthrough({ seen: true, openOnInstall: true }), false);
    assert.equal(shouldOpenWalkthrough({ seen: undefined, openOnInstall: false }), false);
  });

  it("opens it again only over an editor's own start walkthrough, a bounded number of times", () => {
    const ourNames = ['XRepoTest', 'Get started with XRepoTest'];
    const reopen = (activeTabLabel: string | undefined, reopened = 0): boolean => shouldReopenWalkthrough({ activeTabLabel, ourNames, reopened });
    // code-server's own, shown in the Welcome editor over ours.
    assert.equal(reopen('Walkthrough: Setup VS Code Web'), true);
    assert.equal(reopen('Welcome'), true);
    // Ours is there, or the user opened something else: left alone.
    // Ours, as the Welcome editor names it (seen in code-server: "Walkthrough: XRepoTest").
    assert.equal(reopen('Walkthrough: XRepoTest'), false);
    assert.equal(reopen('Walkthrough: Get started with XRepoTest'), false);
    assert.equal(reopen('parse.rs'), false);
    assert.equal(reopen('Welcome.md'), false);
    assert.equal(reopen(undefined), false);
    // A user who goes back to the other walkthrough is not fought.
    assert.equal(reopen('Walkthrough: Setup VS Code Web', WALKTHROUGH_MAX_REOPEN), false);
  });

  it('contributes the walkthrough it opens, each step with its markdown in the package', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    const walkthrough = pkg.contributes.walkthroughs.find((w: { id: string }) => w.id === WALKTHROUGH_ID);
    assert.ok(walkthrough, WALKTHROUGH_ID);
    assert.deepEqual(walkthrough.steps.map((s: { id: string }) => s.id), ['chooseModel', 'setApiKey', 'generate', 'readScore', 'accept']);
    for (const s of walkthrough.steps) assert.ok(fs.existsSync(path.join(ROOT, s.media.markdown)), s.media.markdown);
    // Its buttons run commands the extension contributes.
    const commands = new Set(pkg.contributes.commands.map((c: { command: string }) => c.command));
    for (const s of walkthrough.steps)
      for (const [, id] of String(s.description).matchAll(/\(command:(xrepotest\.[\w]+)\)/g)) assert.ok(commands.has(id), `${s.id}: ${id}`);
    assert.ok(commands.has('xrepotest.chooseModel'));
  });

  it('shows the baseline notice at the first baseline scoring of a workspace, never again there, never for a model', () => {
    assert.equal(shouldShowBaselineNotice({ provider: 'baseline', shownInWorkspace: undefined }), true);
    assert.equal(shouldShowBaselineNotice({ provider: 'baseline', shownInWorkspace: true }), false);
    assert.equal(shouldShowBaselineNotice({ provider: 'anthropic', shownInWorkspace: undefined }), false);
    assert.match(BASELINE_NOTICE, /^No model is set: XRepoTest writes offline smoke tests \(no assertions\)\./);
  });

  it("maps the notice's three actions to what they do", () => {
    assert.deepEqual(Object.values(NOTICE_ACTIONS), ['Choose a model', 'Set an API key', 'Keep the offline tests']);
    assert.equal(noticeCommand('Choose a model'), 'xrepotest.chooseModel');
    assert.equal(noticeCommand('Set an API key'), 'xrepotest.setApiKey');
    assert.equal(noticeCommand('Keep the offline tests'), undefined);
    assert.equal(noticeCommand(undefined), undefined);
  });

  it('asks a model for the model APIs, a server address for an OpenAI-compatible one, a key where one is needed', () => {
    assert.deepEqual(modelPlan('baseline'), { askModel: false, pickChatModel: false, suggestedModel: '', askBaseUrl: false, needsKey: false });
    assert.deepEqual(modelPlan('anthropic'), { askModel: true, pickChatModel: false, suggestedModel: 'claude-sonnet-4-5', askBaseUrl: false, needsKey: true });
    // The editor's chat models are picked from those the editor offers, with no key.
    assert.deepEqual(modelPlan('vscode-lm'), { askModel: false, pickChatModel: true, suggestedModel: '', askBaseUrl: false, needsKey: false });
    assert.equal(modelPlan('openai-compatible').askBaseUrl, true);
    assert.equal(modelPlan('openai-compatible').needsKey, false);
    assert.equal(modelPlan('replay').askModel, false);
    // The model set for the same provider stays; another provider's model is not offered to this one.
    assert.equal(initialModel(modelPlan('anthropic'), { provider: 'anthropic', model: 'claude-opus-4' }, 'anthropic'), 'claude-opus-4');
    assert.equal(initialModel(modelPlan('anthropic'), { provider: 'openai', model: 'gpt-5.2' }, 'anthropic'), 'claude-sonnet-4-5');
  });
});
