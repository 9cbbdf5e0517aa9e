import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LanguageImage } from '../execution-types';

/** Gems every Ruby image has already (Debian's or the official image's). */
const PROVIDED = /^(rspec|rspec-core|rspec-expectations|rspec-mocks|rspec-support|simplecov|simplecov-html|rake|bundler)$/;

/** Ruby's images (docker/ruby/): bundler installs a bundle's gems at build time. */
export const rubyImage: LanguageImage = {
  officialBase: 'docker.io/library/ruby:3.3-bookworm',
  manifest: 'Gemfile',
  skippedDirs: ['.bundle'],
  lockFiles: ['Gemfile', 'Gemfile.lock'],
  dependenciesProvided(dir) {
    const files = fs.readdirSync(dir).filter((f) => f === 'Gemfile' || f.endsWith('.gemspec'));
    const names: string[] = [];
    for (const f of files) {
      const text = fs.readFileSync(path.join(dir, f), 'utf8');
      for (const m of text.matchAll(/^\s*(?:gem|\w+\.add_(?:runtime_|development_)?dependency)\s*\(?\s*["']([^"']+)["']/gm)) names.push(m[1]);
      // `gemspec` in a Gemfile pulls in the gemspec's dependencies, read above; `git:`/`path:` sources cannot be known.
      if (/\b(git|github|path)\s*:/.test(text)) return false;
    }
    return names.every((n) => PROVIDED.test(n));
  },
  installCommand: ({ cd }) => `${cd} && bundle install --jobs 4`,
  versionScript: 'echo "ruby=$(ruby --version)"; echo "rspec=$(rspec --version | tr "\\n" " ")"',
  toolChecks: ['command -v ruby >/dev/null || echo "missing=ruby"', 'command -v rspec >/dev/null || echo "missing=rspec on PATH"'].join('; '),
};
