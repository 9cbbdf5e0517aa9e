import * as fs from 'node:fs';
import * as path from 'node:path';
import { ServerMissingError, runTool, type ServerSpec } from '../../context/lsp/server-kit';

export function resolveTypeProf(): ServerSpec {
  const install = 'gem install typeprof -v "~> 0.21" (Debian ruby 3.1 ships it)';
  const r = runTool('ruby', ['-e', 'print Gem::Specification.find_by_name("typeprof").gem_dir']);
  if (!r.ok) throw new ServerMissingError('ruby', 'TypeProf', install, r.out.includes('MissingSpec') ? 'the typeprof gem is not installed' : 'ruby did not run');
  const exe = path.join(r.out.trim(), 'exe', 'typeprof');
  if (!fs.existsSync(exe)) throw new ServerMissingError('ruby', 'TypeProf', install, `${exe} does not exist`);
  return { language: 'ruby', name: 'TypeProf', command: 'ruby', args: [exe, '--lsp', '--stdio'], languageId: 'ruby' };
}
