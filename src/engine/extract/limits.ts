/**
 * Extraction's default limits, apart from extract.ts so the CLI's flags can show them without loading
 * the parser (extract.ts re-exports them).
 */

/** Larger source files are skipped: generated or vendored, not written by people. */
export const DEFAULT_MAX_FILE_BYTES = 2 * 1024 * 1024;
/** A file whose parse takes longer is skipped (Julia's grammar can take seconds on some files). */
export const DEFAULT_PARSE_DEADLINE_MS = 10_000;
