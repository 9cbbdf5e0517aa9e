import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  PLACE_CANDIDATE,
  REGENERATE_CANDIDATE,
  REPAIR_CANDIDATE,
  RUN_CANDIDATE,
  type CandidateCase,
  type PlaceCandidateResult,
  type ScoreFunctionResult,
} from '../shared/scoring-protocol';
import type { WithSettings } from '../shared/protocol';
import type { ClientRequest } from '../shared/wire';
import { wasCancelled, type Engine } from './engine';
import { onDidScoreFunction } from './scoring';
import { requestSettings } from './settings';
import { candidateLabel, candidateState, CoverageAccumulator, focalDeclarationName, messageContext, phaseOutput, type ItemState } from './testing-model';

/** Generated tests are shown read-only under this scheme until "Accept into project" writes one. */
const CANDIDATE_SCHEME = 'xrepotest-candidate';

type ProfileKind = 'run' | 'coverage';

/** What one run reported, for the extension's own tests and for other extensions. */
export interface TestingRunRecord {
  name: string;
  profile: ProfileKind;
  /** By test item id. */
  states: Map<string, { state: ItemState; messages: vscode.TestMessage[] }>;
  coverage: Array<{ fileCoverage: vscode.FileCoverage; details: vscode.FileCoverageDetail[] }>;
  /** What the run appended to Test Results (its output terminal), in order. */
  output?: string[];
}

export interface TestingApi {
  controller: vscode.TestController;
  /** Every run recorded this session, oldest first. */
  runs: TestingRunRecord[];
  /** Adds a scored test (a generation, or a re-run's result) as a candidate under its focal function, with its run. */
  record(result: ScoreFunctionResult): vscode.TestItem;
  /** Runs items (default: all) with a profile, as the Testing view's Run and Coverage buttons do. */
  run(profile: ProfileKind, include?: readonly vscode.TestItem[], token?: vscode.CancellationToken): Promise<TestingRunRecord>;
  /** The scored test behind a candidate or test-case item. */
  resultOf(item: vscode.TestItem): ScoreFunctionResult | undefined;
}

interface Candidate {
  item: vscode.TestItem;
  focal: vscode.TestItem;
  result: ScoreFunctionResult;
  /** The read-only document showing the test code. */
  doc: vscode.Uri;
}

/** The arguments VS Code passes to `testing/message/*` menu commands. */
interface TestMessageMenuArgs {
  test?: vscode.TestItem;
  message?: vscode.TestMessage;
}

/**
 * The native Testing view for generated tests: focal function -> candidate (one generated or re-run
 * test) -> the runner's test cases. Every "Generate scored tests" adds a candidate with its run; Run and
 * Coverage re-run candidates in a disposable copy; the failure messages offer repair, regeneration and
 * "Accept into project", the one action that writes into the workspace.
 */
export function registerTesting({ request: send, log, context }: Engine): TestingApi {
  const controller = vscode.tests.createTestController('xrepotest', 'XRepoTest generated tests');
  const byItem = new Map<string, Candidate>();
  const seqOf = new Map<string, number>();
  const codeOf = new Map<string, string>();
  const runs: TestingRunRecord[] = [];
  const detailsOf = new WeakMap<vscode.FileCoverage, { all: vscode.FileCoverageDetail[]; perTest: Map<string, vscode.FileCoverageDetail[]> }>();
  let docSeq = 0;

  context.subscriptions.push(
    controller,
    vscode.workspace.registerTextDocumentContentProvider(CANDIDATE_SCHEME, { provideTextDocumentContent: (uri) => codeOf.get(uri.toString()) ?? '' }),
  );

  const focalItemFor = (r: ScoreFunctionResult): vscode.TestItem => {
    const id = `${r.uri}#${r.startLine}`;
    let focal = controller.items.get(id);
    if (!focal) {
      focal = controller.createTestItem(id, r.functionName, vscode.Uri.parse(r.uri));
      controller.items.add(focal);
    }
    // The function's lines: to the end of its last line where the document is open (it was, to be scored).
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === r.uri);
    const endChar = doc && r.endLine <= doc.lineCount ? doc.lineAt(r.endLine - 1).text.length : 0;
    focal.range = new vscode.Range(r.startLine - 1, 0, r.endLine - 1, endChar);
    return focal;
  };

  /** (Re)builds a candidate's test-case children from its latest result. */
  const showResult = (c: Candidate, r: ScoreFunctionResult): void => {
    c.result = r;
    codeOf.set(c.doc.toString(), r.testCode);
    const lines = r.testCode.split('\n');
    c.item.range = new vscode.Range(0, 0, Math.max(lines.length - 1, 0), lines[lines.length - 1]?.length ?? 0);
    c.item.description = r.summary;
    c.item.children.replace(
      r.cases.map((tc) => {
        const item = controller.createTestItem(`${c.item.id}/${tc.name}`, tc.name, c.doc);
        if (tc.line) item.range = new vscode.Range(tc.line - 1, 0, tc.line - 1, lines[tc.line - 1]?.length ?? 0);
        byItem.set(item.id, c);
        return item;
      }),
    );
  };

  const addCandidate = (r: ScoreFunctionResult): Candidate => {
    const focal = focalItemFor(r);
    const seq = (seqOf.get(focal.id) ?? 0) + 1;
    seqOf.set(focal.id, seq);
    const fileName = r.placement ? path.posix.basename(r.placement.relPath) : `test${path.extname(r.focalFile)}`;
    const doc = vscode.Uri.from({ scheme: CANDIDATE_SCHEME, path: `/${++docSeq}/${fileName}` });
    const item = controller.createTestItem(`${focal.id}/${seq}`, candidateLabel(r.model, seq, r.round), doc);
    const c: Candidate = { item, focal, result: r, doc };
    byItem.set(item.id, c);
    focal.children.add(item);
    showResult(c, r);
    return c;
  };

  const messageOf = (c: Candidate, state: ItemState, text: string, line: number | undefined, column?: number, tc?: CandidateCase): vscode.TestMessage => {
    const m = tc?.expected !== undefined && tc.actual !== undefined ? vscode.TestMessage.diff(text, tc.expected, tc.actual) : new vscode.TestMessage(text);
    if (line) m.location = new vscode.Location(c.doc, new vscode.Position(line - 1, column ? column - 1 : 0));
    m.contextValue = messageContext(state);
    return m;
  };

  /** Reports a candidate's result into a run: its cases, its own state, its logs. */
  const report = (run: vscode.TestRun, record: TestingRunRecord, c: Candidate): void => {
    const r = c.result;
    const set = (item: vscode.TestItem, state: ItemState, messages: vscode.TestMessage[]): void => {
      record.states.set(item.id, { state, messages });
      if (state === 'passed') run.passed(item);
      else if (state === 'skipped') run.skipped(item);
      else if (state === 'failed') run.failed(item, messages);
      else run.errored(item, messages);
    };
    for (const tc of r.cases) {
      const item = c.item.children.get(`${c.item.id}/${tc.name}`);
      if (!item) continue;
      const failing = tc.status === 'failed' || tc.status === 'errored';
      set(item, tc.status, failing ? [messageOf(c, tc.status, tc.message ?? `${tc.name} ${tc.status}`, tc.line, undefined, tc)] : []);
    }
    const state = candidateState(r);
    if (state === 'passed') set(c.item, state, []);
    else if (r.compileError) set(c.item, state, [messageOf(c, state, r.compileError.message, r.compileError.line, r.compileError.column)]);
    else set(c.item, state, [messageOf(c, state, r.reason ?? 'the test did not pass', undefined)]);
    // The runner's text (`go test -json` decoded by the engine), not its machine-readable lines.
    for (const p of r.phases) {
      const text = phaseOutput(String(c.item.label), p);
      run.appendOutput(text, undefined, c.item);
      (record.output ??= []).push(text);
    }
  };

  const statementsOf = async (file: string, lines: Array<{ line: number; covered: boolean }>, functions: Array<{ name: string; startLine: number; endLine: number; covered: boolean }>): Promise<vscode.FileCoverageDetail[]> => {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    const lineRange = (line: number) => {
      const at = doc.lineAt(Math.min(line, doc.lineCount) - 1);
      return new vscode.Range(at.lineNumber, at.firstNonWhitespaceCharacterIndex, at.lineNumber, at.text.length);
    };
    return [
      ...functions.map((f) => new vscode.DeclarationCoverage(focalDeclarationName(f.name), f.covered, new vscode.Range(f.startLine - 1, 0, f.endLine - 1, lineRange(f.endLine).end.character))),
      ...lines.map((l) => new vscode.StatementCoverage(l.covered, lineRange(l.line))),
    ];
  };

  /**
   * One FileCoverage per focal file. Coverage is per candidate (each runs in its own copy), so a
   * candidate is a "test" for per-test coverage; the runners' reports do not split it further by
   * test case (one profile per `go test`, `cargo llvm-cov`… run), so the cases have none of their own.
   */
  const addCoverage = async (run: vscode.TestRun, record: TestingRunRecord, candidates: Candidate[]): Promise<void> => {
    const all = new CoverageAccumulator();
    for (const c of candidates) all.add(c.result);
    for (const f of all.result()) {
      const details = await statementsOf(f.file, f.lines, f.functions);
      const perTest = new Map<string, vscode.FileCoverageDetail[]>();
      const includes: vscode.TestItem[] = [];
      for (const c of candidates.filter((x) => x.result.focalFile === f.file && x.result.focalLines.length)) {
        const one = new CoverageAccumulator();
        one.add(c.result);
        const [mine] = one.result();
        perTest.set(c.item.id, await statementsOf(f.file, mine.lines, mine.functions));
        includes.push(c.item);
      }
      const fileCoverage = vscode.FileCoverage.fromDetails(vscode.Uri.file(f.file), details);
      fileCoverage.includesTests = includes;
      detailsOf.set(fileCoverage, { all: details, perTest });
      run.addCoverage(fileCoverage);
      record.coverage.push({ fileCoverage, details });
    }
  };

  const settingsFor = () => requestSettings(context.secrets);

  const runCandidates = async (request: vscode.TestRunRequest, kind: ProfileKind, token: vscode.CancellationToken): Promise<TestingRunRecord> => {
    const wanted = new Map<string, Candidate>();
    const excluded = new Set((request.exclude ?? []).map((i) => i.id));
    const collect = (item: vscode.TestItem): void => {
      if (excluded.has(item.id)) return;
      const c = byItem.get(item.id);
      if (c) wanted.set(c.item.id, c);
      else item.children.forEach(collect);
    };
    if (request.include) request.include.forEach(collect);
    else controller.items.forEach(collect);
    const name = kind === 'coverage' ? 'XRepoTest: coverage' : 'XRepoTest';
    const run = controller.createTestRun(request, name, true);
    const record: TestingRunRecord = { name, profile: kind, states: new Map(), coverage: [] };
    try {
      for (const c of wanted.values()) run.enqueued(c.item);
      for (const c of wanted.values()) {
        if (token.isCancellationRequested) {
          run.skipped(c.item);
          continue;
        }
        run.started(c.item);
        c.item.busy = true;
        try {
          const r = c.result;
          await vscode.workspace.openTextDocument(vscode.Uri.parse(r.uri)); // the engine reads the focal file from the open document
          const again = await send(
            RUN_CANDIDATE,
            { uri: r.uri, startLine: r.startLine, testCode: r.testCode, provider: r.provider, model: r.model, sample: r.sample, round: r.round, coverage: kind === 'coverage', ...(await settingsFor()) },
            token,
          );
          showResult(c, again);
          report(run, record, c);
        } catch (e) {
          const message = (e as Error).message;
          if (wasCancelled(e)) {
            run.skipped(c.item);
            continue;
          }
          log.error(`running ${c.item.label} failed: ${message}`);
          const m = new vscode.TestMessage(`XRepoTest could not run this test: ${message}`);
          record.states.set(c.item.id, { state: 'errored', messages: [m] });
          run.errored(c.item, m);
        } finally {
          c.item.busy = false;
        }
      }
      if (kind === 'coverage') await addCoverage(run, record, [...wanted.values()].filter((c) => record.states.has(c.item.id)));
    } finally {
      run.end();
    }
    runs.push(record);
    return record;
  };

  const runProfile = controller.createRunProfile('Run', vscode.TestRunProfileKind.Run, (request, token) => runCandidates(request, 'run', token).then(() => undefined), true);
  const coverageProfile = controller.createRunProfile('Coverage', vscode.TestRunProfileKind.Coverage, (request, token) => runCandidates(request, 'coverage', token).then(() => undefined), true);
  coverageProfile.loadDetailedCoverage = async (_run, fileCoverage) => detailsOf.get(fileCoverage)?.all ?? [];
  coverageProfile.loadDetailedCoverageForTest = async (_run, fileCoverage, test) => detailsOf.get(fileCoverage)?.perTest.get(test.id) ?? [];

  /** A new candidate's run, recorded as the scoring that produced it happened (no test is run again). */
  const record = (r: ScoreFunctionResult): vscode.TestItem => {
    const c = addCandidate(r);
    const run = controller.createTestRun(new vscode.TestRunRequest([c.item], undefined, runProfile), `XRepoTest: ${c.item.label}`, true);
    const rec: TestingRunRecord = { name: `XRepoTest: ${c.item.label}`, profile: 'run', states: new Map(), coverage: [] };
    try {
      report(run, rec, c);
    } finally {
      run.end();
    }
    runs.push(rec);
    return c.item;
  };

  // Scorings from the code lens and the palette; `record` is synchronous, so the candidate is in the
  // Testing view by the time the command returns.
  context.subscriptions.push(
    onDidScoreFunction.event((r) => {
      try {
        record(r);
      } catch (e) {
        log.error(`the Testing view could not show ${r.functionName}'s test: ${(e as Error).message}`);
      }
    }),
  );

  const candidateFrom = (arg: TestMessageMenuArgs | vscode.TestItem | undefined): Candidate | undefined => {
    const item = arg && 'id' in arg && 'children' in arg ? arg : (arg as TestMessageMenuArgs | undefined)?.test;
    const c = item ? byItem.get(item.id) : undefined;
    if (!c) void vscode.window.showWarningMessage('XRepoTest: pick a generated test in the Testing view (its failure message has the actions).');
    return c;
  };

  /** A repair or regeneration: the server generates, runs and scores; the result is a new candidate. */
  const another = async <P extends WithSettings>(what: string, type: ClientRequest<P, ScoreFunctionResult>, params: Omit<P, keyof WithSettings>): Promise<ScoreFunctionResult | undefined> => {
    try {
      const r = await send(type, { ...params, ...(await settingsFor()) } as P);
      log.info(`${r.functionName} (${what}): ${r.summary}${r.reason ? ` — ${r.reason}` : ''}`);
      record(r);
      return r;
    } catch (e) {
      const message = (e as Error).message;
      if (wasCancelled(e)) {
        log.info(`${what} cancelled`);
        return undefined;
      }
      log.error(`${what} failed: ${message}`);
      void vscode.window.showErrorMessage(`XRepoTest: ${what} failed: ${message}`);
      return undefined;
    }
  };

  context.subscriptions.push(
    vscode.commands.registerCommand('xrepotest.repairWithModel', async (arg?: TestMessageMenuArgs | vscode.TestItem) => {
      const c = candidateFrom(arg);
      if (!c) return undefined;
      const r = c.result;
      await vscode.workspace.openTextDocument(vscode.Uri.parse(r.uri));
      return another('repair', REPAIR_CANDIDATE, { uri: r.uri, startLine: r.startLine, testCode: r.testCode, sample: r.sample, round: r.round });
    }),
    vscode.commands.registerCommand('xrepotest.regenerate', async (arg?: TestMessageMenuArgs | vscode.TestItem) => {
      const c = candidateFrom(arg);
      if (!c) return undefined;
      const r = c.result;
      let sample = 0;
      c.focal.children.forEach((i) => (sample = Math.max(sample, (byItem.get(i.id)?.result.sample ?? 0) + 1)));
      await vscode.workspace.openTextDocument(vscode.Uri.parse(r.uri));
      return another('regeneration', REGENERATE_CANDIDATE, { uri: r.uri, startLine: r.startLine, sample });
    }),
    vscode.commands.registerCommand('xrepotest.acceptIntoProject', async (arg?: TestMessageMenuArgs | vscode.TestItem) => {
      const c = candidateFrom(arg);
      if (!c) return undefined;
      const r = c.result;
      try {
        await vscode.workspace.openTextDocument(vscode.Uri.parse(r.uri));
        const placed: PlaceCandidateResult = await send(PLACE_CANDIDATE, { uri: r.uri, startLine: r.startLine, testCode: r.testCode, ...(await settingsFor()) });
        const target = vscode.Uri.file(placed.path);
        if (placed.append) {
          // Rust: the test module joins the focal file, as an edit the user can undo, then saved.
          const doc = await vscode.workspace.openTextDocument(target);
          const edit = new vscode.WorkspaceEdit();
          const at = placed.insertAt ? new vscode.Position(placed.insertAt.line, placed.insertAt.character) : doc.lineAt(doc.lineCount - 1).range.end;
          edit.insert(target, at, placed.code);
          if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`the editor refused the edit to ${placed.relPath}`);
          await doc.save();
          log.info(`accepted ${c.item.label} into ${placed.relPath} (appended)`);
          await vscode.window.showTextDocument(doc, { preview: false });
          return placed.path;
        }
        const exists = await vscode.workspace.fs.stat(target).then(() => true, () => false);
        if (exists) {
          const overwrite = await vscode.window.showWarningMessage(`${placed.relPath} exists. Replace it with this generated test?`, { modal: true }, 'Replace');
          if (overwrite !== 'Replace') return undefined;
        }
        await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(placed.code));
        log.info(`accepted ${c.item.label} into ${placed.relPath}${placed.notes.length ? ` (${placed.notes.join('; ')})` : ''}`);
        await vscode.window.showTextDocument(target, { preview: false });
        return placed.path;
      } catch (e) {
        const message = (e as Error).message;
        log.error(`accepting the test failed: ${message}`);
        void vscode.window.showErrorMessage(`XRepoTest: could not write the test into the project: ${message}`);
        return undefined;
      }
    }),
  );

  return {
    controller,
    runs,
    record,
    run: (profile, include, token) => {
      const request = new vscode.TestRunRequest(include, undefined, profile === 'coverage' ? coverageProfile : runProfile);
      return runCandidates(request, profile, token ?? new vscode.CancellationTokenSource().token);
    },
    resultOf: (item) => byItem.get(item.id)?.result,
  };
}
