import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  PLACE_CANDIDATE,
  REGENERATE_CANDIDATE,
  IMPROVE_CANDIDATE,
  MUTATE_CANDIDATE,
  REPAIR_CANDIDATE,
  RUN_CANDIDATE,
  type CandidateCase,
  type PlaceCandidateResult,
  type ScoreFunctionResult,
} from '../shared/scoring-protocol';
import type { WithSettings } from '../shared/protocol';
import type { ClientRequest } from '../shared/wire';
import { wasCancelled, type Engine } from './engine';
import { isScoringBusy, onDidScoreFunction } from './scoring';
import { engineSettings, requestSettings } from './settings';
import { candidateLabel, candidatePicks, candidateState, canRepair, CoverageAccumulator, focalDeclarationName, messageContext, phaseOutput, withRoomForTheButton, type ItemState } from './testing-model';
import { requireTrust } from './trust';

/** Generated tests are shown read-only under this scheme until "Accept into project" writes one. */
const CANDIDATE_SCHEME = 'xrepotest-candidate';
/** True while the active editor is an editable copy of a candidate ("Open as editable"): its title bar offers Accept. */
const EDITING_CANDIDATE_KEY = 'xrepotest.editingCandidate';
/** True when the configured provider can repair a test (not the baseline, not replay): the failure peek's first action is then Repair. */
const CAN_REPAIR_KEY = 'xrepotest.canRepair';

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

/** The score lens's "Accept test": the function whose latest scored test it is. */
interface FunctionArgs {
  uri: string;
  startLine: number;
}

/** What the keep commands are called with: a Testing view item or message, a lens's function, an editor's document (title bar), or nothing (palette). */
type CandidateArg = TestMessageMenuArgs | vscode.TestItem | FunctionArgs | vscode.Uri | undefined;

/**
 * The native Testing view for generated tests: focal function -> candidate (one generated or re-run
 * test) -> the runner's test cases. Every "Generate scored tests" adds a candidate with its run; Run and
 * Coverage re-run candidates in a disposable copy; the failure messages offer repair, regeneration and
 * "Accept into project", the one action that writes into the workspace.
 */
export function registerTesting({ request: send, log, context }: Engine): TestingApi {
  const controller = vscode.tests.createTestController('xrepotest', 'XRepoTest generated tests');
  const byItem = new Map<string, Candidate>();
  /** Every candidate of the session, oldest first (the palette lists them). */
  const all: Candidate[] = [];
  /** By the read-only view's URI, and by the URI of an editable copy ("Open as editable"). */
  const byDoc = new Map<string, Candidate>();
  const editableOf = new Map<string, Candidate>();
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
    const item = controller.createTestItem(`${focal.id}/${seq}`, candidateLabel(r.model, seq, r.round, r.suite?.tests), doc);
    const c: Candidate = { item, focal, result: r, doc };
    byItem.set(item.id, c);
    all.push(c);
    byDoc.set(doc.toString(), c);
    focal.children.add(item);
    showResult(c, r);
    return c;
  };

  const messageOf = (c: Candidate, state: ItemState, text: string, line: number | undefined, column?: number, tc?: CandidateCase): vscode.TestMessage => {
    // The peek floats its button (Repair, Regenerate) over the message's end: room for it after the text.
    const shown = withRoomForTheButton(text);
    const m = tc?.expected !== undefined && tc.actual !== undefined ? vscode.TestMessage.diff(shown, tc.expected, tc.actual) : new vscode.TestMessage(shown);
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
    else if (r.environment) {
      // The machine's gap, not the test's: the cause and the fix, and none of the test's actions (repair, accept).
      const m = new vscode.TestMessage(withRoomForTheButton(`Can't run here: ${r.environment.cause}.\nHow to fix: ${r.environment.fix}`));
      m.contextValue = 'xrepotest.environment';
      set(c.item, 'errored', [m]);
    } else if (r.compileError) set(c.item, state, [messageOf(c, state, r.compileError.message, r.compileError.line, r.compileError.column)]);
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
    if (!requireTrust('Running generated tests')) return { name: 'XRepoTest', profile: kind, states: new Map(), coverage: [] };
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

  /** The candidate a keep command is about, with the text to keep when it comes from an edited copy. */
  interface Target {
    c: Candidate;
    /** The edited text of an "Open as editable" copy; absent: the generated test as scored. */
    edited?: vscode.TextDocument;
  }

  const isItem = (arg: unknown): arg is vscode.TestItem => !!arg && typeof arg === 'object' && 'id' in arg && 'children' in arg;

  /** The newest candidate of each function first, passing ones before the rest, for the palette. */
  const pickCandidate = async (placeHolder: string): Promise<Candidate | undefined> => {
    if (!all.length) {
      void vscode.window.showInformationMessage('XRepoTest: no generated tests yet in this session. Run "Generate scored tests" on a function first (its code lens, or the palette).');
      return undefined;
    }
    const picks = candidatePicks(
      all.map((c) => ({ label: String(c.item.label), result: c.result })),
      (f) => vscode.workspace.asRelativePath(f),
    );
    const chosen = await vscode.window.showQuickPick(picks, { title: 'XRepoTest: generated tests of this session', placeHolder, matchOnDescription: true, matchOnDetail: true });
    return chosen ? all[chosen.index] : undefined;
  };

  /** Resolves a command's argument; with none, the active editor's candidate (edited copy or read-only view), else a quick pick. */
  const targetOf = async (arg: CandidateArg, placeHolder: string): Promise<Target | undefined> => {
    let uri: vscode.Uri | undefined;
    if (arg instanceof vscode.Uri) uri = arg;
    else if (isItem(arg) || (arg && 'test' in arg && arg.test)) {
      const item = isItem(arg) ? arg : (arg as TestMessageMenuArgs).test!;
      const c = byItem.get(item.id);
      if (!c) void vscode.window.showWarningMessage(`XRepoTest: ${item.label} is not a generated test of this session.`);
      return c ? { c } : undefined;
    } else if (arg && 'uri' in arg && 'startLine' in arg) {
      // The lens scores the function's latest test: the newest candidate of that function.
      const focal = controller.items.get(`${arg.uri}#${arg.startLine}`);
      const c = [...all].reverse().find((x) => x.focal === focal);
      if (!c) void vscode.window.showWarningMessage('XRepoTest: this function has no generated test in this session (score it first).');
      return c ? { c } : undefined;
    } else uri = vscode.window.activeTextEditor?.document.uri;
    if (uri) {
      const edited = editableOf.get(uri.toString());
      if (edited) {
        const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri!.toString());
        if (doc) return { c: edited, edited: doc };
      }
      const viewed = byDoc.get(uri.toString());
      if (viewed) return { c: viewed };
      if (arg instanceof vscode.Uri) {
        void vscode.window.showWarningMessage('XRepoTest: this document is not a generated test.');
        return undefined;
      }
    }
    const c = await pickCandidate(placeHolder);
    return c ? { c } : undefined;
  };

  /** A repair or regeneration: the server generates, runs and scores; the result is a new candidate. */
  const another = async <P extends WithSettings>(what: string, type: ClientRequest<P, ScoreFunctionResult>, params: Omit<P, keyof WithSettings>): Promise<ScoreFunctionResult | undefined> => {
    try {
      const r = await send(type, { ...params, ...(await settingsFor()) } as P);
      log.info(`${r.functionName} (${what}): ${r.summary}${r.reason ? ` — ${r.reason}` : ''}`);
      record(r);
      return r;
    } catch (e) {
      // The server's own words, without the LSP client's "Request … failed with message:" in front.
      const message = (e as Error).message.replace(/^Request \S+ failed with message: /, '');
      if (wasCancelled(e)) {
        log.info(`${what} cancelled`);
        return undefined;
      }
      // The function is already being scored (a double click, or the lens's scoring still running): said, not an error.
      if (isScoringBusy(e)) {
        void vscode.window.showInformationMessage(`XRepoTest: ${message}`);
        return undefined;
      }
      log.error(`${what} failed: ${message}`);
      // A refusal that names the provider setting (the baseline cannot repair) gets a way there.
      const settingsButton = /xrepotest\.provider/.test(message) ? ['Open Settings'] : [];
      void vscode.window.showErrorMessage(`XRepoTest: ${what} failed: ${message}`, ...settingsButton).then((b) => {
        if (b) void vscode.commands.executeCommand('workbench.action.openSettings', 'xrepotest.provider');
      });
      return undefined;
    }
  };

  /** Writes the accepted test where the language puts tests, as edits the editor can undo. */
  const accept = async ({ c, edited }: Target): Promise<string | undefined> => {
    const r = c.result;
    const testCode = edited ? edited.getText() : r.testCode;
    await vscode.workspace.openTextDocument(vscode.Uri.parse(r.uri));
    const placed: PlaceCandidateResult = await send(PLACE_CANDIDATE, { uri: r.uri, startLine: r.startLine, testCode, ...(await settingsFor()) });
    const target = vscode.Uri.file(placed.path);
    const what = `${c.item.label}${edited ? ' (edited)' : ''}`;
    const metadata: vscode.WorkspaceEditEntryMetadata = { label: `Accept the generated test of ${r.functionName}`, needsConfirmation: false };
    const edit = new vscode.WorkspaceEdit();
    let doc: vscode.TextDocument;
    /** What the notification's Undo puts back: the file's text before (null: the file was new). */
    let before: string | null;
    if (placed.append) {
      // Rust: the test module joins the focal file, as an edit the user can undo, then saved.
      doc = await vscode.workspace.openTextDocument(target);
      before = doc.getText();
      const at = placed.insertAt ? new vscode.Position(placed.insertAt.line, placed.insertAt.character) : doc.lineAt(doc.lineCount - 1).range.end;
      edit.insert(target, at, placed.code, metadata);
    } else if (await vscode.workspace.fs.stat(target).then(() => true, () => false)) {
      const overwrite = await vscode.window.showWarningMessage(`${placed.relPath} exists. Replace it with this generated test?`, { modal: true }, 'Replace');
      if (overwrite !== 'Replace') return undefined;
      // Replaced as a text edit of the open file, so Undo brings the old test back.
      doc = await vscode.workspace.openTextDocument(target);
      before = doc.getText();
      edit.replace(target, new vscode.Range(new vscode.Position(0, 0), doc.lineAt(doc.lineCount - 1).range.end), placed.code, metadata);
    } else {
      // A new file, created with its text in one workspace edit: one Undo (Ctrl+Z with its editor focused) removes it again.
      before = null;
      edit.createFile(target, { contents: new TextEncoder().encode(placed.code) }, metadata);
    }
    if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`the editor refused the edit to ${placed.relPath}`);
    doc = await vscode.workspace.openTextDocument(target);
    if (doc.isDirty) await doc.save();
    log.info(`accepted ${what} into ${placed.relPath}${placed.append ? ' (appended)' : ''}${placed.notes.length ? ` (${placed.notes.join('; ')})` : ''}`);
    if (edited) {
      // The edited copy is now in the project: close it without asking to save an untitled file.
      const tab = vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === edited.uri.toString());
      if (tab) {
        await vscode.window.showTextDocument(edited, { preview: false });
        await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      }
      editableOf.delete(edited.uri.toString());
    }
    await vscode.window.showTextDocument(doc, { preview: false });
    // Said where the user looks, with the way back: the file named, Undo and Reveal.
    void vscode.window.showInformationMessage(`XRepoTest: ${r.functionName}'s test is now in ${placed.relPath}${placed.append ? ' (added to the file)' : ''}.`, 'Undo', 'Reveal').then(async (picked) => {
      if (picked === 'Reveal') await vscode.commands.executeCommand('revealInExplorer', target);
      if (picked === 'Undo') await undoAccept(target, before, placed.relPath);
    });
    return placed.path;
  };

  /**
   * The passing test an action starts from (Improve, Check with mutants), its focal file open for the
   * engine; undefined, having said why, in an untrusted workspace, when none is picked, or when it fails.
   */
  const passingTarget = async (arg: CandidateArg, doing: string, placeHolder: string, needsAPass: string): Promise<ScoreFunctionResult | undefined> => {
    if (!requireTrust(doing)) return undefined;
    const t = await targetOf(arg, placeHolder);
    if (!t) return undefined;
    const r = t.c.result;
    if (!r.passed) {
      void vscode.window.showWarningMessage(`XRepoTest: ${needsAPass}, and ${t.c.item.label} does not pass. "Repair with model" or "Regenerate" first.`);
      return undefined;
    }
    await vscode.workspace.openTextDocument(vscode.Uri.parse(r.uri));
    return r;
  };

  /** Puts the project back as it was before an Accept: the new file removed, or the file's old text. */
  const undoAccept = async (target: vscode.Uri, before: string | null, relPath: string): Promise<void> => {
    const edit = new vscode.WorkspaceEdit();
    if (before === null) edit.deleteFile(target, { ignoreIfNotExists: true });
    else {
      const doc = await vscode.workspace.openTextDocument(target);
      edit.replace(target, new vscode.Range(new vscode.Position(0, 0), doc.lineAt(doc.lineCount - 1).range.end), before);
    }
    if (!(await vscode.workspace.applyEdit(edit))) {
      void vscode.window.showErrorMessage(`XRepoTest: could not undo the accepted test in ${relPath}`);
      return;
    }
    if (before !== null) await (await vscode.workspace.openTextDocument(target)).save();
    log.info(`undid the accepted test in ${relPath}`);
  };

  /** An untitled copy of the candidate in its language, to change before accepting it. */
  const openEditable = async ({ c }: Target): Promise<vscode.TextEditor> => {
    const focal = await vscode.workspace.openTextDocument(vscode.Uri.parse(c.result.uri));
    const doc = await vscode.workspace.openTextDocument({ language: focal.languageId, content: c.result.testCode });
    editableOf.set(doc.uri.toString(), c);
    const editor = await vscode.window.showTextDocument(doc, { preview: false });
    void vscode.window.showInformationMessage(`XRepoTest: an editable copy of ${c.result.functionName}'s test (${c.item.label}). "Accept into project" (in this editor's title bar) writes this text, with your changes.`);
    return editor;
  };

  const updateEditingKey = (editor: vscode.TextEditor | undefined): void => {
    void vscode.commands.executeCommand('setContext', EDITING_CANDIDATE_KEY, !!editor && editableOf.has(editor.document.uri.toString()));
  };
  const updateRepairKey = (): void => {
    void vscode.commands.executeCommand('setContext', CAN_REPAIR_KEY, canRepair(engineSettings().provider));
  };
  updateRepairKey();

  context.subscriptions.push(
    vscode.window.onDidChangeActiveTextEditor(updateEditingKey),
    vscode.workspace.onDidCloseTextDocument((d) => editableOf.delete(d.uri.toString())),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('xrepotest.provider')) updateRepairKey();
    }),
    vscode.commands.registerCommand('xrepotest.repairWithModel', async (arg?: CandidateArg) => {
      if (!requireTrust('Repairing a test')) return undefined;
      const t = await targetOf(arg, 'Repair which test with the model?');
      if (!t) return undefined;
      const r = t.c.result;
      await vscode.workspace.openTextDocument(vscode.Uri.parse(r.uri));
      return another('repair', REPAIR_CANDIDATE, { uri: r.uri, startLine: r.startLine, testCode: r.testCode, sample: r.sample, round: r.round });
    }),
    vscode.commands.registerCommand('xrepotest.regenerate', async (arg?: CandidateArg) => {
      if (!requireTrust('Regenerating a test')) return undefined;
      const t = await targetOf(arg, 'Generate another test for the function of which test?');
      if (!t) return undefined;
      const { c } = t;
      const r = c.result;
      let sample = 0;
      c.focal.children.forEach((i) => (sample = Math.max(sample, (byItem.get(i.id)?.result.sample ?? 0) + 1)));
      await vscode.workspace.openTextDocument(vscode.Uri.parse(r.uri));
      return another('regeneration', REGENERATE_CANDIDATE, { uri: r.uri, startLine: r.startLine, sample });
    }),
    vscode.commands.registerCommand('xrepotest.improve', async (arg?: CandidateArg) => {
      const r = await passingTarget(arg, 'Improving a test', 'Improve which passing test (more tests for the lines it does not run)?', '"Improve" starts from a passing test');
      if (!r) return undefined;
      const improved = await another('improvement', IMPROVE_CANDIDATE, { uri: r.uri, startLine: r.startLine, testCode: r.testCode, sample: r.sample, round: r.round });
      if (improved?.suite && improved.suite.tests === 1) {
        const why = improved.suite.rounds.map((x) => `round ${x.improve}: ${x.reason}`).join('; ');
        void vscode.window.showInformationMessage(`XRepoTest: no new test kept for ${r.functionName}${why ? ` (${why})` : ''}.`);
      }
      return improved;
    }),
    vscode.commands.registerCommand('xrepotest.checkWithMutants', async (arg?: CandidateArg) => {
      const r = await passingTarget(arg, 'Checking a test with mutants', 'Check which passing test with mutants (does it fail when the code is wrong)?', 'mutants check a passing test');
      if (!r) return undefined;
      return another('mutation testing', MUTATE_CANDIDATE, { uri: r.uri, startLine: r.startLine, testCode: r.testCode, sample: r.sample, round: r.round, provider: r.provider, model: r.model });
    }),
    vscode.commands.registerCommand('xrepotest.acceptIntoProject', async (arg?: CandidateArg) => {
      const t = await targetOf(arg, 'Accept which generated test into the project?');
      if (!t) return undefined;
      // A test that does not pass is kept only when the user says so.
      if (!t.c.result.passed) {
        const sure = await vscode.window.showWarningMessage(`${t.c.item.label} does not pass (${t.c.result.summary}). Add it to the project anyway?`, { modal: true }, 'Accept anyway');
        if (sure !== 'Accept anyway') return undefined;
      }
      try {
        return await accept(t);
      } catch (e) {
        const message = (e as Error).message;
        log.error(`accepting the test failed: ${message}`);
        void vscode.window.showErrorMessage(`XRepoTest: could not write the test into the project: ${message}`);
        return undefined;
      }
    }),
    vscode.commands.registerCommand('xrepotest.openEditable', async (arg?: CandidateArg) => {
      const t = await targetOf(arg, 'Open which generated test as an editable copy?');
      if (!t) return undefined;
      if (t.edited) return vscode.window.showTextDocument(t.edited, { preview: false });
      const editor = await openEditable(t);
      updateEditingKey(editor);
      return editor;
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
