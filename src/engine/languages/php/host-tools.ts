import type { LocalTools } from '../execution-types';
import { localPhpunitHome, localPhpunitRunners } from './runners';

/** What PHP's phases need on the host (local executor). */
export const phpHostTools: LocalTools = {
  required: [
    { cmd: 'php', install: 'Debian php-cli php-xml php-mbstring php-pcov' },
    { cmd: 'phpunit', install: 'Debian phpunit, or composer require --dev phpunit/phpunit' },
  ],
  howToInstall: "Debian/Ubuntu: `sudo apt install php-cli php-xml php-mbstring php-pcov phpunit composer`; macOS: `brew install php composer`, then `composer global require phpunit/phpunit` and put Composer's global bin folder on PATH",
  versionCommands: [['php', ['--version']], ['phpunit', ['--version']]],
  // The project-local PHPUnits a package's constraint may pick instead (runners.ts).
  moreVersions(): Record<string, string> {
    const local = localPhpunitRunners().filter((r) => r.origin === 'project-local');
    return local.length ? { 'phpunit (project-local)': local.map((r) => r.version).join(', ') } : {};
  },
  hostCommands: ['php', 'phpunit'],
  // Project-local PHPUnits (scripts/setup-phpunit.sh), picked by a package's constraint (runners.ts).
  hostDirs: ({ env, has }) => (has('php') ? [localPhpunitHome(env)] : []),
};
