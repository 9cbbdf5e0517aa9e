/**
 * An environment verdict in the editor's words (issue 30, "causes in the user's words"): the engine's
 * reasons are written for the command line (`xrepotest doctor --repo DIR`, `--executor docker`,
 * `--compile-timeout`); in the editor the same fixes are actions — open the setting, run the project's
 * own command in a terminal, "Check this project", try again — and no flag is ever offered to copy.
 * Pure: test/unit checks it.
 */
import * as path from 'node:path';
import { verdictOfProblem, type EnvironmentVerdict } from '../engine/environment';
import type { LanguageId } from '../engine/parse/grammars';
import type { EnvironmentFix, EnvironmentProblem } from '../engine/score/types';
import type { VerdictAction } from '../shared/scoring-protocol';

export type EditorVerdict = EnvironmentVerdict & { actions: VerdictAction[] };

const CHECK_PROJECT = '"XRepoTest: Check this project"';
const CHECK_ENVIRONMENT = '"XRepoTest: Check the environment"';

/** The setting behind each build limit (package.json). */
export const BUILD_LIMIT_SETTINGS = { silence: 'xrepotest.limits.buildSilenceSeconds', total: 'xrepotest.limits.buildMinutes' } as const;

function actionOf(fix: EnvironmentFix, repoDir: string): VerdictAction {
  switch (fix.kind) {
    case 'retry':
      return { kind: 'retry', title: 'Try again' };
    case 'build-limit':
      return { kind: 'setting', title: 'Give builds more time', setting: BUILD_LIMIT_SETTINGS[fix.limit] };
    case 'executor':
      return { kind: 'setting', title: `Use the ${fix.executor} executor`, setting: 'xrepotest.executor' };
    case 'command':
      return { kind: 'terminal', title: 'Open in a terminal', command: fix.command, cwd: fix.cwd };
    case 'check-project':
      return { kind: 'check-project', title: 'Check this project', folder: fix.repoDir || repoDir };
  }
}

/** The fixes, said in the editor's words (the actions' titles and settings). */
function fixTextOf(fixes: readonly EnvironmentFix[]): string {
  const parts = fixes.map((f) => {
    switch (f.kind) {
      case 'retry':
        return 'what was built is kept: "Try again" continues it';
      case 'build-limit':
        return `give builds more time (setting "${BUILD_LIMIT_SETTINGS[f.limit]}")`;
      case 'executor':
        return `use the ${f.executor} executor (setting "xrepotest.executor")`;
      case 'command':
        return `run \`${f.command}\` in ${f.cwd}`;
      case 'check-project':
        return `${CHECK_PROJECT} says what is missing`;
    }
  });
  return parts.join(', or ');
}

/**
 * A fix's command that the editor may type into a terminal: a known build or install tool's, words
 * only. A reason can quote what a hostile repository's build printed (an error naming a path), so
 * anything with shell syntax (`|`, `;`, `$(`, quotes, redirections), placeholders (`DIR`) or another
 * program is never offered; and the editor types it without pressing Enter (src/extension/environment.ts).
 */
export function isProjectCommand(command: string, platform: NodeJS.Platform = process.platform): boolean {
  if (isCliWords(command) || /\b[A-Z]{3,}\b/.test(command) || !/^[\w@./:=+,~ -]+$/.test(command)) return false;
  // A system's package manager only on its system (a reason names Debian's and macOS's side by side).
  if (/^(sudo )?(apt|apt-get|dnf|yum|pacman) /.test(command)) return platform === 'linux';
  if (/^brew /.test(command)) return platform === 'darwin';
  return /^(cargo|rustup|go|bundle|gem|composer|julia|juliaup|npm|pecl)( |$)/.test(command);
}

/** A command of the command line's own (`xrepotest …`) or a flag: never something to copy or run in the editor. */
const isCliWords = (command: string): boolean => /^xrepotest\b/.test(command) || command.startsWith('-');

/**
 * The command line's words in a fix, rewritten for the editor, and the actions they name: the project
 * check, the environment check, the executor setting, and any other command (the project's own: `cargo
 * build --offline`, `bundle install`) to run in a terminal in the workspace folder.
 */
function fromCliWords(fix: string, repoDir: string): { fix: string; actions: VerdictAction[] } {
  const actions: VerdictAction[] = [];
  const add = (a: VerdictAction): void => {
    if (!actions.some((b) => b.kind === a.kind && b.title === a.title)) actions.push(a);
  };
  // "then run `xrepotest doctor --repo DIR`" and "check with `…`" become "run …"; the bare command its name.
  let text = fix.replace(/((?:then )?(?:run|check with) )?`xrepotest doctor --repo ([^`]+)`/g, (_m, verb: string | undefined, dir: string) => {
    add({ kind: 'check-project', title: 'Check this project', folder: dir === 'DIR' ? repoDir : dir });
    return verb ? `run ${CHECK_PROJECT}` : CHECK_PROJECT;
  });
  text = text.replace(/`xrepotest doctor`/g, () => {
    add({ kind: 'check-environment', title: 'Check the environment' });
    return CHECK_ENVIRONMENT;
  });
  text = text.replace(/`--executor (docker|local)`/g, (_m, kind: string) => {
    add({ kind: 'setting', title: `Use the ${kind} executor`, setting: 'xrepotest.executor' });
    return `the ${kind} executor (setting "xrepotest.executor")`;
  });
  // Our other commands (`xrepotest images build`) have no editor form: the environment check says what to do.
  text = text.replace(/`xrepotest [^`]*`/g, () => {
    add({ kind: 'check-environment', title: 'Check the environment' });
    return CHECK_ENVIRONMENT;
  });
  for (const m of text.matchAll(/`([^`]+)`/g)) {
    const command = m[1];
    if (!isProjectCommand(command)) continue;
    add({ kind: 'terminal', title: 'Open in a terminal', command, cwd: repoDir });
    break;
  }
  return { fix: text, actions };
}

/**
 * The verdict the editor shows for an engine's environment problem: cause, fix in the editor's words,
 * the actions, and a command to copy only where it is one a user runs themselves.
 */
export function editorVerdict(problem: EnvironmentProblem, language: LanguageId, executor: string, repoDir: string): EditorVerdict {
  const base = verdictOfProblem(problem, language, executor);
  const folder = path.resolve(repoDir);
  if (problem.fixes?.length) {
    const actions = problem.fixes.map((f) => actionOf(f, folder));
    const command = problem.fixes.find((f): f is Extract<EnvironmentFix, { kind: 'command' }> => f.kind === 'command')?.command;
    const { command: _cli, ...rest } = base;
    return { ...rest, fix: fixTextOf(problem.fixes), actions, ...(command ? { command } : {}) };
  }
  const { fix, actions } = fromCliWords(base.fix, folder);
  const { command, ...rest } = base;
  const keep = command && !isCliWords(command) ? { command } : {};
  if (base.setting && !actions.some((a) => a.kind === 'setting')) actions.unshift({ kind: 'setting', title: 'Open settings', setting: base.setting });
  if (!actions.some((a) => a.kind === 'check-environment')) actions.push({ kind: 'check-environment', title: 'Check the environment' });
  return { ...rest, fix, actions, ...keep };
}
