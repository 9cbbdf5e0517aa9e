import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { phpRepositoryFacts } from '../../src/engine/languages/php/doctor';
import { phpTamperingRules } from '../../src/engine/languages/php/tampering';
import { chooseRunner, composerToNpmRange, phpunitConstraint, phpunitMajorFor, satisfiesConstraint, type PhpunitRunner } from '../../src/engine/languages/php/runners';
import { userPromptFor } from '../../src/engine/prompt/templates';
import type { TaskRecord } from '../../src/engine/tasks/record';

/**
 * The PHPUnit that runs a package's tests must satisfy its composer.json constraint: PHPUnit 9 ignores
 * `#[DataProvider]` (the test then errors with ArgumentCountError and is blamed), 12 ignores
 * `@dataProvider`. Where this machine has none that fits, the slot is an environment verdict before
 * anything runs, naming the constraint, the runners and the fix.
 */

const host9: PhpunitRunner = { bin: '/usr/bin/phpunit', version: '9.6.7', major: 9, origin: 'host' };
const local11: PhpunitRunner = { bin: '/cache/11.5.19/bin/phpunit', version: '11.5.19', major: 11, origin: 'project-local' };

describe('PHPUnit runner by composer.json constraint', function () {
  this.timeout(180_000);

  it('reads Composer constraints as Composer does', () => {
    const cases: Array<[string, string, boolean]> = [
      ['^9.6', '9.6.7', true],
      ['^9.6', '10.5.0', false],
      ['^11.5 || ^12.5 || ^13.3', '11.5.19', true],
      ['^11.5 || ^12.5 || ^13.3', '9.6.7', false],
      ['^9.5|^10.0', '9.6.7', true], // a single pipe is "or" too
      ['>=9.0,<10.0', '9.6.7', true], // a comma is "and"
      ['>=9.0, <10.0', '10.0.0', false],
      ['~9.5', '9.6.7', true], // Composer's ~X.Y stops at X+1, npm's would stop at X.Y+1
      ['~9.5', '10.0.0', false],
      ['~9.5.0', '9.6.7', false],
      ['9.*', '9.6.7', true],
      ['^10.5@dev', '10.5.3', true],
      ['>= 8.5.15', '9.6.7', true],
      ['8.5.0 - 9.6.7', '9.6.7', true],
      ['*', '11.5.19', true],
    ];
    for (const [constraint, version, expected] of cases) assert.equal(satisfiesConstraint(version, constraint), expected, `${version} vs ${constraint} (${composerToNpmRange(constraint)})`);
    for (const opaque of ['dev-main', '!=9.6.7', '9.6.x-dev', '||']) assert.equal(composerToNpmRange(opaque), null, opaque);
  });

  it('finds the constraint in require-dev, then require, and ignores junk', () => {
    assert.equal(phpunitConstraint({ 'require-dev': { 'phpunit/phpunit': '^11.5' }, require: { 'phpunit/phpunit': '^9' } }), '^11.5');
    assert.equal(phpunitConstraint({ require: { 'phpunit/phpunit': '^9' } }), '^9');
    for (const junk of [null, 3, [], { 'require-dev': 'x' }, { 'require-dev': { 'phpunit/phpunit': 11 } }, { 'require-dev': { 'phpunit/phpunit': 'x'.repeat(1000) } }]) {
      assert.equal(phpunitConstraint(junk), null, JSON.stringify(junk).slice(0, 50));
    }
  });

  it('picks the host runner when it fits, a project-local one when only that fits, else an environment problem', () => {
    assert.deepEqual(chooseRunner(null, [host9, local11]), { runner: host9, note: null });
    assert.deepEqual(chooseRunner('^9.6 || ^11.5', [host9, local11]), { runner: host9, note: null });
    const eleven = chooseRunner('^11.5 || ^12.5', [host9, local11]);
    assert.ok('runner' in eleven && eleven.runner === local11 && /11\.5\.19/.test(eleven.note ?? ''));
    const none = chooseRunner('^12.5 || ^13.3', [host9, local11]);
    assert.ok('problem' in none);
    assert.equal(none.problem.cause, 'runner-mismatch');
    for (const part of ['^12.5 || ^13.3', '9.6.7 (host)', '11.5.19 (project-local)', '--executor docker']) assert.ok(none.problem.reason.includes(part), none.problem.reason);
    assert.ok(!none.problem.reason.includes('setup.sh'), 'setup.sh cannot help: its PHPUnit 11 is there and does not fit');
    const missing = chooseRunner('^11.5', [host9]);
    assert.ok('problem' in missing && missing.problem.reason.includes('scripts/setup.sh'), 'setup.sh is the fix where its PHPUnit 11 fits and is missing');
    const unread = chooseRunner('dev-main', [host9]);
    assert.ok('runner' in unread && unread.runner === host9 && /not understood/.test(unread.note ?? ''));
  });

  it('the PHP prompt names the runner\'s major version: attributes from 10 on, annotations for 9', async () => {
    const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-php-prompt-'));
    try {
      fs.mkdirSync(path.join(repo, 'pkg', 'src'), { recursive: true });
      fs.writeFileSync(path.join(repo, 'pkg', 'src', 'A.php'), '<?php\nfunction a(): int { return 1; }\n');
      const task = { file_path: 'repo/pkg/src/A.php', metadata: { namespace: '' } } as unknown as TaskRecord;
      const promptWith = (constraint: string | null, runners: PhpunitRunner[]): string => {
        fs.writeFileSync(path.join(repo, 'pkg', 'composer.json'), JSON.stringify(constraint === null ? {} : { 'require-dev': { 'phpunit/phpunit': constraint } }));
        const major = phpunitMajorFor(repo, task.file_path, runners);
        return userPromptFor(task, 'php', major === null ? {} : { phpunitMajor: major });
      };
      assert.match(promptWith('^11.5', [host9, local11]), /PHPUnit 11: declare data providers with the `#\[DataProvider\('name'\)\]` attribute/);
      assert.match(promptWith('^9.6', [host9, local11]), /PHPUnit 9: declare data providers with a `\/\*\* @dataProvider name \*\/`/);
      assert.match(promptWith(null, [host9, local11]), /PHPUnit 9:/, 'no constraint: the host runner');
      assert.doesNotMatch(promptWith('^13.0', [host9, local11]), /PHPUnit \d+:/, 'no runner fits: no version claimed');
      fs.rmSync(path.join(repo, 'pkg', 'composer.json'));
      fs.symlinkSync('/etc/hostname', path.join(repo, 'pkg', 'composer.json'));
      assert.equal(phpunitMajorFor(repo, task.file_path, [host9]), null, 'a linked composer.json is not read');
    } finally {
      fs.rmSync(repo, { recursive: true, force: true });
    }
  });

  it('doctor --repo reports the runner for the constraint and the classmap, and the mismatch as a problem', async () => {
    const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-php-doctor-'));
    try {
      fs.mkdirSync(path.join(repo, 'legacy'));
      fs.writeFileSync(path.join(repo, 'legacy', 'Old.php'), '<?php\nclass Old {}\ninterface OldI {}\n');
      const write = (constraint: string) =>
        fs.writeFileSync(path.join(repo, 'composer.json'), JSON.stringify({ 'require-dev': { 'phpunit/phpunit': constraint }, autoload: { classmap: ['legacy/', '../x'] } }));
      write('^11.5');
      const ok = await phpRepositoryFacts(repo, true, [host9, local11]);
      assert.deepEqual(ok.problems, []);
      assert.ok(ok.notes.some((n) => /PHPUnit 11\.5\.19 \(project-local\).*\^11\.5/.test(n)), ok.notes.join('\n'));
      assert.ok(ok.notes.includes('classmap: 2 classes in legacy'), ok.notes.join('\n'));
      assert.ok(ok.notes.some((n) => /"\.\.\/x" refused/.test(n)), ok.notes.join('\n'));
      write('^10.3');
      const bad = await phpRepositoryFacts(repo, true, [host9, local11]);
      assert.equal(bad.problems[0]?.cause, 'runner-mismatch');
    } finally {
      fs.rmSync(repo, { recursive: true, force: true });
    }
  });

  it('PHPUnit\'s own errors (10+) in the summary are no rewritten report; a test printing their header is caught', () => {
    const honest = 'There was 1 PHPUnit error:\n\n1) A::testX\nThe data provider specified for A::testX is invalid\n\nERRORS!\nTests: 1, Assertions: 1, Errors: 1, PHPUnit Deprecations: 1.\n';
    const report = (outsideErrors: number) => ({ ran: 1, passed: 1, failed: 0, errored: 0, skipped: 0, cases: [{ name: 'A::testY', status: 'passed' as const }], outsideErrors });
    assert.equal(phpTamperingRules.outputDisagrees!(honest, report(1), false), null);
    assert.equal(phpTamperingRules.outputDisagrees!(honest, report(0), false)?.rule, 'php-report-rewritten', 'the report must hold that error');
    const more = honest.replace('Errors: 1,', 'Failures: 1, Errors: 1,');
    assert.equal(phpTamperingRules.outputDisagrees!(more, report(1), false)?.rule, 'php-report-rewritten', 'a failure the report lacks');
    const framing = phpTamperingRules.signs.find((x) => x.id === 'php-framing')!;
    assert.ok(framing.regex.test('echo "There was 1 PHPUnit error:";'));
  });

});
