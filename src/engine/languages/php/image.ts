import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LanguageImage } from '../execution-types';

/** Where the PHP images keep the view of their compiled PHPUnit (docker/php/Dockerfile.*, warm-opcache.sh). */
export const IMAGE_OPCACHE_VIEW = '/usr/local/lib/xrt-opcache/view';

/** Composer packages every PHP image has already (Debian's or the official image's). */
const PROVIDED = /^(php|php-64bit|ext-.+|lib-.+|composer-plugin-api|composer-runtime-api|phpunit\/phpunit)$/i;

/** PHP's images (docker/php/): Composer installs a project's packages outside the source, in the image. */
export const phpImage: LanguageImage = {
  officialBase: 'docker.io/library/php:8.3-cli-bookworm',
  manifest: 'composer.json',
  skippedDirs: ['vendor'],
  lockFiles: ['composer.json', 'composer.lock'],
  dependenciesProvided(dir) {
    const composer = JSON.parse(fs.readFileSync(path.join(dir, 'composer.json'), 'utf8')) as { require?: object; 'require-dev'?: object };
    return [...Object.keys(composer.require ?? {}), ...Object.keys(composer['require-dev'] ?? {})].every((n) => PROVIDED.test(n));
  },
  installCommand: ({ cd, depsDir, quote }) =>
    `${cd} && COMPOSER_VENDOR_DIR=${quote(path.posix.join(depsDir, 'vendor'))} composer install --no-interaction --no-progress --no-scripts --prefer-dist`,
  // The PHPUnit a test phase runs: an environment image's Composer-installed one, else the image's.
  caBundleEnv: ['COMPOSER_CAFILE'],
  versionScript:
    'P=phpunit; [ -n "${XRT_DEPS:-}" ] && [ -x "$XRT_DEPS/vendor/bin/phpunit" ] && P="$XRT_DEPS/vendor/bin/phpunit"; ' +
    'echo "php=$(php --version | head -n1)"; echo "phpunit=$($P --version | grep -m1 PHPUnit)"; echo "pcov=$(php -r "echo phpversion(\'pcov\');")"; ' +
    // The compiled PHPUnit the image's Dockerfile made (warm-opcache.sh), when its view holds a link.
    `[ -n "$(find ${IMAGE_OPCACHE_VIEW} -mindepth 1 -maxdepth 1 -type l -user 0 2>/dev/null)" ] && echo "opcache=${IMAGE_OPCACHE_VIEW}"; true`,
  toolChecks: [
    'command -v php >/dev/null || echo "missing=php"',
    'php -r "exit(extension_loaded(\'pcov\') ? 0 : 1);" 2>/dev/null || php -d extension=pcov -r "exit(extension_loaded(\'pcov\') ? 0 : 1);" 2>/dev/null || echo "missing=pcov (PHP coverage is measured with pcov; the image has none, so coverage would read as zero)"',
    'command -v phpunit >/dev/null || echo "missing=phpunit on PATH (only a repository\'s own vendor/bin/phpunit can run)"',
  ].join('; '),
};
