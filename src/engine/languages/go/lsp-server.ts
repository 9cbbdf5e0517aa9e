import * as path from 'node:path';
import { ServerMissingError, projectToolsBin, onPath, isExecutable, runTool, type ServerSpec } from '../../context/lsp/server-kit';

/** Debian's gopls 0.5 answers definition with the name's range only and misses module features. */
const MIN_GOPLS_MINOR = 10;

function goplsMinor(binary: string): number | null {
  const m = /gopls v0\.(\d+)\./.exec(runTool(binary, ['version']).out);
  return m ? Number(m[1]) : null;
}

export function resolveGopls(): ServerSpec {
  const install = `GOBIN=${projectToolsBin()} go install golang.org/x/tools/gopls@latest (or bash scripts/setup.sh)`;
  const gopath = runTool('go', ['env', 'GOPATH']).out.trim();
  const candidates = [path.join(projectToolsBin(), 'gopls'), ...(gopath ? [path.join(gopath, 'bin', 'gopls')] : []), ...onPath('gopls')];
  let tooOld = '';
  for (const c of candidates.filter(isExecutable)) {
    const minor = goplsMinor(c);
    if (minor === null) continue;
    if (minor < MIN_GOPLS_MINOR) {
      tooOld = `${c} is gopls v0.${minor}, too old`;
      continue;
    }
    return { language: 'go', name: 'gopls', command: c, args: ['serve'], languageId: 'go', settings: { gopls: {} } };
  }
  throw new ServerMissingError('go', 'gopls', install, tooOld || 'no gopls found in .tools/bin, $GOPATH/bin or on PATH');
}
