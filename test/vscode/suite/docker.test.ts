import * as assert from 'node:assert';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { engineServerPid, EXTENSION_ID, openInEditor, REPO_ROOT, runProcess, skipBecause, waitFor, workspaceRoot } from './helpers';

interface Score {
  compiled: boolean;
  passed: boolean;
  testsRan: number;
  testsPassed: number;
  coveredLines: number[];
  executableLines: number[];
  invoked: boolean;
  placement: { relPath: string; path: string } | null;
}

const PODMAN_SERVICE = path.join(REPO_ROOT, 'scripts', 'podman-service.sh');
const GO_IMAGE = 'xrepotest/go:debian';

/**
 * The containers the engine server started, by the owner label the docker executor puts on each
 * (src/engine/execute/docker.ts): another xrepotest process on the same engine starts its own meanwhile.
 */
async function ourContainers(server: number): Promise<string[]> {
  const r = await runProcess('podman', ['ps', '-aq', '--filter', `label=xrepotest.owner-pid=${server}`]);
  return r.stdout.split('\n').filter(Boolean);
}


/**
 * The docker executor from the editor: the engine server runs the test in a container through the
 * Docker Engine API (Podman's, started here as a user would with scripts/podman-service.sh), and
 * everything the editor gets back is in workspace terms.
 */
describe('Scoring in a container (docker executor, Podman\'s Docker Engine API)', () => {
  const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('xrepotest');

  before(async function () {
    this.timeout(120_000);
    if ((await runProcess('podman', ['--version'])).code !== 0) skipBecause(this, 'podman is not installed (scripts/setup.sh installs it)');
    const service = await runProcess('bash', [PODMAN_SERVICE, 'start']);
    if (service.code !== 0) skipBecause(this, `the Podman service did not start: ${service.stderr.trim()}`);
    if ((await runProcess('podman', ['image', 'exists', GO_IMAGE])).code !== 0) {
      skipBecause(this, `${GO_IMAGE} is not built on this machine (\`node dist/cli.js images build go\`; the mocha suite builds it)`);
    }
  });

  after(async function () {
    this.timeout(60_000);
    await config().update('executor', undefined, vscode.ConfigurationTarget.Global);
    // Stops only a service the script started for this session's runtime folder.
    await runProcess('bash', [PODMAN_SERVICE, 'stop']);
  });

  it('scores Status in a container like on the host, maps the container\'s paths back to the workspace, and leaves no container', async function () {
    this.timeout(300_000);
    const editor = await openInEditor('item.go');
    await vscode.extensions.getExtension(EXTENSION_ID)!.activate();
    const server = await waitFor('the engine server', 30_000, engineServerPid);
    const containersBefore = await ourContainers(server);
    const score = async (executor: 'local' | 'docker'): Promise<Score> => {
      await config().update('executor', executor, vscode.ConfigurationTarget.Global);
      const r = (await vscode.commands.executeCommand('xrepotest.generateScoredTests', editor.document.uri.toString(), 7)) as Score | undefined;
      assert.ok(r, `a score from the ${executor} executor`);
      return r;
    };
    const local = await score('local');
    const docker = await score('docker');

    assert.strictEqual(docker.compiled, true);
    assert.strictEqual(docker.passed, local.passed);
    assert.deepStrictEqual([docker.testsRan, docker.testsPassed], [local.testsRan, local.testsPassed]);
    assert.deepStrictEqual(docker.coveredLines, local.coveredLines, 'the same focal lines covered in the container');
    assert.deepStrictEqual(docker.executableLines, local.executableLines);
    assert.strictEqual(docker.invoked, true);
    assert.ok(docker.placement, 'the test was placed');
    assert.strictEqual(path.dirname(docker.placement.path), workspaceRoot(), 'the container\'s test file, as a workspace path');
    assert.doesNotMatch(JSON.stringify(docker), /xrt-sandbox-/, 'no path of the disposable copy (mounted in the container) reaches the editor');
    // Only the containers this scoring started: one left by an earlier, killed process may be reaped
    // meanwhile (the executor removes containers whose owner is gone when it starts).
    const left = (await ourContainers(server)).filter((id) => !containersBefore.includes(id));
    assert.deepStrictEqual(left, [], 'every container of the run was removed');
  });
});
