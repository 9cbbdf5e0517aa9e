import * as path from 'node:path';
import { ensureDirInSandbox, readSandboxFile, SandboxFileError, writeSandboxFile } from '../../execute/safe-fs';
import { phase, readInSandbox, runnerPath, sandboxRel, readReport, writeInSandbox, type Placement, type RunContext, type Toolchain } from '../../execute/toolchain';
import { children, named } from '../../parse/nodes';
import { parseWithDeadline } from '../../parse/parse';
import { focalConfiguration, insertionOffset, type FocalConfiguration } from './configuration';
import { parseLcov } from '../../score/coverage/lcov';
import { rustStatementLines, statementHits } from './statement-lines';
import { LIBTEST_RUNNING, parseLibtestOutput } from '../../score/reports/libtest';
import { testTargetArgs, CARGO_METADATA_FILE } from './test-targets';
import { cargoMetadataOf, hostToolchain, pinnedToolchain, prepareWarmTarget } from './warm-target';
import { lineTracer, prepareLineTracer, traced } from './line-tracer';

function moduleName(ctx: RunContext): string {
  return `xrepotest_${ctx.id}`;
}

/**
 * The test's items, without the `#[cfg(test)] mod tests { … }` wrapper models usually write: our own
 * uniquely named module takes its place, so `use super::*;` still reaches the focal module.
 */
export async function unwrapTestModule(code: string): Promise<string> {
  const parsed = await parseWithDeadline('rust', code, 10_000);
  if (!('tree' in parsed)) return code;
  try {
    const items = named(parsed.tree.rootNode).filter((n) => n.type !== 'line_comment' && n.type !== 'block_comment');
    const mods = items.filter((n) => n.type === 'mod_item');
    const others = items.filter((n) => n.type !== 'mod_item' && n.type !== 'attribute_item');
    if (mods.length !== 1 || others.length) return code;
    const body = mods[0].childForFieldName('body');
    if (!body) return code;
    const inner = children(body);
    const open = inner[0];
    const close = inner[inner.length - 1];
    if (open?.type !== '{' || close?.type !== '}') return code;
    // Keep what stands outside the module (top-level `use` lines are items too, handled above).
    return code.slice(open.endIndex, close.startIndex);
  } finally {
    parsed.tree.delete();
  }
}

/** Every phase's flags: part of the warm target's key, as they change every artifact. */
const RUSTFLAGS = '-C instrument-coverage -A warnings';

/** Gates we could not evaluate at placement, for the reason of a module that was not built. */
const unknownGates = new WeakMap<Placement, string>();

/** What placement decided for cargo's command line, checked again: only `--features=<declared names>` and `--no-default-features`. */
function cargoArgs(placement: Placement): string[] {
  return (placement.buildArgs ?? []).filter((a) => a === '--no-default-features' || a === '--lib' || a === '--bins' || /^--features=[A-Za-z0-9_][A-Za-z0-9_+.-]*(?:,[A-Za-z0-9_][A-Za-z0-9_+.-]*)*$/.test(a));
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function cargoEnv(ctx: RunContext): Record<string, string> {
  // Offline: dependencies come from the host's cargo caches, read-only (CARGO_HOME from the executor),
  // filled by the engine's trusted fetch before the test existed (dependencies.ts).
  return {
    RUSTFLAGS,
    CARGO_TARGET_DIR: path.join(ctx.sandbox.xrt, 'target'),
    CARGO_NET_OFFLINE: 'true',
    CARGO_TERM_COLOR: 'never',
    // No incremental state: a slot's target is a copy-on-write view of the warm one, and rustc's
    // incremental session (hard links and rewrites of the previous one) copies it up file by file —
    // more than the crate's whole rebuild costs (semver: compile 0.74 s with it, 0.37 s without). The
    // artifacts are the same; only how they are reached differs.
    CARGO_INCREMENTAL: '0',
    LLVM_PROFILE_FILE: path.join(ctx.sandbox.out, 'prof', 'build-%p-%m.profraw'),
  };
}

/** Test executables from `cargo test --no-run --message-format=json` (artifacts built with the test profile). */
export function testExecutables(cargoOutput: string): string[] {
  const out: string[] = [];
  for (const line of cargoOutput.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const msg = JSON.parse(line) as { reason?: string; executable?: string | null; profile?: { test?: boolean } };
      if (msg.reason === 'compiler-artifact' && msg.executable && msg.profile?.test) out.push(msg.executable);
    } catch {
      /* a line of human output that happens to start with { */
    }
  }
  return out;
}

/**
 * cargo's `--message-format=json-render-diagnostics` output as text: the build's JSON messages
 * (artifacts, build scripts, "build-finished") are left out, a diagnostic message keeps its rendered
 * text; the diagnostics cargo rendered itself and any other line stay as they are.
 */
export function cargoJsonText(cargoOutput: string): string {
  const out: string[] = [];
  for (const line of cargoOutput.split('\n')) {
    if (line.startsWith('{')) {
      try {
        const msg = JSON.parse(line) as { reason?: unknown; message?: { rendered?: unknown } };
        if (msg && typeof msg === 'object' && typeof msg.reason === 'string') {
          if (msg.reason === 'compiler-message' && typeof msg.message?.rendered === 'string') out.push(msg.message.rendered.replace(/\n$/, ''));
          continue;
        }
      } catch {
        /* a line of human output that happens to start with { */
      }
    }
    out.push(line);
  }
  return out.join('\n');
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export const rustToolchain: Toolchain = {
  manifests: ['Cargo.toml'],
  // cargo's fingerprints and rustc's incremental state hold the package's and the target folder's
  // absolute paths: at a new path every slot would rebuild the crate from scratch (1.4 s instead of
  // 0.5 s for the fixture), however warm its target folder.
  fixedPath: true,

  async place(ctx: RunContext): Promise<Placement> {
    const body = await unwrapTestModule(ctx.testCode);
    const module = `\n\n#[cfg(test)]\nmod ${moduleName(ctx)} {\n${body.replace(/^\n+|\s+$/g, '')}\n}\n`;
    // The warm-up ran the repository's build script in this sandbox (in a container, or the slot that
    // built the warm entry): the focal file is read and written without following a link it may have
    // left there. It must still be the task's file_content, as the sandbox was made.
    const original = readSandboxFile(ctx.sandbox.dir, ctx.sandbox.focalInCopy, 64 * 1024 ** 2);
    if (original !== ctx.task.file_content) throw new SandboxFileError(`the focal file ${ctx.sandbox.focalRelPath} changed before the test was placed (by the project's build script?)`);
    const parsed = await parseWithDeadline('rust', original, 10_000);
    let at = original.length;
    let config: FocalConfiguration = { args: [] };
    if ('tree' in parsed) {
      try {
        at = insertionOffset(parsed.tree.rootNode, original.length, ctx.task.function_component.start_line);
        config = await focalConfiguration(ctx, parsed.tree.rootNode);
      } finally {
        parsed.tree.delete();
      }
    }
    writeSandboxFile(ctx.sandbox.dir, ctx.sandbox.focalInCopy, original.slice(0, at) + module + original.slice(at));
    const notes = [
      ...(at < original.length ? [`the test module went at the end of the inline module holding ${ctx.task.function_name} (line ${lineOf(original, at)})`] : []),
      ...(config.args.length ? [`cargo builds with ${config.args.join(' ')} (the focal code's cfg gates)`] : []),
      ...(config.unknownGate ? [`the focal code sits behind ${config.unknownGate}, which cannot be evaluated before the build`] : []),
    ];
    // Only the targets whose test harness can hold the module (test-targets.ts), as cargo named them in the warm-up.
    const targets = testTargetArgs(cargoMetadataOf(ctx), runnerPath(ctx, path.join(ctx.sandbox.projectRoot, 'Cargo.toml')), runnerPath(ctx, ctx.sandbox.focalFile));
    if (targets.length) notes.push(`cargo builds only the test harness of ${targets.map((t) => (t === '--lib' ? 'the library' : 'the binaries')).join(' and ')} (${targets.join(' ')}), where the test module is`);
    const placement: Placement = { testFile: ctx.sandbox.focalFile, writtenCode: module, testNames: [], notes, buildArgs: [...config.args, ...targets] };
    if (at < original.length) placement.insertedAt = at;
    if (config.environment) placement.environment = config.environment;
    if (config.unknownGate) unknownGates.set(placement, config.unknownGate);
    const tracer = lineTracer(ctx);
    if ('problem' in tracer) placement.notes.push(`the coverage is not cross-checked: ${tracer.problem}`);
    return placement;
  },

  // Cargo locks and may touch its target folder while the tests run.
  writableDirs: (ctx) => [path.join(ctx.sandbox.xrt, 'target')],

  compile(ctx, placement) {
    // The profiles' folder exists before the compile: an executor may open the writable folders to
    // the test at the compile's end (PhaseCommand.beforeTest), and build scripts write theirs there.
    ensureDirInSandbox(ctx.sandbox.dir, sandboxRel(ctx, path.join(ctx.sandbox.out, 'prof')));
    return phase('compile', ctx, ['cargo', 'test', '--no-run', '--offline', '--message-format=json-render-diagnostics', ...cargoArgs(placement)], ctx.sandbox.projectRoot, cargoEnv(ctx));
  },

  test(ctx, _placement, compiled) {
    const exes = testExecutables(compiled?.output ?? '');
    const prof = path.join(ctx.sandbox.out, 'prof');
    ensureDirInSandbox(ctx.sandbox.dir, sandboxRel(ctx, prof));
    // libtest filters by substring: our module's path segment selects only our tests in every binary.
    const lines = ['status=0', ...exes.map((e) => `${shellQuote(e)} ${shellQuote(moduleName(ctx) + '::')} || status=1`), 'exit $status'];
    const script = path.join(ctx.sandbox.xrt, 'run-tests.sh');
    // Written again per mutant, after the test ran once: never through a link the test left.
    writeInSandbox(ctx, script, lines.join('\n') + '\n');
    writeInSandbox(ctx, path.join(ctx.sandbox.xrt, 'test-executables.json'), JSON.stringify(exes));
    // Under the line tracer where the executor can seal its report from the test (line-tracer.ts).
    return traced(ctx, exes, phase('test', ctx, ['sh', script], ctx.sandbox.projectRoot, {
      ...cargoEnv(ctx),
      LLVM_PROFILE_FILE: path.join(prof, 'test-%p-%m.profraw'),
    }));
  },

  coverage(ctx) {
    const xrt = ctx.sandbox.xrt;
    const listed = readInSandbox(ctx, path.join(xrt, 'test-executables.json'));
    const exes = listed === null ? [] : (JSON.parse(listed) as string[]);
    if (!Array.isArray(exes) || !exes.length || exes.some((e) => typeof e !== 'string')) return null;
    const out = ctx.sandbox.out;
    const objects = exes.map((e, i) => (i === 0 ? shellQuote(e) : `-object ${shellQuote(e)}`)).join(' ');
    // llvm-profdata/llvm-cov must be the LLVM major version rustc was built with (toolchains.md). Known
    // on the host when nothing can change which rustc the phase runs (the host's toolchains, no
    // rust-toolchain file in the copy, no RUSTUP_TOOLCHAIN): else asked in the phase, a rustc start
    // (15–30 ms here) in every slot.
    const llvm = ctx.hostToolchains && !process.env.RUSTUP_TOOLCHAIN && !pinnedToolchain(ctx) ? /^LLVM version: (\d+)/m.exec(hostToolchain())?.[1] : undefined;
    const script = [
      'set -e',
      llvm ? `V=${llvm}` : `V=$(rustc --version --verbose | sed -n 's/^LLVM version: \\([0-9]*\\).*/\\1/p')`,
      'PD=llvm-profdata-$V; command -v $PD >/dev/null || PD=llvm-profdata',
      'COV=llvm-cov-$V; command -v $COV >/dev/null || COV=llvm-cov',
      `$PD merge -sparse ${shellQuote(path.join(out, 'prof'))}/test-*.profraw -o ${shellQuote(path.join(out, 'merged.profdata'))}`,
      // The focal file's records only (what focalHits reads; the native run asks the same).
      `$COV export -format=lcov -instr-profile=${shellQuote(path.join(out, 'merged.profdata'))} ${objects} ${shellQuote(runnerPath(ctx, ctx.sandbox.focalFile))} > ${shellQuote(path.join(out, 'coverage.lcov'))}`,
    ].join('\n');
    const file = path.join(xrt, 'coverage.sh');
    writeInSandbox(ctx, file, script + '\n');
    return phase('coverage', ctx, ['sh', file], ctx.sandbox.projectRoot, cargoEnv(ctx));
  },

  testReport: (_ctx, _placement, test) => parseLibtestOutput(test.output),

  // The compile phase writes cargo's JSON messages; the test phase runs the test binaries (text).
  displayText: (phase, output) => (phase.startsWith('compile') ? cargoJsonText(output) : output),

  async focalHits(ctx) {
    const lcov = readReport(ctx, 'coverage.lcov');
    if (lcov === null) return null;
    // llvm-cov names the sources as rustc compiled them: where the phases saw the sandbox.
    const hits = parseLcov(lcov, runnerPath(ctx, ctx.sandbox.focalFile));
    // Statement lines come from the task's focal file (trusted), never from what the test left in the copy.
    const statements = await rustStatementLines(ctx.task.file_content);
    return statementHits(hits, statements, ctx.task.function_component.end_line);
  },

  notBuilt(_ctx, placement, test, report) {
    // Every binary ran to its end and announced zero tests: our module's tests were in none of them.
    if (report.ran > 0 || test.timedOut || test.exitCode !== 0) return null;
    const announced = test.output.split('\n').flatMap((l) => LIBTEST_RUNNING.exec(l)?.[1] ?? []).map(Number);
    if (!announced.length || announced.some((n) => n > 0)) return null;
    const gate = unknownGates.get(placement);
    return (
      'no test of the test module ran in any test binary: it was not built (it declares no #[test] function, or the code around it is not compiled)' +
      (gate ? `; the focal code sits behind ${gate}, which could not be evaluated before the build` : '')
    );
  },

  // cargo names each crate as it starts compiling it.
  buildProgress: { unit: 'crates', line: /^\s*Compiling \S+ v\d/ },

  // Before the test exists: locally the trusted fetch, then the repository's warm target copied in;
  // in a container, a warm-up into the slot's own target (warm-target.ts).
  prepareSandbox: async (ctx, with_) => {
    await prepareLineTracer(ctx, with_.executor);
    return prepareWarmTarget(ctx, with_, {
      flags: RUSTFLAGS,
      targetInSandbox: path.join(ctx.sandbox.xrt, 'target'),
      command: (targetDir) =>
        phase(
          'warm-up',
          ctx,
          // Its status: do the dependencies resolve offline and does the project build (exit 1)? Then
          // the tests' build warms the dev-dependencies (exit 2: read by warm-target.ts).
          // First, cargo's account of the package's targets (no build script runs for it): which of them the compile builds.
          ['sh', '-c', 'cargo metadata --no-deps --format-version 1 --offline > "$0" 2>/dev/null || rm -f "$0"; cargo build --offline || exit 1; cargo test --no-run --offline || exit 2; exit 0', path.join(ctx.sandbox.xrt, CARGO_METADATA_FILE)],
          ctx.sandbox.projectRoot,
          { ...cargoEnv(ctx), CARGO_TARGET_DIR: targetDir },
        ),
    });
  },
};
