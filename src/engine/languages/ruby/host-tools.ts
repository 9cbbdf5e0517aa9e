import type { LocalTools } from '../execution-types';

/** What Ruby's phases need on the host (local executor). */
export const rubyHostTools: LocalTools = {
  required: [
    { cmd: 'ruby', install: 'Debian ruby' },
    { cmd: 'rspec', install: 'Debian ruby-rspec, or gem install rspec' },
  ],
  howToInstall: 'Debian/Ubuntu: `sudo apt install ruby ruby-rspec ruby-bundler`; macOS: `brew install ruby`, then `gem install bundler rspec`',
  versionCommands: [['ruby', ['--version']], ['rspec', ['--version']]],
  hostCommands: ['ruby', 'rspec', 'bundle'],
  // The system's gem folders; user-level ones are not seen (HOME points into the sandbox).
  hostDirs: ({ has, homes, outputLines, isUnder }) =>
    has('ruby') ? outputLines('ruby', ['-e', 'puts Gem.path']).filter((d) => !homes.some((h) => isUnder(d, h))) : [],
};
