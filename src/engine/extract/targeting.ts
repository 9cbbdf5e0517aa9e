/**
 * What the editor says about a function a user points at: nothing when a test can call it (the
 * benchmark's filter is no reason to refuse), else why not and what to do instead.
 */
import type { DropRule, UntestableReason } from './filters';

export interface TargetedFunction {
  name: string;
  rule: DropRule | null;
  untestable: UntestableReason | null;
  nestedProject?: string;
  nonCommentLines: number;
}

/** The refusal for a function no test can call in place: the reason, then what to do. */
export function refusalOf(f: TargetedFunction, relPath: string, languageName: string): string {
  const dir = relPath.includes('/') ? relPath.slice(0, relPath.lastIndexOf('/') + 1) : relPath;
  switch (f.untestable) {
    case 'test-code':
      return `${f.name} is test code: tests are generated for the code under test; put the cursor in a function the test calls`;
    case 'tool-ignored':
      return `${f.name} is in ${dir}, which ${languageName}'s tools and the project's tests never build or load (examples, scripts, ignored folders): a test there would not run; put the cursor in a function of the project's own code`;
    case 'nested-module':
      return `${f.name} is in ${f.nestedProject ?? dir}/, a module of its own that the workspace's build never compiles: open ${f.nestedProject ?? dir} as a workspace folder to test it there`;
    case 'cfg-excluded':
      return `${f.name} is compiled only for another target or configuration, never by a test build here: put the cursor in a function this platform builds`;
    case 'nightly-only':
      return `${f.name} needs a nightly rustc (the crate's #![feature] applies to it) and the toolchain here is stable: install a nightly toolchain to test it`;
    case 'entry-point':
      return `${f.name} is a program's entry point: a unit test cannot call it; put the cursor in a function it calls`;
    case 'no-body':
      return `${f.name} has no body (an abstract or interface method): put the cursor in a method that implements it`;
    case 'parse-error':
      return `${f.name} does not parse (a syntax error in or near it): fix the syntax, then try again`;
    case null:
      return '';
  }
}

/** A note for a testable function the benchmark's filter would leave out (it is scored all the same), or null. */
export function outsideFilterNote(f: TargetedFunction): string | null {
  if (f.untestable !== null || f.rule === null) return null;
  const why: Record<string, string> = {
    'min-lines': `it has ${f.nonCommentLines} lines, fewer than the benchmark's minimum`,
    'max-lines': `it has ${f.nonCommentLines} lines, more than the benchmark's maximum`,
    name: 'the benchmark leaves out accessors and underscore names',
    'php-visibility': 'the benchmark leaves out private and protected methods',
    'no-return': 'it returns nothing, and the benchmark keeps functions with a result',
    'scaffolding-folder': 'the benchmark leaves out benchmark, documentation, example and tooling folders',
  };
  return `${f.name} is outside the benchmark's filter (${why[f.rule] ?? f.rule}); it is scored all the same`;
}
