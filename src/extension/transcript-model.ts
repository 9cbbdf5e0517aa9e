/**
 * The scoring transcript: the whole log of one scored run as a read-only document (language
 * `xrepotest-transcript`, grammar syntaxes/xrepotest-transcript.tmLanguage.json): a header naming the
 * function, the test, the executor and the verdict, then one section per phase, each opened by
 *
 *   ── test · go test -json -run '^TestStatus$' ./... · exit 1 · 412 ms ──
 *
 * and followed by what the phase printed. Also the file:line references the document links. No
 * `vscode` import, so plain Node unit tests cover it (test/unit/transcript.test.ts).
 */
import type { CandidatePhase } from '../shared/scoring-protocol';

export const TRANSCRIPT_LANGUAGE = 'xrepotest-transcript';
export const TRANSCRIPT_SCHEME = 'xrepotest-transcript';
/** The documents' extension: the language contribution names it, so the document opens in the language wherever it is opened from. */
export const TRANSCRIPT_EXTENSION = '.xrepotest-transcript';

/** The first words of the document (the grammar's header begins with them). */
export const TRANSCRIPT_TITLE = 'XRepoTest transcript';

/** How the run ended, as the verdict field's first words; the grammar paints `passed` as a success and every other one as a failure. */
export type VerdictWord = 'passed' | 'failed' | 'flaky' | 'does not compile' | 'tampers with its result' | "can't run here" | 'not scored yet';

export type TranscriptPhase = Pick<CandidatePhase, 'phase' | 'argv' | 'exitCode' | 'signal' | 'timedOut' | 'stalled' | 'outputTruncated' | 'durationMs' | 'output'> & { text?: string };

export interface TranscriptSource {
  functionName: string;
  /** The focal file as the header shows it (relative to the workspace where it is in one), and the function's first line. */
  file: string;
  line: number;
  /** Who wrote the test and which attempt it is (`offline baseline test 1 · written by …`). */
  test: string;
  executor: { kind: string; engine: string } | null;
  verdict: VerdictWord;
  /** The score in words (the lens's line). */
  summary: string;
  /** Why it did not pass; null when it passed. */
  why: string | null;
  /** The harness's own error, when it had one. */
  error?: string | null;
  phases: TranscriptPhase[];
  /** The log as one text, when it is not known phase by phase (the release's rows). */
  log?: string | null;
}

/** A command longer than this is cut in its section's header and given whole on the line below it. */
const HEADER_COMMAND_CHARS = 200;

/** `412 ms`, `1.2 s`, `2 min 5 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** One argument as a POSIX shell reads it back: bare when it is safe, quoted otherwise, on one line ($'…' for control characters). */
function shellWord(arg: string): string {
  if (arg === '') return "''";
  if (/^[\w@%+=:,./^-]+$/.test(arg)) return arg;
  if (/[\x00-\x1f\x7f]/.test(arg)) {
    const escaped = arg.replace(/[\\']/g, (c) => `\\${c}`).replace(/[\x00-\x1f\x7f]/g, (c) => ({ '\n': '\\n', '\t': '\\t', '\r': '\\r' })[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
    return `$'${escaped}'`;
  }
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The command as one line a shell would run. */
export function commandLine(argv: readonly string[]): string {
  return argv.map(shellWord).join(' ');
}

/** `exit 0`, `exit 101`, `timed out`, `stalled`, `killed by SIGKILL`: how a phase ended. */
export function exitStatus(p: Pick<TranscriptPhase, 'exitCode' | 'signal' | 'timedOut' | 'stalled'>): string {
  if (p.stalled) return 'stalled';
  if (p.timedOut) return 'timed out';
  if (p.exitCode !== null) return `exit ${p.exitCode}`;
  return p.signal ? `killed by ${p.signal}` : 'killed';
}

/** A section's header line. */
export function phaseHeader(p: TranscriptPhase): { header: string; fullCommand: string | null } {
  const command = commandLine(p.argv);
  const cut = command.length > HEADER_COMMAND_CHARS;
  const shown = cut ? `${command.slice(0, HEADER_COMMAND_CHARS)} …` : command;
  const parts = [p.phase, ...(shown ? [shown] : []), exitStatus(p), formatDuration(p.durationMs)];
  return { header: `── ${parts.join(' · ')} ──`, fullCommand: cut ? command : null };
}

/** Output as a document shows it: terminal colours stripped, one kind of line end, and no line that reads as a section's header. */
function cleanOutput(text: string): string {
  return (
    text
      .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
      .replace(/\r\n?/g, '\n')
      .replace(/^── /gm, ' ── ')
      .replace(/\n+$/, '')
  );
}

/** A header field: `  verdict: …`, its value on one line per line of it, never blank (a blank line ends the header). */
function field(key: string, value: string): string[] {
  const lines = value.split(/\r?\n/).map((l) => l.trimEnd()).filter((l) => l.trim());
  const pad = `  ${key}:`.padEnd(12);
  return lines.map((l, i) => (i === 0 ? `${pad}${l}` : `${' '.repeat(12)}${l}`));
}

/** `local: bubblewrap 0.8.0 (…)` as the engine names it, or `docker · podman 4.3.1 (Docker API 1.41)`. */
function executorText(e: { kind: string; engine: string }): string {
  if (!e.engine || e.engine === e.kind) return e.kind;
  return e.engine.startsWith(e.kind) ? e.engine : `${e.kind} · ${e.engine}`;
}

/** The whole transcript. */
export function formatTranscript(s: TranscriptSource): string {
  const head = [
    `${TRANSCRIPT_TITLE} · ${s.functionName} · ${s.file}:${s.line}`,
    ...field('test', s.test),
    ...field('executor', s.executor ? executorText(s.executor) : 'nothing ran'),
    ...field('verdict', `${s.verdict}${s.summary ? ` · ${s.summary}` : ''}`),
    ...(s.why ? field('why', s.why) : []),
    ...(s.error ? field('error', s.error) : []),
  ];
  const sections = s.phases.map((p) => {
    const { header, fullCommand } = phaseHeader(p);
    const output = cleanOutput(p.text ?? p.output);
    return [
      header,
      ...(fullCommand ? [`$ ${fullCommand}`] : []),
      ...(p.outputTruncated ? ['[the executor kept only part of what this phase printed]'] : []),
      output || '(no output)',
    ].join('\n');
  });
  if (!s.phases.length) sections.push(s.log ? `── log ──\n${cleanOutput(s.log) || '(no output)'}` : '(no phase ran: nothing was built or run)');
  return `${head.join('\n')}\n\n${sections.join('\n\n')}\n`;
}

/**
 * A file:line reference: a path with an extension (`item_test.go`, `./src/lib.rs`, `/ws/a.php`), a
 * line, and maybe a column. The grammar's `file-reference` rule is this same pattern (a unit test
 * holds them together).
 */
export const FILE_REFERENCE_PATTERN = String.raw`(?<![\w./@+-])((?:\.{1,2}/|/)?(?:[\w@+-][\w.@+-]*/)*[\w@+-][\w.@+-]*\.[A-Za-z][A-Za-z0-9]*)(:)(\d+)(?:(:)(\d+))?`;

export interface FileReference {
  /** 0-based line of the document, and the reference's columns on it (end exclusive). */
  documentLine: number;
  start: number;
  end: number;
  path: string;
  /** 1-based, as printed. */
  line: number;
  column?: number;
}

/** Every file:line reference of a document's text. */
export function fileReferences(text: string): FileReference[] {
  const out: FileReference[] = [];
  const re = new RegExp(FILE_REFERENCE_PATTERN, 'g');
  text.split('\n').forEach((lineText, documentLine) => {
    for (const m of lineText.matchAll(re)) {
      const line = Number(m[3]);
      if (line < 1) continue;
      out.push({ documentLine, start: m.index!, end: m.index! + m[0].length, path: m[1], line, ...(m[5] ? { column: Number(m[5]) } : {}) });
    }
  });
  return out;
}

/** Where a reference's file may be: itself when absolute, else under each base in order (posix paths). */
export function referenceCandidates(ref: Pick<FileReference, 'path'>, bases: readonly string[]): string[] {
  if (ref.path.startsWith('/')) return [normalize(ref.path)];
  return [...new Set(bases.map((b) => normalize(`${b.replace(/\/+$/, '')}/${ref.path}`)))];
}

/** `/a/./b/../c` -> `/a/c`. */
function normalize(p: string): string {
  const parts: string[] = [];
  for (const seg of p.split('/')) {
    if (!seg || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return `/${parts.join('/')}`;
}

/** The verdict word of a score: the machine's gap first, then what the test did. */
export function verdictOf(r: { compiled: boolean; passed: boolean; failureCategory: string | null; environment?: { actions?: Array<{ kind: string }> } | null }): VerdictWord {
  if (r.environment) return r.environment.actions?.some((a) => a.kind === 'retry') ? 'not scored yet' : "can't run here";
  if (r.failureCategory === 'environment') return "can't run here";
  if (!r.compiled) return 'does not compile';
  if (r.failureCategory === 'tampering') return 'tampers with its result';
  if (r.failureCategory === 'flaky') return 'flaky';
  return r.passed ? 'passed' : 'failed';
}
