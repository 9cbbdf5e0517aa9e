import * as path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { connectEngine } from '../engine/execute/docker-engine';
import { buildEnvImage, buildLanguageImage, ImageBuildError, listImages, type ImageSource } from '../engine/execute/images';
import { IMAGES_LOCK_FILE, pullPublishedImage } from '../engine/execute/published-images';
import { LANGUAGE_IDS, type LanguageId } from '../engine/parse/grammars';

function languageList(value: string): LanguageId[] {
  const langs = value.split(',').map((s) => s.trim()).filter(Boolean);
  for (const l of langs) if (!LANGUAGE_IDS.includes(l as LanguageId)) throw new InvalidArgumentError(`unknown language ${l} (expected ${LANGUAGE_IDS.join(',')})`);
  return langs as LanguageId[];
}

interface BuildOpts {
  lang?: LanguageId[];
  from: ImageSource;
  repo: string[];
  quiet?: boolean;
}

function failureText(e: unknown): string {
  return e instanceof ImageBuildError ? e.report(30) : ((e as Error).message ?? String(e));
}

/** Builds the language images (and environment images for --repo); one failure does not stop the rest. */
export async function runImagesBuild(opts: BuildOpts): Promise<number> {
  const { docker, engine, endpoint } = await connectEngine();
  process.stderr.write(`engine: ${engine} at ${endpoint}\n`);
  const langs = opts.lang ?? [...LANGUAGE_IDS];
  let failed = 0;
  for (const lang of langs) {
    const onProgress = opts.quiet ? undefined : (line: string): void => void process.stderr.write(`[${lang}] ${line}\n`);
    try {
      const { tag, variant } = await buildLanguageImage(docker, lang, opts.from, { onProgress });
      process.stdout.write(`${lang}: ${tag} (${variant})\n`);
      for (const repo of opts.repo) {
        const env = await buildEnvImage(docker, repo, lang, { languageImage: tag, onProgress });
        process.stdout.write(`${lang}: ${env} for ${repo}\n`);
      }
    } catch (e) {
      failed++;
      process.stderr.write(`xrepotest: the ${lang} image could not be built: ${failureText(e)}\n`);
    }
  }
  return failed ? 1 : 0;
}

function megabytes(n: number): string {
  return `${Math.round(n / 1024 ** 2)} MB`;
}

export async function runImagesList(json: boolean): Promise<number> {
  const { docker, engine } = await connectEngine();
  const rows = await listImages(docker);
  if (json) {
    process.stdout.write(JSON.stringify({ engine, images: rows }, null, 2) + '\n');
    return 0;
  }
  process.stdout.write(`engine: ${engine}\n`);
  if (!rows.length) process.stdout.write('no xrepotest images (run `xrepotest images build`)\n');
  for (const r of rows) {
    const what = [r.kind, r.language, r.variant, r.repo].filter(Boolean).join(' ');
    process.stdout.write(`${(r.tags.join(', ') || '<untagged>').padEnd(44)} ${what.padEnd(28)} ${megabytes(r.sizeBytes).padStart(8)}  ${r.created.toISOString()}\n`);
  }
  return 0;
}

interface PullOpts {
  published?: boolean;
  lang?: LanguageId[];
  registry?: string;
  tag: string;
  lock: string;
  quiet?: boolean;
}

/** Pulls the benchmark's published images and pins each by digest in the lock file; one failure does not stop the rest. */
export async function runImagesPull(opts: PullOpts): Promise<number> {
  if (!opts.published) throw new Error('images pull needs --published (the only images there are to pull: dungxg502/xrepotest-<lang>)');
  const { docker, engine, endpoint } = await connectEngine();
  process.stderr.write(`engine: ${engine} at ${endpoint}\n`);
  let failed = 0;
  for (const lang of opts.lang ?? [...LANGUAGE_IDS]) {
    // A layer reports many events per second; on a terminal only the last few seconds' state matters, so lines are thinned.
    let last = 0;
    const onProgress = opts.quiet
      ? undefined
      : (line: string): void => {
          const now = Date.now();
          if (!/^pulling |\bis .*@sha256:|complete|exists|Digest|Status/i.test(line) && now - last < 2000) return;
          last = now;
          process.stderr.write(`[${lang}] ${line}\n`);
        };
    try {
      const pulled = await pullPublishedImage(docker, lang, { registry: opts.registry, tag: opts.tag, lockFile: path.resolve(opts.lock), onProgress });
      process.stdout.write(`${lang}: ${pulled.digest}\n`);
    } catch (e) {
      failed++;
      process.stderr.write(`xrepotest: ${lang}: ${(e as Error).message}\n`);
    }
  }
  process.stdout.write(`lock: ${path.resolve(opts.lock)}\n`);
  return failed ? 1 : 0;
}

export function registerImagesCommand(program: Command): void {
  const images = program.command('images').description('build and list the container images the docker executor runs');
  images
    .command('build')
    .description('build the language images (xrepotest/<lang>:<variant>), and repository environment images with --repo')
    .option('--lang <list>', `only these languages, comma-separated (${LANGUAGE_IDS.join(',')})`, languageList)
    .addOption(
      new Option('--from <source>', 'official images (needs a registry), Debian packages on a debootstrap base, or auto: official when a registry answers')
        .choices(['auto', 'official', 'debian'])
        .default('auto'),
    )
    .option('--repo <dir>', 'also build the environment image of this repository checkout (repeatable)', (v: string, all: string[]) => [...all, v], [] as string[])
    .option('--quiet', 'no progress lines from the build')
    .action(async (opts: BuildOpts) => {
      process.exitCode = await runImagesBuild(opts);
    });
  images
    .command('pull')
    .description('pull the published benchmark images (dungxg502/xrepotest-<lang>) and pin each by digest in a lock file')
    .option('--published', 'the published images of the XRepoTest release')
    .option('--lang <list>', `only these languages, comma-separated (${LANGUAGE_IDS.join(',')})`, languageList)
    .option('--registry <prefix>', 'pull from this registry (host:port) instead of Docker Hub')
    .option('--tag <tag>', 'the tag to pull', 'latest')
    .option('--lock <file>', 'where the digests are recorded', IMAGES_LOCK_FILE)
    .option('--quiet', 'no progress lines')
    .action(async (opts: PullOpts) => {
      process.exitCode = await runImagesPull(opts);
    });
  images
    .command('list')
    .description('list the xrepotest images the engine holds')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      process.exitCode = await runImagesList(!!opts.json);
    });
}
