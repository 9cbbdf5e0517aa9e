import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { benchmarkNeedsTrust, trustRefusal } from '../../src/extension/trust-model';
import { REPO_ROOT } from '../helpers/paths';

describe('workspace trust: what needs it and how a refusal reads', () => {
  it('asks trust for a benchmark of the workspace, not for the example or a tasks file the user picked', () => {
    assert.equal(benchmarkNeedsTrust('workspace'), true);
    assert.equal(benchmarkNeedsTrust('example'), false);
    assert.equal(benchmarkNeedsTrust({ tasks: '/t.jsonl' }), false);
  });

  it('says what was refused, why, and what to do', () => {
    assert.equal(
      trustRefusal('Generating tests'),
      'Generating tests is disabled until you trust this workspace: it would build and run the workspace\'s code (its build files, its tests). Trust the workspace to go on.',
    );
  });

  it('declares limited support for untrusted workspaces, restricting the settings that name servers, files and where tests run', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      capabilities: { untrustedWorkspaces: { supported: string; description: string; restrictedConfigurations: string[] } };
      contributes: { configuration: { properties: Record<string, unknown> } };
    };
    const u = pkg.capabilities.untrustedWorkspaces;
    assert.equal(u.supported, 'limited');
    assert.match(u.description, /disabled until the workspace is trusted/);
    for (const key of ['xrepotest.baseUrl', 'xrepotest.embedding.baseUrl', 'xrepotest.replayFile']) assert.ok(u.restrictedConfigurations.includes(key), key);
    for (const key of u.restrictedConfigurations) assert.ok(key in pkg.contributes.configuration.properties, `${key} is a setting of the extension`);
  });
});
