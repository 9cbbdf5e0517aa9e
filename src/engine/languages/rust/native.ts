import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseWithDeadline } from '../../parse/parse';
import type { NativeTestCommand } from '../execution-types';
import { focalConfiguration, insertionOffset } from './configuration';
import { testExecutables, unwrapTestModule } from './toolchain';

const MODULE = 'xrepotest_native';

/** llvm-profdata/llvm-cov of the LLVM major version rustc was built with, else the unversioned ones (as the coverage phase picks them). */
function llvmTool(name: 'llvm-profdata' | 'llvm-cov'): string {
  const v = /^LLVM version: (\d+)/m.exec(spawnSync('rustc', ['--version', '--verbose'], { encoding: 'utf8' }).stdout ?? '')?.[1];
  const versioned = v ? `${name}-${v}` : null;
  return versioned && spawnSync(versioned, ['--version']).status === 0 ? versioned : name;
}

/**
 * `cargo test` with `-C instrument-coverage` (raw profiles into a folder), then `llvm-profdata merge`
 * and `llvm-cov export` for the focal file, in a person's checkout: the benchmark's reference. The
 * test goes into the focal file as a `#[cfg(test)]` module, where the toolchain puts it; the
 * instrumented build keeps a target folder of its own (`target/llvm-cov-target`, as cargo-llvm-cov
 * does), so it and the plain build do not rebuild each other's dependencies.
 */
export const rustNative: NativeTestCommand = {
  // Inside the test's module: the placement keeps the module's body, not the comments around it.
  mark(code, marker) {
    const end = code.lastIndexOf('}');
    return end < 0 ? `${code}\n// ${marker}\n` : `${code.slice(0, end)}// ${marker}\n${code.slice(end)}`;
  },

  async prepare({ projectRoot, focalFile, task, testCode, outDir }) {
    const original = fs.readFileSync(focalFile, 'utf8');
    const body = await unwrapTestModule(testCode);
    const module = `\n\n#[cfg(test)]\nmod ${MODULE} {\n${body.replace(/^\n+|\s+$/g, '')}\n}\n`;
    let at = original.length;
    // The features the focal code's cfg gates need, as a scored run builds with (configuration.ts): a
    // focal function behind a feature is otherwise not compiled, and the command times a run of 0 tests.
    let features: string[] = [];
    const parsed = await parseWithDeadline('rust', original, 10_000);
    if ('tree' in parsed) {
      try {
        at = insertionOffset(parsed.tree.rootNode, original.length, task.function_component.start_line);
        const crate = { dir: projectRoot, focalRelPath: path.relative(projectRoot, focalFile).split(path.sep).join('/') };
        features = (await focalConfiguration({ task, sandbox: crate }, parsed.tree.rootNode)).args;
      } finally {
        parsed.tree.delete();
      }
    }
    fs.writeFileSync(focalFile, original.slice(0, at) + module + original.slice(at));
    const prof = path.join(outDir, 'prof');
    const merged = path.join(outDir, 'merged.profdata');
    const profdata = llvmTool('llvm-profdata');
    const cov = llvmTool('llvm-cov');
    const filter = `${MODULE}::`;
    const covEnv = {
      RUSTFLAGS: '-C instrument-coverage',
      LLVM_PROFILE_FILE: path.join(prof, '%p-%m.profraw'),
      CARGO_TARGET_DIR: path.join(projectRoot, 'target', 'llvm-cov-target'),
      CARGO_TERM_COLOR: 'never',
    };
    return {
      testFile: focalFile,
      withCoverage: [
        () => {
          // Each round's profiles only: the merge reads every file in the folder.
          fs.rmSync(prof, { recursive: true, force: true });
          fs.mkdirSync(prof, { recursive: true });
          // One cargo run builds and runs; its JSON lines name the test executables llvm-cov reads.
          return { argv: ['cargo', 'test', '--offline', ...features, '--message-format=json-render-diagnostics', filter], cwd: projectRoot, env: covEnv };
        },
        { argv: ['sh', '-c', 'exec "$0" merge -sparse "$1"/*.profraw -o "$2"', profdata, prof, merged], cwd: projectRoot },
        ([cargoOut]) => {
          const objects = testExecutables(cargoOut ?? '').flatMap((e, i) => (i === 0 ? [e] : ['-object', e]));
          return { argv: [cov, 'export', '-format=lcov', `-instr-profile=${merged}`, ...objects, focalFile], cwd: projectRoot };
        },
      ],
      plain: [{ argv: ['cargo', 'test', '--offline', ...features, filter], cwd: projectRoot, env: { CARGO_TERM_COLOR: 'never' } }],
      restore: () => fs.writeFileSync(focalFile, original),
      // Both target folders built from the code without the test: the next run compiles what a new
      // test changes, not a comment's difference from the same test compiled a moment ago.
      settle: [
        { argv: ['cargo', 'test', '--no-run', '--offline', ...features], cwd: projectRoot, env: { ...covEnv, LLVM_PROFILE_FILE: path.join(outDir, 'settle-%p-%m.profraw') } },
        { argv: ['cargo', 'test', '--no-run', '--offline', ...features], cwd: projectRoot, env: { CARGO_TERM_COLOR: 'never' } },
      ],
    };
  },
};
