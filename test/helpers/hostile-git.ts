import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** git as the test's user (never the checkout's hardened git): a committer, no user configuration. */
export const testGit = (dir: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.org', '-C', dir, ...args], { encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } });

/** Every hook name git knows (githooks(5)): one hooks folder answers them all. */
const HOOKS = [
  'applypatch-msg', 'pre-applypatch', 'post-applypatch', 'pre-commit', 'pre-merge-commit', 'prepare-commit-msg', 'commit-msg',
  'post-commit', 'pre-rebase', 'post-checkout', 'post-merge', 'pre-push', 'pre-receive', 'update', 'proc-receive', 'post-receive',
  'post-update', 'reference-transaction', 'push-to-checkout', 'pre-auto-gc', 'post-rewrite', 'sendemail-validate',
  'fsmonitor-watchman', 'p4-changelist', 'p4-prepare-changelist', 'p4-post-changelist', 'p4-pre-submit', 'post-index-change',
];

/**
 * Plants in `repo`'s own configuration and attributes every way we know for a repository to name a
 * program git would start: filters (clean, smudge, long-running process), textconv, external diffs,
 * fsmonitor, hooks (core.hooksPath and .git/hooks), pager, editors, ssh, credential and askpass
 * helpers, gpg. Each program, if it ever runs, appends its name and arguments to `marker` (outside
 * the repository) and exits 0 (called without arguments, as a clean filter or pager is, it passes its
 * input through), so git would carry on as if nothing happened.
 */
export function plantHostileGitConfig(repo: string, marker: string): void {
  const outside = path.dirname(marker);
  const script = path.join(outside, 'evil.sh');
  fs.writeFileSync(script, `#!/bin/sh\necho "$0 $*" >> '${marker}'\n[ $# -eq 0 ] && exec cat\nexit 0\n`, { mode: 0o755 });
  const hooks = path.join(outside, 'evil-hooks');
  fs.mkdirSync(hooks, { recursive: true });
  const ownHooks = path.join(repo, '.git', 'hooks');
  fs.mkdirSync(ownHooks, { recursive: true });
  for (const h of HOOKS) {
    fs.copyFileSync(script, path.join(hooks, h));
    fs.copyFileSync(script, path.join(ownHooks, h));
  }
  const set = (key: string, value: string): void => void testGit(repo, 'config', key, value);
  for (const kind of ['clean', 'smudge', 'process']) set(`filter.evil.${kind}`, script);
  set('filter.evil.required', 'true');
  set('diff.evil.textconv', script);
  set('diff.evil.command', script);
  set('diff.external', script);
  set('core.fsmonitor', script);
  set('core.hooksPath', hooks);
  for (const key of ['core.pager', 'pager.diff', 'pager.ls-files', 'core.editor', 'sequence.editor', 'core.sshCommand', 'core.askPass', 'gpg.program', 'core.gitProxy'])
    set(key, script);
  set('credential.helper', `!${script}`);
  set('log.showSignature', 'true');
  // Attributes in the tree and in .git/info name the drivers for every file.
  fs.writeFileSync(path.join(repo, '.gitattributes'), '* filter=evil diff=evil\n');
  fs.mkdirSync(path.join(repo, '.git', 'info'), { recursive: true });
  fs.writeFileSync(path.join(repo, '.git', 'info', 'attributes'), '* filter=evil diff=evil\n');
}

/**
 * Makes `repo` a partial clone whose promisor remote is reached over ssh through the planted
 * core.sshCommand, and deletes the loose object `oid`: git that needs it fetches it "lazily" — by
 * starting the repository's ssh command.
 */
export function makeLazyFetching(repo: string, oid: string): void {
  testGit(repo, 'config', 'core.repositoryformatversion', '1');
  testGit(repo, 'config', 'extensions.partialClone', 'origin');
  testGit(repo, 'config', 'remote.origin.url', 'ssh://attacker.invalid/repo.git');
  testGit(repo, 'config', 'remote.origin.promisor', 'true');
  fs.rmSync(path.join(repo, '.git', 'objects', oid.slice(0, 2), oid.slice(2)));
}

/** What the planted programs wrote (empty when none ran). */
export function markerText(marker: string): string {
  return fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8') : '';
}
