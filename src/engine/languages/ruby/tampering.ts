import type { Finding, LanguageTamperingRules } from '../../score/tampering-rules';
import { createHash } from 'node:crypto';
import { stripVTControlCharacters as stripAnsi } from 'node:util';
import { COVERAGE_SUM } from './example-phase-coverage';

/**
 * RSpec writes its JSON report, and our Coverage hook its coverage file, from inside the test's own
 * Ruby process: an at_exit hook in the spec can rewrite both after RSpec is done and leave with
 * exit!(0). What the progress formatter printed before that cannot be taken back, so its summary is
 * checked against the report file.
 */

const SUMMARY = /^(\d+) examples?, (\d+) failures?(?:, \d+ pending)?(?:, (\d+) errors? occurred outside of examples)?\s*$/gm;

function summaryDisagrees(raw: string, report: { ran: number; failed: number; errored: number; outsideErrors: number }, truncated: boolean): Finding | null {
  const output = stripAnsi(raw);
  const summaries = [...output.matchAll(SUMMARY)];
  const failing = summaries.find((m) => Number(m[2]) > 0 || Number(m[3] ?? 0) > 0);
  if (failing && report.ran > 0 && report.failed + report.errored === 0 && report.outsideErrors === 0) {
    return { rule: 'ruby-report-rewritten', says: 'RSpec printed failures, but the JSON report says every example passed (the report was rewritten)', evidence: failing[0].trim() };
  }
  if (!truncated && report.ran > 0 && !summaries.length) {
    return { rule: 'ruby-no-summary', says: 'the JSON report has examples, but RSpec never printed its summary (the run was cut short or its output swallowed)' };
  }
  return null;
}

/** Ways a spec can make examples the text does not show one by one: then no count can be told. */
const GENERATED_EXAMPLES = /\.(each|times|map|upto|downto|step|each_with_index|each_with_object|each_slice|flat_map|zip)\b|\b(loop|while|until|for|it_behaves_like|it_should_behave_like|include_examples|include_context|shared_examples|shared_examples_for|define_method|send|public_send|instance_eval|class_eval|module_eval|eval)\b/;
const EXAMPLE_CALL = /(?<![\w.:@$])(it|specify|example|scenario|its|xit|fit|xspecify|fspecify|xexample|fexample|focus)\b(?![?!:])/g;

/**
 * The coverage file read after Ruby exited, against the SHA-256 our at_exit printed when it wrote it
 * (example-phase-coverage.ts). A finalizer, or an at_exit registered before ours (they run last in,
 * first out), runs after it: it can rewrite the file, not the printed line. Every printed sum must be
 * the file's, and a file needs one (unless the output was cut). Residual: a spec that skips every
 * at_exit (exit! by any name) and writes the file, the RSpec report and a matching line itself, or
 * rewrites our counts in memory (ObjectSpace, binding: signs when named) (docs/execution.md).
 */
function coverageFileDisagrees(raw: string, readReport: (name: string) => string | null, truncated: boolean): Finding | null {
  const file = readReport('coverage.json');
  if (file === null) return null;
  const sum = createHash('sha256').update(file, 'utf8').digest('hex');
  const printed = [...stripAnsi(raw).matchAll(COVERAGE_SUM)].map((m) => m[1]);
  const other = printed.find((p) => p !== sum);
  if (other) {
    return { rule: 'ruby-coverage-rewritten', says: 'the coverage file is not the one the engine\'s coverage wrote when the specs ended (its SHA-256 differs from the one printed then): it was rewritten after', evidence: `sha256 ${other.slice(0, 16)}… printed, ${sum.slice(0, 16)}… read` };
  }
  if (!printed.length && !truncated) {
    return { rule: 'ruby-coverage-rewritten', says: 'a coverage file is there, but the engine\'s coverage never printed its sum: it was not written by the run\'s own exit' };
  }
  return null;
}

export const rubyTamperingRules: LanguageTamperingRules = {
  signs: [
    {
      id: 'ruby-exit',
      regex: /(?<![\w.:@$])(exit!|abort)(?![\w?:])|(?<![\w.:@$])exit(?![\w?!:])|\b(Kernel|Process)\s*\.\s*(exit!?|abort|kill|_exit)(?![\w?])/,
      says: 'the test ends Ruby itself (exit / exit! / abort), choosing the exit status',
    },
    { id: 'ruby-at-exit', regex: /\bat_exit\b|\bEND\s*\{|\bdefine_finalizer\b|(?<![\w.])trap\s*\(|(?<![\w.])trap\s+['":]|\bSignal\s*\.\s*trap\b/, says: 'the test registers code to run after RSpec has finished (at_exit, END, a finalizer or a signal trap)' },
    {
      id: 'ruby-runner-internals',
      regex: /RSpec::Core::(Reporter|Formatters|Runner|World|Notifications|ExampleGroup\.run)|\bmodule\s+RSpec\b[\s\S]{0,2000}?\bmodule\s+Core\b|RSpec\s*\.\s*(world|reporter)\b|\.reporter\b|\badd_formatter\b|\bformatters?\s*=|\boutput_stream\b|\bCoverage\s*\.\s*(start|result|peek_result|setup|resume|suspend|running\?)|\bSimpleCov\b|\b(STDOUT|STDERR|\$stdout|\$stderr)\s*\.\s*reopen\b/,
      says: 'the test reaches into RSpec\'s reporter or formatters, the Coverage module, or reopens the output',
    },
    {
      // Coverage is counted in windows around example bodies and the test's hooks, with the counts in
      // closure locals of our RUBYOPT file (example-phase-coverage.ts): a spec could reach them through
      // a block's binding (the wrapped example block, TracePoint, ObjectSpace) or unwrap the patched
      // funnels, and count lines no example ran.
      id: 'ruby-coverage-windows',
      // Not a bare `binding` (the test's own, as ERB#result(binding) takes it): another block's, `.binding`.
      regex: /\b(local_variable_(get|set|defined\?)|local_variables)\b|\.\s*binding\b|\bTracePoint\b|\bObjectSpace\s*\.\s*each_object\b|@example_block\b|RSpec::Core::(Hooks\b|Example\b(?!Group))|\bHookCollections\b/,
      says: 'the test reaches into how coverage is counted (a block\'s binding, TracePoint, ObjectSpace, or RSpec\'s example and hook internals)',
    },
    {
      id: 'ruby-report-path',
      inStrings: true,
      // Not ARGV alone: specs of command-line code set it honestly.
      regex: /rspec\.json|coverage\.json|\.resultset|XRT_|\bcmdline\b|\.xrt\/|['"]--out['"]/,
      says: 'the test looks for RSpec\'s report, the coverage file or the runner\'s command line (to rewrite them)',
    },
    { id: 'ruby-framing', inStrings: true, regex: /\d+ examples?, \d+ failures?/, says: 'the test prints RSpec\'s summary line' },
  ],

  async unknownTests(code, report) {
    if (GENERATED_EXAMPLES.test(code)) return null;
    const declared = [...code.matchAll(EXAMPLE_CALL)].length;
    const reported = report.cases.length;
    if (reported <= declared) return null;
    return { rule: 'ruby-unknown-test', says: `the JSON report has ${reported} examples, but the spec declares at most ${declared}` };
  },

  outputDisagrees: summaryDisagrees,

  reportsDisagree: coverageFileDisagrees,
};
