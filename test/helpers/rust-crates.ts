import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LocalExecutor } from '../../src/engine/execute/local';
import { forgetWarmOutcomes } from '../../src/engine/execute/warm-environment';
import { extractRepository } from '../../src/engine/extract/extract';
import { hasTool, skipBecause } from './skip';
import type { TaskRecord } from '../../src/engine/tasks/record';

/**
 * Small crates made by a test, outside the project tree: a repository folder holding one crate whose
 * `src/lib.rs` has a focal function long enough to be kept by extraction.
 */
export const FOCAL_RS = `/// Counts the characters of \`s\` that are ASCII digits, and sums them; letters and others are
/// counted apart, and the sum saturates instead of overflowing.
pub fn digit_stats(s: &str) -> (usize, u32) {
    let mut count = 0;
    let mut sum: u32 = 0;
    let mut letters = 0;
    let mut others = 0;
    for c in s.chars() {
        if let Some(d) = c.to_digit(10) {
            count += 1;
            sum = sum.saturating_add(d);
        } else if c.is_alphabetic() {
            letters += 1;
        } else {
            others += 1;
        }
    }
    if letters + others + count != s.chars().count() {
        unreachable!("every character is counted once");
    }
    if count == 0 {
        return (0, 0);
    }
    (count, sum)
}
`;

export interface MadeCrate {
  /** The folder holding the repository (pass as --repos / repoDir's parent). */
  parent: string;
  /** The repository (= the crate's root). */
  repo: string;
}

/** Writes a crate `name` with the given Cargo.toml tail (dependencies…) and extra files. */
export function makeCrate(name: string, manifestTail: string, files: Record<string, string> = {}): MadeCrate {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-test-crate-'));
  const repo = path.join(parent, name);
  fs.mkdirSync(path.join(repo, 'src'), { recursive: true });
  fs.writeFileSync(path.join(repo, 'Cargo.toml'), `[package]\nname = "${name}"\nversion = "0.1.0"\nedition = "2021"\n\n${manifestTail}\n`);
  fs.writeFileSync(path.join(repo, 'src', 'lib.rs'), FOCAL_RS);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(repo, rel)), { recursive: true });
    fs.writeFileSync(path.join(repo, rel), text);
  }
  return { parent, repo };
}

export async function focalTask(repo: string): Promise<TaskRecord> {
  const name = path.basename(repo);
  const { tasks } = await extractRepository(repo, { repository: { name, url: repo, commit: null, path: repo } });
  const task = tasks.find((t) => t.function_name === 'digit_stats');
  if (!task) throw new Error(`no digit_stats task in ${repo}`);
  return task;
}

/** A passing test, as a model writes it; `extra` goes inside the module (a dev-dependency's use…). */
export function passingTest(extra = ''): string {
  return `#[cfg(test)]
mod tests {
    use super::*;
${extra}
    #[test]
    fn test_digit_stats_counts_and_sums() {
        assert_eq!(digit_stats("a1b2c3"), (3, 6));
        assert_eq!(digit_stats(""), (0, 0));
    }
}
`;
}

/**
 * Per test of a describe block: skipped (saying why) without cargo or bubblewrap; a local executor
 * with a warm cache of its own; the crate the test made (`crates.made`) and that cache removed after.
 */
export function localCargoPerTest(): { executor(): LocalExecutor; crates: { made?: MadeCrate } } {
  let cacheRoot = '';
  let executor: LocalExecutor | undefined;
  const crates: { made?: MadeCrate } = {};
  beforeEach(function () {
    if (!hasTool('cargo')) skipBecause(this, 'cargo is not installed');
    if (!hasTool('bwrap')) skipBecause(this, 'bubblewrap is not installed');
    cacheRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'xrt-test-warm-'));
    executor = new LocalExecutor({ cacheRoot, isolation: 'bubblewrap' });
    forgetWarmOutcomes();
  });
  afterEach(() => {
    if (crates.made) fs.rmSync(crates.made.parent, { recursive: true, force: true });
    crates.made = undefined;
    if (cacheRoot) fs.rmSync(cacheRoot, { recursive: true, force: true });
    forgetWarmOutcomes();
  });
  return { executor: () => executor!, crates };
}
