import type { Classmap } from './classmap';
import type { ComposerAutoload, ComposerJson } from './composer-json';
import { projectRelative } from './composer-paths';

export type { ComposerAutoload, ComposerJson };

/**
 * A `vendor/autoload.php` built from composer.json alone, for projects whose dependencies are not
 * installed (no vendor/, no network to Packagist). It honours, for `autoload` and `autoload-dev`, the
 * classmap (scanned beforehand by classmap.ts, looked up first as Composer does), the PSR-4 and PSR-0
 * maps, and `files` (required when present). composer.json is hostile: a path that is absolute, has
 * `..` or lies under vendor/ is left out (composer-paths.ts).
 */

function phpString(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** The usable project-relative paths of a composer.json value (a string or a list of them). */
function paths(v: unknown): string[] {
  const out: string[] = [];
  for (const d of Array.isArray(v) ? v : [v]) {
    const checked = projectRelative(d);
    if ('rel' in checked) out.push(checked.rel);
  }
  return out;
}

function objectOf(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/**
 * PHP source of an autoloader for the project at `projectRoot` (an absolute path), or, without it, for
 * the project whose `vendor/autoload.php` this file is.
 */
export function phpAutoloaderSource(composer: ComposerJson, projectRoot?: string, classmap?: Classmap): string {
  const sections = [objectOf(composer.autoload), objectOf(composer['autoload-dev'])];
  const psr4: Array<[string, string]> = [];
  const psr0: Array<[string, string]> = [];
  const files: string[] = [];
  for (const s of sections) {
    for (const [prefix, d] of Object.entries(objectOf(s['psr-4']))) for (const dir of paths(d)) psr4.push([prefix, dir]);
    for (const [prefix, d] of Object.entries(objectOf(s['psr-0']))) for (const dir of paths(d)) psr0.push([prefix, dir]);
    files.push(...paths(Array.isArray(s.files) ? s.files : []));
  }
  // Longest prefix first, as Composer does, so `App\Sub\` wins over `App\`.
  psr4.sort((a, b) => b[0].length - a[0].length);
  const entries = (list: Array<[string, string]>): string =>
    list.map(([p, d]) => `    [${phpString(p)}, ${phpString(d)}],`).join('\n');
  return `<?php
// Written by xrepotest from composer.json (no Composer install was available).
$xrtRoot = ${projectRoot === undefined ? 'dirname(__DIR__)' : phpString(projectRoot)};
$xrtPsr4 = [
${entries(psr4)}
];
$xrtPsr0 = [
${entries(psr0)}
];
$xrtClassmap = [
${[...(classmap?.classes ?? new Map<string, string>())].map(([c, f]) => `    ${phpString(c)} => ${phpString(f)},`).join('\n')}
];
// Prepended, as Composer registers its loader: the project's classes win over copies the runner brings
// (Debian's PHPUnit loads phar-io/version, sebastian/* … from /usr/share/php; a package that is one of
// them would otherwise be tested in the system's copy, not its own).
spl_autoload_register(static function (string $class) use ($xrtRoot, $xrtPsr4, $xrtPsr0, $xrtClassmap): void {
    if (isset($xrtClassmap[$class])) {
        require $xrtRoot . '/' . $xrtClassmap[$class];
        return;
    }
    foreach ($xrtPsr4 as [$prefix, $dir]) {
        if ($prefix !== '' && strncmp($class, $prefix, strlen($prefix)) !== 0) {
            continue;
        }
        $relative = str_replace('\\\\', '/', substr($class, strlen($prefix))) . '.php';
        $file = $xrtRoot . '/' . ($dir === '' ? '' : $dir . '/') . $relative;
        if (is_file($file)) {
            require $file;
            return;
        }
    }
    foreach ($xrtPsr0 as [$prefix, $dir]) {
        if ($prefix !== '' && strncmp($class, $prefix, strlen($prefix)) !== 0) {
            continue;
        }
        $file = $xrtRoot . '/' . ($dir === '' ? '' : $dir . '/') . str_replace(['\\\\', '_'], '/', $class) . '.php';
        if (is_file($file)) {
            require $file;
            return;
        }
    }
}, true, true);
${files.map((f) => `if (is_file($xrtRoot . '/' . ${phpString(f)})) {\n    require_once $xrtRoot . '/' . ${phpString(f)};\n}`).join('\n')}
`;
}
