/**
 * A `vendor/autoload.php` built from composer.json alone, for projects whose dependencies are not
 * installed (no vendor/, no network to Packagist). It honours the PSR-4 and PSR-0 maps, `classmap`
 * folders are left out (they need a scan), and `files` are required, for `autoload` and `autoload-dev`.
 */
export interface ComposerAutoload {
  'psr-4'?: Record<string, string | string[]>;
  'psr-0'?: Record<string, string | string[]>;
  files?: string[];
}

export interface ComposerJson {
  autoload?: ComposerAutoload;
  'autoload-dev'?: ComposerAutoload;
}

function phpString(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function dirs(v: string | string[]): string[] {
  return (Array.isArray(v) ? v : [v]).map((d) => d.replace(/\/+$/, ''));
}

/**
 * PHP source of an autoloader for the project at `projectRoot` (an absolute path), or, without it, for
 * the project whose `vendor/autoload.php` this file is.
 */
export function phpAutoloaderSource(composer: ComposerJson, projectRoot?: string): string {
  const sections = [composer.autoload ?? {}, composer['autoload-dev'] ?? {}];
  const psr4: Array<[string, string]> = [];
  const psr0: Array<[string, string]> = [];
  const files: string[] = [];
  for (const s of sections) {
    for (const [prefix, d] of Object.entries(s['psr-4'] ?? {})) for (const dir of dirs(d)) psr4.push([prefix, dir]);
    for (const [prefix, d] of Object.entries(s['psr-0'] ?? {})) for (const dir of dirs(d)) psr0.push([prefix, dir]);
    files.push(...(s.files ?? []));
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
spl_autoload_register(static function (string $class) use ($xrtRoot, $xrtPsr4, $xrtPsr0): void {
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
});
${files.map((f) => `require_once $xrtRoot . '/' . ${phpString(f)};`).join('\n')}
`;
}
