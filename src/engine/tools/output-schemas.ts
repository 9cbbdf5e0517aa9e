/**
 * The JSON Schemas of the tools' structured results (MCP's `outputSchema`): a client may check every
 * result against them (the official SDK's client does), and an agent learns the fields before it
 * calls. They describe the types in tool-score.ts and each tool's file; test/unit/tool-output-schemas
 * checks real results of every tool against them.
 */

const int = { type: 'integer' } as const;
const num = { type: 'number' } as const;
const str = { type: 'string' } as const;
const bool = { type: 'boolean' } as const;
const strOrNull = { type: ['string', 'null'] } as const;
const lines = { type: 'array', items: int } as const;

export const COVERAGE_SCHEMA = {
  type: 'object',
  description: "The focal function's executable lines the test ran, and the rest.",
  required: ['percent', 'executableLines', 'coveredLines', 'uncoveredLines'],
  properties: { percent: num, executableLines: lines, coveredLines: lines, uncoveredLines: lines },
} as const;

const WHERE = { function: str, file: str, startLine: int, endLine: int } as const;

export const MUTANT_SCHEMA = {
  type: 'object',
  required: ['id', 'operator', 'line', 'original', 'replacement', 'diff'],
  properties: {
    id: { ...str, description: 'The same change of the same file has the same id in every run.' },
    operator: { ...str, description: 'arithmetic, relational, logical, constant, return-value or statement-deletion.' },
    line: int,
    original: str,
    replacement: str,
    diff: { ...str, description: 'The change as a unified diff of the focal file (its lines before and after).' },
  },
} as const;

export const MUTATION_SCHEMA = {
  type: 'object',
  required: ['ran', 'reason', 'mutants', 'viable', 'killed', 'timedOut', 'unviable', 'survived', 'score', 'readsSource', 'survivors'],
  properties: {
    ran: { ...bool, description: 'Whether mutants were run; when not, `reason` says why.' },
    reason: strOrNull,
    mutants: { ...int, description: 'Mutants made on the lines the test runs.' },
    viable: { ...int, description: 'Those that compiled (the others say nothing about the test).' },
    killed: int,
    timedOut: { ...int, description: 'Detected by running out of time (counted as caught).' },
    unviable: int,
    survived: int,
    score: { ...num, description: '(killed + timedOut) / viable, 0..1.' },
    readsSource: { ...bool, description: 'The test failed on a behaviour-preserving copy of the source: it reads the source text, its mutation score is 0.' },
    survivors: { type: 'array', items: MUTANT_SCHEMA },
  },
} as const;

export const TOOL_SCORE_SCHEMA = {
  type: 'object',
  required: [
    'function', 'file', 'startLine', 'endLine', 'language', 'compiled', 'passed', 'testsRan', 'testsPassed', 'coverage', 'invoked', 'invokedStrict',
    'failureCategory', 'failureLabel', 'reason', 'runnerMessage', 'failingCases', 'hasAssertions', 'environment', 'author', 'testHash',
  ],
  properties: {
    ...WHERE,
    language: str,
    compiled: { ...bool, description: 'CSR for this test.' },
    passed: { ...bool, description: 'TPR for this test: compiled, ran at least one test case, none failed.' },
    testsRan: int,
    testsPassed: int,
    coverage: COVERAGE_SCHEMA,
    invoked: { ...bool, description: 'IR: the test calls the focal function.' },
    invokedStrict: bool,
    failureCategory: strOrNull,
    failureLabel: strOrNull,
    reason: strOrNull,
    runnerMessage: strOrNull,
    failingCases: {
      type: 'array',
      items: { type: 'object', required: ['name', 'status'], properties: { name: str, status: str, message: str } },
    },
    hasAssertions: { ...bool, description: 'False for a smoke test: it checks no result.' },
    environment: { type: ['object', 'null'], required: ['cause', 'fix'], properties: { cause: str, fix: str } },
    author: {
      type: 'object',
      required: ['provider', 'model', 'sample', 'round'],
      properties: { provider: strOrNull, model: strOrNull, sample: int, round: int },
    },
    testHash: str,
    mutation: { ...MUTATION_SCHEMA, description: 'Only when asked for (`mutants: true`).' },
  },
} as const;

export const FOCAL_FUNCTIONS_SCHEMA = {
  type: 'object',
  required: ['file', 'language', 'functions'],
  properties: {
    file: str,
    language: str,
    functions: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'startLine', 'endLine', 'lines', 'testable', 'inBenchmark'],
        properties: {
          name: str,
          startLine: int,
          endLine: int,
          lines: int,
          testable: bool,
          inBenchmark: bool,
          note: str,
          score: { ...TOOL_SCORE_SCHEMA, required: [...TOOL_SCORE_SCHEMA.required, 'stale'], properties: { ...TOOL_SCORE_SCHEMA.properties, stale: bool } },
        },
      },
    },
  },
} as const;

export const GENERATED_TESTS_SCHEMA = {
  type: 'object',
  required: ['provider', 'model', 'mode', 'baseline', 'tests'],
  properties: {
    provider: str,
    model: str,
    mode: str,
    baseline: bool,
    tests: {
      type: 'array',
      items: { type: 'object', required: ['sample', 'round', 'testCode', 'score'], properties: { sample: int, round: int, testCode: str, score: TOOL_SCORE_SCHEMA } },
    },
  },
} as const;

const KEPT_TEST = {
  type: 'object',
  required: ['passed', 'coverage', 'author', 'testHash'],
  properties: {
    passed: bool,
    coverage: COVERAGE_SCHEMA,
    author: { type: 'object', required: ['provider', 'model'], properties: { provider: strOrNull, model: strOrNull } },
    testHash: str,
  },
} as const;

export const FOCAL_COVERAGE_SCHEMA = {
  type: 'object',
  required: ['function', 'file', 'startLine', 'endLine', 'known'],
  properties: {
    ...WHERE,
    known: { ...bool, description: 'Whether any scoring of this function is kept.' },
    stale: { ...bool, description: "The function's code changed since that scoring: the line numbers are of the older code." },
    coverage: { ...COVERAGE_SCHEMA, description: 'The latest scoring’s coverage.' },
    passed: bool,
    author: KEPT_TEST.properties.author,
    testHash: str,
    best: { ...KEPT_TEST, description: 'The passing test of the current code that ran the most lines.' },
    union: {
      ...COVERAGE_SCHEMA,
      required: [...COVERAGE_SCHEMA.required, 'tests'],
      properties: { ...COVERAGE_SCHEMA.properties, tests: { ...int, description: 'Passing tests of the current code whose lines are joined.' } },
      description: 'The lines any passing test of the current code ran.',
    },
  },
} as const;

const RATES = {
  type: 'object',
  required: ['samples', 'csr', 'tpr', 'cov', 'ir', 'environmentFailures'],
  properties: { samples: int, csr: num, tpr: num, cov: num, ir: num, environmentFailures: int },
} as const;

export const BENCHMARK_RUN_SCHEMA = {
  type: 'object',
  required: ['runDir', 'tasks', 'excluded', 'results', 'resumed', 'interrupted', 'overall', 'languages', 'summaryText', 'reports'],
  properties: {
    runDir: str,
    tasks: int,
    excluded: int,
    results: int,
    resumed: int,
    interrupted: bool,
    overall: RATES,
    languages: { type: 'object', additionalProperties: RATES },
    summaryText: str,
    reports: { type: 'object', description: 'The run folder’s report files, by format.' },
  },
} as const;

export const TOOL_MUTANTS_SCHEMA = {
  type: 'object',
  required: [...MUTATION_SCHEMA.required, 'function', 'file', 'startLine', 'endLine', 'test'],
  properties: {
    ...MUTATION_SCHEMA.properties,
    ...WHERE,
    test: {
      type: 'object',
      required: ['source', 'passed', 'testHash'],
      properties: {
        source: { type: 'string', enum: ['given', 'kept'], description: 'given: the testCode argument, scored first; kept: the latest passing test kept for the function.' },
        passed: bool,
        testHash: str,
      },
    },
  },
} as const;
