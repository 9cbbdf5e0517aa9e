import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CONTEXT_MODE_SPECS } from '../../src/engine/context/modes';
import { runLabel } from '../../src/engine/report/run-label';
import { apiKeyChoices, choiceDescription, settingChoices } from '../../src/extension/setting-choices';
import { CONTEXT_MODE_NAMES, EXECUTOR_KINDS, PROVIDER_SETTINGS } from '../../src/shared/protocol';

const pkg: unknown = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8'));

describe('quick picks and report titles in plain words', () => {
  it('every provider, context mode and executor has a description in package.json (Settings editor and quick picks)', () => {
    for (const [key, values] of [['xrepotest.provider', PROVIDER_SETTINGS], ['xrepotest.mode', CONTEXT_MODE_NAMES], ['xrepotest.executor', EXECUTOR_KINDS]] as const)
      for (const c of settingChoices(pkg, key, values)) assert.ok(c.description && c.description.length > 10, `${key} ${c.label}`);
  });

  it("the context modes' descriptions are the mode registry's labels", () => {
    assert.deepEqual(
      settingChoices(pkg, 'xrepotest.mode', CONTEXT_MODE_NAMES).map((c) => c.description),
      CONTEXT_MODE_SPECS.map((m) => m.label),
    );
  });

  it('puts the current setting first and says so', () => {
    const choices = settingChoices(pkg, 'xrepotest.executor', EXECUTOR_KINDS, 'docker');
    assert.deepEqual(choices.map((c) => c.label), ['docker', 'local']);
    assert.match(choiceDescription(choices[0])!, /Docker or Podman.* \(current setting\)$/);
    assert.doesNotMatch(choiceDescription(choices[1])!, /current setting/);
    assert.match(settingChoices(pkg, 'xrepotest.provider', PROVIDER_SETTINGS)[0].description!, /^Offline, no model: smoke tests/);
  });

  it('the API key pick says what each key is for', () => {
    const keys = apiKeyChoices(pkg, ['anthropic', 'openai', 'openai-compatible', 'embedding'], 'openai');
    assert.deepEqual(keys.map((k) => k.label), ['anthropic', 'openai', 'openai-compatible', 'embedding']);
    assert.match(keys[0].description!, /Anthropic's API/);
    assert.match(keys[1].description!, /\(the provider the settings use\)$/);
    assert.match(keys[3].description!, /Dense context mode/);
  });

  it('titles a benchmark report by who wrote the tests and with what context', () => {
    assert.equal(runLabel({ provider: 'baseline', model: 'baseline', mode: 'standard' }), 'offline baseline, standard context');
    assert.equal(runLabel({ provider: 'anthropic', model: 'claude-sonnet-4-5', mode: 'lsp' }), 'anthropic claude-sonnet-4-5, lsp context (definitions and references from language servers)');
    assert.doesNotMatch(runLabel({ provider: 'baseline', model: 'baseline', mode: 'bm25' }), /baseline baseline/);
  });
});
