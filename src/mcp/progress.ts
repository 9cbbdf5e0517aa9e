import type { ToolProgress } from '../engine/tools';

/** What an MCP progress notification carries (besides its token). */
export interface McpProgress {
  progress: number;
  total?: number;
  message: string;
}

/**
 * The tools' progress as MCP wants it: the value must grow with every notification, while a tool
 * reports several phases per unit done ("Status: compile", "Status: test" at 0 of 2 tasks). A phase
 * moves the value halfway to the next whole unit, so it grows without reaching a unit not yet done; a
 * notification that could not grow (past `total`, or the halves worn out) is not sent.
 */
export function monotonicProgress(send: (p: McpProgress) => void): (p: ToolProgress) => void {
  let last = -1;
  return (p) => {
    const unitDone = p.done > last;
    const nextUnit = Math.floor(last) + 1;
    const next = unitDone ? p.done : last + (nextUnit - last) / 2;
    // Halves worn out: the sum rounds to `last`, or up to the next unit, which is not done.
    if (!(next > last) || (!unitDone && next >= nextUnit) || (p.total !== undefined && next > p.total)) return;
    last = next;
    send({ progress: next, ...(p.total !== undefined ? { total: p.total } : {}), message: p.message });
  };
}
