import * as fs from 'node:fs';
import * as path from 'node:path';

/** The package `name` in a folder's Project.toml ('' without one); a TOML parser is not needed for one top-level string. */
export function juliaProjectName(projectDir: string): string {
  const toml = path.join(projectDir, 'Project.toml');
  const text = fs.existsSync(toml) ? fs.readFileSync(toml, 'utf8') : '';
  return /^name\s*=\s*"([^"]+)"/m.exec(text.split(/^\[/m)[0])?.[1] ?? '';
}
