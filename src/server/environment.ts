import { checkEnvironment, formatEnvironment } from '../engine/environment';
import { CHECK_ENVIRONMENT, type CheckEnvironmentResult } from '../shared/protocol';
import type { ServerState } from './state';

/** What this machine can run (executors, images, language servers) and what to install. */
export function registerEnvironment(state: ServerState): void {
  state.connection.onRequest(CHECK_ENVIRONMENT, async (): Promise<CheckEnvironmentResult> => {
    const report = await checkEnvironment();
    return { ...report, text: formatEnvironment(report) };
  });
}
