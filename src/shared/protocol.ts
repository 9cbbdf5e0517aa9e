/**
 * The engine server's custom requests, typed once for both sides (the server in src/server and the
 * extension in src/extension). Plain types only: no `vscode` and no engine code here.
 */
import type { EnvironmentReport } from '../engine/environment';

export const CHECK_ENVIRONMENT = 'xrepotest/checkEnvironment';
export type CheckEnvironmentResult = EnvironmentReport & { text: string };
