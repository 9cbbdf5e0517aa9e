import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ScoreFunctionResult } from '../../../src/shared/scoring-protocol';
import { clickLens, lensesOn, openInEditor, runProcess, screenshot, skipBecause, startChatServer, userInput, useChatServer, waitFor, workspaceRoot, type ChatServer } from './helpers';

/**
 * Issue 30 ("a build that is progressing is never called broken"), in the editor with real cargo: a
 * crate made here, in a folder of the workspace, whose dependency chain has build scripts that sleep.
 * Each path dependency needs the one before it as a build-dependency, so the chain builds one crate
 * after the other however many cores there are, and cargo names each crate as it starts it.
 */

/** The build limit a user can set lowest (package.json: xrepotest.limits.buildSilenceSeconds, minimum 10). */
const SILENCE_SECONDS = 10;

/** Where in the crate the focal function starts (1-based): after its two doc lines. */
const FOCAL_LINE = 3;
const FOCAL_RS = `/// Counts the characters of \`s\` that are ASCII digits, and sums them; letters and others are
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

/** A model's passing test of digit_stats, as the local server answers it. */
const PASSING_REPLY = [
  '```rust',
  '#[cfg(test)]',
  'mod tests {',
  '    use super::*;',
  '',
  '    #[test]',
  '    fn test_digit_stats_counts_and_sums() {',
  '        assert_eq!(digit_stats("a1b2c3"), (3, 6));',
  '        assert_eq!(digit_stats(""), (0, 0));',
  '    }',
  '}',
  '```',
].join('\n');

/**
 * Writes `<workspace>/<name>/`: the crate with digit_stats, depending on a chain of `n` path
 * dependencies `<prefix>00…`; each one's build script sleeps `sleepMs`, then appends a line to
 * `runs` in its OUT_DIR (in the kept build folder: how often it ran to its end, across builds).
 * `stallAt`: that dependency's build script, the first time it runs only, first waits silently for
 * two minutes (longer than the silence limit): a build cut short once.
 */
function writeChain(name: string, prefix: string, n: number, sleepMs: number, stallAt?: number): { dir: string; deps: string[] } {
  const dir = path.join(workspaceRoot(), name);
  const deps = Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(2, '0')}`);
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  };
  deps.forEach((d, i) => {
    const before = i ? `[build-dependencies]\n${deps[i - 1]} = { path = "../${deps[i - 1]}" }\n` : '';
    write(`deps/${d}/Cargo.toml`, `[package]\nname = "${d}"\nversion = "0.1.0"\nedition = "2021"\nbuild = "build.rs"\n\n${before}`);
    const stall =
      i === stallAt
        ? [
            '    let tried = out.join("tried");',
            '    if !tried.exists() {',
            '        std::fs::write(&tried, "stalled once").unwrap();',
            '        std::thread::sleep(std::time::Duration::from_secs(120));',
            '    }',
          ]
        : [];
    write(
      `deps/${d}/build.rs`,
      [
        'use std::io::Write;',
        'fn main() {',
        '    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap());',
        ...stall,
        `    std::thread::sleep(std::time::Duration::from_millis(${sleepMs}));`,
        '    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(out.join("runs")).unwrap();',
        '    writeln!(f, "ran").unwrap();',
        '}',
        '',
      ].join('\n'),
    );
    write(`deps/${d}/src/lib.rs`, 'pub fn one() -> u32 { 1 }\n');
  });
  write('Cargo.toml', `[package]\nname = "${name}"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n${deps[n - 1]} = { path = "deps/${deps[n - 1]}" }\n`);
  write('src/lib.rs', FOCAL_RS);
  return { dir, deps };
}

/** How often each dependency's build script ran to its end, over every build kept under the engine's local cache. */
function scriptRuns(deps: string[]): Record<string, number> {
  const cache = path.join(process.env.XDG_CACHE_HOME ?? '', 'xrepotest', 'local');
  const runs: Record<string, number> = Object.fromEntries(deps.map((d) => [d, 0]));
  const walk = (dir: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory() && !e.isSymbolicLink()) walk(p);
      else if (e.isFile() && e.name === 'runs' && path.basename(dir) === 'out') {
        const crate = /^(.+)-[0-9a-f]+$/.exec(path.basename(path.dirname(dir)))?.[1];
        if (crate && crate in runs) runs[crate] += fs.readFileSync(p, 'utf8').split('\n').filter(Boolean).length;
      }
    }
  };
  walk(cache);
  return runs;
}

describe('a slow first build of a Rust crate in the editor (real cargo, local executor)', function () {
  this.timeout(900_000);
  let server: ChatServer;
  let model: { undo(): Promise<void> };
  const made: string[] = [];
  const config = () => vscode.workspace.getConfiguration('xrepotest');

  before(async function () {
    if ((await runProcess('cargo', ['--version'])).code !== 0) skipBecause(this, 'cargo is not installed');
    if ((await runProcess('sh', ['-c', 'command -v bwrap'])).code !== 0) skipBecause(this, 'bubblewrap is not installed (the local executor needs it)');
    server = await startChatServer(() => PASSING_REPLY);
    model = await useChatServer(server, 'local-rust-writer');
    await config().update('limits.buildSilenceSeconds', SILENCE_SECONDS, vscode.ConfigurationTarget.Global);
    // Reruns of the passing test are not what this tests.
    await config().update('reruns', 0, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
    await model?.undo();
    await server?.close();
    for (const key of ['limits.buildSilenceSeconds', 'reruns']) await config().update(key, undefined, vscode.ConfigurationTarget.Global);
  });

  /** Opens the crate's lib.rs and waits for digit_stats's Generate lens. */
  const openFocal = async (name: string): Promise<{ uri: vscode.Uri; generate: vscode.CodeLens }> => {
    const editor = await openInEditor(`${name}/src/lib.rs`);
    assert.strictEqual(editor.document.languageId, 'rust');
    const uri = editor.document.uri;
    const generate = await waitFor('the Generate lens on digit_stats', 60_000, async () => (await lensesOn(uri, FOCAL_LINE)).find((l) => l.command?.title === 'Generate scored tests'));
    return { uri, generate };
  };

  it('a build that takes well over the silence limit while cargo names crate after crate still scores (the lens counts them)', async () => {
    // Ten build scripts of two seconds, one after the other: 20 s of sleeping alone, twice the limit of
    // 10 s a build may print nothing; between two crates cargo prints within a few seconds.
    const { dir } = writeChain('slow_chain', 'slowdep', 10, 2000);
    made.push(dir);
    const { uri, generate } = await openFocal('slow_chain');
    const calls = server.received.length;
    let done = false;
    const scoring = clickLens<ScoreFunctionResult>(generate).then(
      (r) => ((done = true), r),
      (e: unknown) => ((done = true), Promise.reject(e)),
    );
    // What the lens says while the build runs: cargo's own count of crates.
    const building = new Set<string>();
    while (!done) {
      for (const l of await lensesOn(uri, FOCAL_LINE)) if (l.command && /crates? compiled/.test(l.command.title)) building.add(l.command.title);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const result = await scoring;
    assert.ok(result, 'the lens command returned a result');
    assert.strictEqual(result.environment, undefined, `a score, not an environment verdict: ${result.summary}`);
    assert.strictEqual(result.passed, true, result.reason ?? result.summary);
    assert.match(result.lensSummary!, /^✓ 1\/1 · \d+ % · calls digit_stats$/);
    assert.strictEqual(server.received.length, calls + 1, 'one model call, after the build');
    const counts = [...building].map((t) => Number(/(\d+) crates? compiled/.exec(t)?.[1] ?? 0));
    assert.ok(counts.length > 1 && Math.max(...counts) >= 5, `the lens counted the crates as cargo built them: ${[...building].join(' | ')}`);
    const titles = await waitFor('the score on the lens', 20_000, async () => {
      const t = (await lensesOn(uri, FOCAL_LINE)).map((l) => l.command?.title ?? '');
      return t.includes(result.lensSummary!) ? t : undefined;
    });
    assert.ok(!titles.some((t) => /not finished|can't run here/.test(t)), titles.join(' | '));
    const shot = await screenshot({ name: 'slow-build-scored', waitForText: result.lensSummary! });
    assert.strictEqual(shot.textFound, true, 'the workbench shows the score on the lens');
  });

  it('a build cut short says so on the lens with "Try again", asks no model, and the retry builds only what the first did not', async () => {
    // The fourth crate's script stalls (prints nothing past the limit) the first time it runs.
    const { dir, deps } = writeChain('cut_chain', 'cutdep', 6, 1000, 3);
    made.push(dir);
    const { uri, generate } = await openFocal('cut_chain');
    const calls = server.received.length;
    const cut = await clickLens<ScoreFunctionResult>(generate);
    assert.ok(cut?.environment, `an unfinished build, not a score: ${cut?.summary}`);
    assert.strictEqual(cut.lensSummary, '⏸ first build not finished');
    assert.match(cut.environment.cause, /first build of .* printed nothing for a while and was stopped/);
    assert.doesNotMatch(`${cut.environment.cause} ${cut.environment.fix}`, /does not build/);
    assert.ok(cut.environment.actions?.some((a) => a.kind === 'retry'), JSON.stringify(cut.environment.actions));
    assert.strictEqual(server.received.length, calls, 'no model call for a test that could not have run');
    const first = scriptRuns(deps);
    assert.deepStrictEqual(first, { cutdep00: 1, cutdep01: 1, cutdep02: 1, cutdep03: 0, cutdep04: 0, cutdep05: 0 }, 'the first build ran the scripts before the stall, and stopped there');

    const lenses = await waitFor('the Try again lens', 20_000, async () => {
      const found = await lensesOn(uri, FOCAL_LINE);
      return found.some((l) => l.command?.title === 'Try again') ? found : undefined;
    });
    const titles = lenses.map((l) => l.command?.title ?? '');
    assert.deepStrictEqual(titles.slice(titles.indexOf(cut.lensSummary)), [cut.lensSummary, 'Try again', 'How to fix', 'Generate scored tests']);
    await vscode.commands.executeCommand('notifications.clearAll');
    // The lens's words (the status bar says "Rust first build not finished" too, without the sign).
    const shot = await screenshot({ name: 'slow-build-try-again', waitForText: '⏸ first build not finished' });
    assert.strictEqual(shot.textFound, true, 'the workbench shows the unfinished build on the lens');

    const again = await clickLens<ScoreFunctionResult>(lenses.find((l) => l.command?.title === 'Try again')!);
    assert.strictEqual(again.environment, undefined, `the retry scores: ${again.summary}`);
    assert.strictEqual(again.passed, true, again.reason ?? again.summary);
    assert.strictEqual(server.received.length, calls + 1, 'the model is asked once the build is done');
    // Every script ran to its end once over both builds: the retry ran none of the first build's again.
    assert.deepStrictEqual(scriptRuns(deps), Object.fromEntries(deps.map((d) => [d, 1])), 'the retry built only what the first build had not');
    await waitFor('the score on the lens', 20_000, async () => ((await lensesOn(uri, FOCAL_LINE)).some((l) => l.command?.title === again.lensSummary) ? true : undefined));
  });

  it('Accept on a Rust test adds its module to the focal file, and the notification\'s Undo puts the file\'s old text back', async () => {
    const { uri } = await openFocal('cut_chain');
    const file = uri.fsPath;
    assert.strictEqual(fs.readFileSync(file, 'utf8'), FOCAL_RS);
    await vscode.commands.executeCommand('notifications.clearAll');
    const accept = await waitFor('the Accept test lens', 20_000, async () => (await lensesOn(uri, FOCAL_LINE)).find((l) => l.command?.title === 'Accept test'));
    assert.strictEqual(await clickLens<string>(accept), file, 'Rust keeps its tests in the focal file');
    const written = fs.readFileSync(file, 'utf8');
    assert.ok(written.startsWith(FOCAL_RS) && /mod digit_stats_tests/.test(written), written.slice(-400));
    const notice = "digit_stats's test is now in";
    const shot = await screenshot({ name: 'slow-build-accept-notification', waitForText: notice });
    assert.strictEqual(shot.textFound, true, 'a notification names where the test went');
    const undo = await userInput({ name: 'slow-build-accept-undo', steps: [{ waitForText: notice, click: '.notifications-toasts .notification-list-item:has-text("(added to the file)") .monaco-button:has-text("Undo")' }] });
    assert.strictEqual(undo.error, undefined, undo.error);
    await waitFor("lib.rs's old text back on disk", 15_000, () => (fs.readFileSync(file, 'utf8') === FOCAL_RS ? true : undefined));
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === file);
    assert.strictEqual(doc?.isDirty, false, 'saved');
    assert.strictEqual(doc?.getText(), FOCAL_RS);
  });
});
