import { checkEnvironment, formatEnvironment } from '../engine/environment';
import { CHECK_ENVIRONMENT, type CheckEnvironmentResult } from '../shared/protocol';
import type { ServerState } from './state';
import { onClientRequest } from './wire';
import { wireEnvironment } from './wire-mapping';

/** What this machine can run (executors, images, language servers) and what to install. */
export function registerEnvironment(state: ServerState): void {
  onClientRequest(state.connection, CHECK_ENVIRONMENT, async (): Promise<CheckEnvironmentResult> => {
    const report = await checkEnvironment();
    return { ...wireEnvironment(report), text: formatEnvironment(report) };
  });
}
