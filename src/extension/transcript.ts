import * as path from 'node:path';
import * as vscode from 'vscode';
import { FOCAL_FUNCTION_AT, type ScoreFunctionResult } from '../shared/scoring-protocol';
import type { Engine } from './engine';
import { requestSettings } from './settings';
import type { TestingApi } from './testing';
import { writtenBy } from './testing-model';
import {
  fileReferences,
  formatTranscript,
  referenceCandidates,
  TRANSCRIPT_EXTENSION,
  TRANSCRIPT_LANGUAGE,
  TRANSCRIPT_SCHEME,
  verdictOf,
  type TranscriptSource,
} from './transcript-model';

/** What a transcript document links to besides the files it names: where relative paths are looked for, and files that are not on disk. */
export interface TranscriptLinks {
  /** Folders a relative path is resolved against, in order (the focal file's folder, the workspace folder). */
  bases: string[];
  /** Absolute paths that open another document: the generated test, which is not in the workspace until accepted. */
  elsewhere?: Array<{ path: string; uri: vscode.Uri }>;
}

export interface Transcripts {
  /** Opens a transcript as a read-only document beside `viewColumn` (default: beside the active editor). */
  show(source: TranscriptSource, links: TranscriptLinks, options?: { viewColumn?: vscode.ViewColumn; title?: string }): Promise<vscode.TextEditor>;
}

/** The arguments VS Code passes to `testing/message/*` menu commands. */
interface TestMessageMenuArgs {
  test?: vscode.TestItem;
  message?: vscode.TestMessage;
}

const isItem = (arg: unknown): arg is vscode.TestItem => !!arg && typeof arg === 'object' && 'id' in arg && 'children' in arg;

/** A file name the tab shows, without the characters a path cannot hold. */
function docName(title: string): string {
  return `${title.replace(/[/\\:*?"<>|#%]+/g, ' ').replace(/\s+/g, ' ').trim() || 'transcript'}${TRANSCRIPT_EXTENSION}`;
}

/** The transcript of a scored test of the Testing view. */
export function transcriptOfResult(r: ScoreFunctionResult, label: string): TranscriptSource {
  return {
    functionName: r.functionName,
    file: vscode.workspace.asRelativePath(r.focalFile, false),
    line: r.startLine,
    test: `${label} · ${writtenBy(r)}`,
    executor: r.executor ?? null,
    verdict: verdictOf(r),
    summary: r.summary,
    why: r.environment ? `${r.environment.cause}. How to fix: ${r.environment.fix}` : r.reason,
    phases: r.phases,
  };
}

/**
 * The scoring transcript (issue 30): the whole log of a scored run as a read-only document of the
 * `xrepotest-transcript` language (its grammar: syntaxes/), opened from the Testing view (a message's
 * or a candidate's context menu), from the annotator's result view, and from the palette for the
 * function at the cursor. Its file:line references link into the workspace.
 */
export function registerTranscripts(engine: Engine, testing: TestingApi): Transcripts {
  const { context, log, request } = engine;
  /** By document URI: the text, and where its references lead. */
  const docs = new Map<string, { text: string; links: TranscriptLinks }>();
  let seq = 0;

  const show: Transcripts['show'] = async (source, links, options) => {
    const uri = vscode.Uri.from({ scheme: TRANSCRIPT_SCHEME, path: `/${++seq}/${docName(options?.title ?? `${source.functionName} transcript`)}` });
    docs.set(uri.toString(), { text: formatTranscript(source), links });
    let doc = await vscode.workspace.openTextDocument(uri);
    if (doc.languageId !== TRANSCRIPT_LANGUAGE) doc = await vscode.languages.setTextDocumentLanguage(doc, TRANSCRIPT_LANGUAGE);
    return vscode.window.showTextDocument(doc, { viewColumn: options?.viewColumn ?? vscode.ViewColumn.Beside, preview: false });
  };

  /** A file:line reference's target: the first place it names that exists in the workspace (or a document that stands for it). */
  const targetOf = async (ref: { path: string }, links: TranscriptLinks): Promise<vscode.Uri | undefined> => {
    for (const candidate of referenceCandidates(ref, links.bases)) {
      // The test as it ran, not a file of the same name in the workspace (an older accepted test).
      const other = links.elsewhere?.find((e) => path.resolve(e.path) === candidate);
      if (other) return other.uri;
      const file = vscode.Uri.file(candidate);
      // Only the workspace's files: a path the run printed elsewhere (the toolchain's, the sandbox's) is no link.
      if (!vscode.workspace.getWorkspaceFolder(file)) continue;
      const stat = await vscode.workspace.fs.stat(file).then(
        (s) => s,
        () => undefined,
      );
      if (stat && stat.type & vscode.FileType.File) return file;
    }
    return undefined;
  };

  const provideLinks = async (document: vscode.TextDocument, token: vscode.CancellationToken): Promise<vscode.DocumentLink[]> => {
    const entry = docs.get(document.uri.toString());
    if (!entry) return [];
    const out: vscode.DocumentLink[] = [];
    const known = new Map<string, Promise<vscode.Uri | undefined>>();
    // Enough for any log worth reading; a runaway one is not stat()ed line by line.
    for (const ref of fileReferences(document.getText()).slice(0, 2000)) {
      if (token.isCancellationRequested) break;
      let target = known.get(ref.path);
      if (!target) known.set(ref.path, (target = targetOf(ref, entry.links)));
      const uri = await target;
      if (!uri) continue;
      const link = new vscode.DocumentLink(
        new vscode.Range(ref.documentLine, ref.start, ref.documentLine, ref.end),
        // `#L12,5`: the editor opens the file at that line and column.
        uri.with({ fragment: `L${ref.line}${ref.column ? `,${ref.column}` : ''}` }),
      );
      link.tooltip = `Open ${vscode.workspace.asRelativePath(uri, false)} at line ${ref.line}${ref.column ? `, column ${ref.column}` : ''}`;
      out.push(link);
    }
    return out;
  };

  /** The candidate a command is about: a Testing view item (a test case stands for its candidate) or message, else the newest of the function at the cursor. */
  const candidateOf = async (arg: unknown): Promise<vscode.TestItem | undefined> => {
    const item = isItem(arg) ? arg : arg && typeof arg === 'object' && 'test' in arg ? (arg as TestMessageMenuArgs).test : undefined;
    if (item) return item.parent && testing.resultOf(item.parent) ? item.parent : item;
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.uri.scheme !== 'file') {
      void vscode.window.showInformationMessage('XRepoTest: put the cursor in a function you have scored (or open a transcript from the Testing view).');
      return undefined;
    }
    const at = await request(FOCAL_FUNCTION_AT, { uri: editor.document.uri.toString(), line: editor.selection.active.line, ...(await requestSettings(context.secrets)) });
    if ('why' in at) {
      void vscode.window.showWarningMessage(`XRepoTest: ${at.why}.`);
      return undefined;
    }
    const focal = testing.controller.items.get(`${editor.document.uri.toString()}#${at.startLine}`);
    let latest: vscode.TestItem | undefined;
    // Candidates are numbered in the order they were scored (`<function>/<n>`): the highest is the latest.
    const number = (i: vscode.TestItem): number => Number(/\/(\d+)$/.exec(i.id)?.[1] ?? 0);
    focal?.children.forEach((c) => {
      if (testing.resultOf(c) && (!latest || number(c) > number(latest))) latest = c;
    });
    if (!latest) void vscode.window.showInformationMessage(`XRepoTest: ${at.name} has not been scored in this session; "Generate scored tests" scores it.`);
    return latest;
  };

  const openFor = async (item: vscode.TestItem): Promise<vscode.TextEditor | undefined> => {
    const r = testing.resultOf(item);
    if (!r) {
      void vscode.window.showWarningMessage(`XRepoTest: ${item.label} is not a generated test of this session.`);
      return undefined;
    }
    const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(r.focalFile));
    const links: TranscriptLinks = {
      bases: [path.dirname(r.focalFile), ...(folder ? [folder.uri.fsPath] : [])],
      // The generated test is where the run put it, not in the workspace: its lines open the test as scored
      // (not where the test went into the focal file itself, Rust's module: that file's lines are the workspace's).
      ...(r.placement && item.uri && path.resolve(r.placement.path) !== path.resolve(r.focalFile) ? { elsewhere: [{ path: r.placement.path, uri: item.uri }] } : {}),
    };
    return show(transcriptOfResult(r, String(item.label)), links, { title: `${r.functionName} · ${item.label}` });
  };

  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(TRANSCRIPT_SCHEME, { provideTextDocumentContent: (uri) => docs.get(uri.toString())?.text ?? '' }),
    vscode.languages.registerDocumentLinkProvider({ scheme: TRANSCRIPT_SCHEME }, { provideDocumentLinks: provideLinks }),
    vscode.workspace.onDidCloseTextDocument((d) => {
      if (d.uri.scheme === TRANSCRIPT_SCHEME) docs.delete(d.uri.toString());
    }),
    vscode.commands.registerCommand('xrepotest.openTranscript', async (arg?: unknown) => {
      try {
        const item = await candidateOf(arg);
        return item ? await openFor(item) : undefined;
      } catch (e) {
        const message = (e as Error).message.replace(/^Request \S+ failed with message: /, '');
        log.error(`opening the transcript failed: ${message}`);
        void vscode.window.showErrorMessage(`XRepoTest: could not open the transcript: ${message}`);
        return undefined;
      }
    }),
  );

  return { show };
}
