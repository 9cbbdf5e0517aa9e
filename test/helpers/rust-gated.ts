import * as fs from 'node:fs';
import * as path from 'node:path';
import { extractRepository } from '../../src/engine/extract/extract';
import type { TaskRecord } from '../../src/engine/tasks/record';

/** A function body long enough to be read as a focal function when the tests lower min-lines. */
function body(expr: string): string {
  return `{\n        let v = ${expr};\n        v\n    }`;
}

/**
 * A crate without dependencies whose functions sit behind every kind of gate: a feature on a file
 * module, a feature on an inline module, nested private modules, `#[path]`, other targets, Miri,
 * `cfg(any())`, a feature the crate does not declare, a default feature that must be off.
 */
export function writeGatedCrate(dir: string): void {
  const files: Record<string, string> = {
    'Cargo.toml': [
      '[package]',
      'name = "gated"',
      'version = "0.1.0"',
      'edition = "2021"',
      '',
      '[features]',
      'default = ["std"]',
      'std = []',
      'extra = [] # a comment',
      'fancy = [',
      '  "extra",',
      ']',
      '',
    ].join('\n'),
    'src/lib.rs': [
      '#[cfg(feature = "extra")]',
      'pub mod extra;',
      '#[cfg(all(feature = "std", not(feature = "fancy")))]',
      '#[path = "plain_impl.rs"]',
      'mod imp;',
      'pub mod shapes {',
      '    pub mod inner {',
      `        fn hidden_area(w: u32, h: u32) -> u32 ${body('w * h')}`,
      '    }',
      '    #[cfg(feature = "fancy")]',
      '    pub mod fancy {',
      `        pub fn sparkle(n: u32) -> u32 ${body('n + 7')}`,
      '    }',
      '}',
      `#[cfg(windows)]\npub fn windows_only(x: u32) -> u32 ${body('x + 1')}`,
      `#[cfg(miri)]\npub fn miri_only(x: u32) -> u32 ${body('x + 2')}`,
      `#[cfg(any())]\npub fn never_any(x: u32) -> u32 ${body('x + 3')}`,
      `#[cfg(feature = "nonexistent")]\npub fn undeclared(x: u32) -> u32 ${body('x + 4')}`,
      `#[cfg(not(feature = "std"))]\npub fn no_std_only(x: u32) -> u32 ${body('x + 5')}`,
      `#[cfg_attr(feature = "extra", cfg(target_os = "linux"))]\npub fn linux_when_extra(x: u32) -> u32 ${body('x + 6')}`,
      `#[cfg_attr(docsrs, doc(cfg(feature = "std")))]\npub fn documented(x: u32) -> u32 ${body('x + 8')}`,
      `pub fn plain(x: u32) -> u32 ${body('x * 2')}`,
      '',
    ].join('\n'),
    'src/extra.rs': [`pub fn boost(x: u32) -> u32 ${body('x + 100')}`, 'mod deeper;', ''].join('\n'),
    'src/extra/deeper.rs': [`pub fn deep(x: u32) -> u32 ${body('x + 200')}`, ''].join('\n'),
    'src/plain_impl.rs': [`pub fn imp_value(x: u32) -> u32 ${body('x + 300')}`, ''].join('\n'),
  };
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
}

export async function extractGated(dir: string): Promise<{ tasks: TaskRecord[]; dropped: Record<string, number> }> {
  const { tasks, summary } = await extractRepository(dir, {
    languages: ['rust'],
    filters: { minLines: 1 },
    repository: { name: path.basename(dir), url: dir, commit: null, path: dir },
  });
  return { tasks, dropped: summary.dropped };
}

