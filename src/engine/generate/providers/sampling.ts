/**
 * Whether temperature and top_p go into a request. The paper decodes at temperature 0, top_p 1, but
 * some current APIs refuse these fields (Anthropic's API version 2026-10-21 rejects them at any
 * value; OpenAI's reasoning models accept only the defaults), so `auto` leaves them out there and
 * says so once, rather than failing every call with a 400.
 */
export type SamplingPolicy = 'auto' | 'send' | 'omit';

export type Log = (message: string) => void;

export const stderrLog: Log = (m) => process.stderr.write(`xrepotest: ${m}\n`);

/** Logs each distinct message once per process: a run makes thousands of calls. */
export function onceLog(log: Log): Log {
  const seen = new Set<string>();
  return (m) => {
    if (seen.has(m)) return;
    seen.add(m);
    log(m);
  };
}
