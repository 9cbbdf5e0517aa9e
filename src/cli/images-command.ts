import * as path from 'node:path';
import { connectEngine } from '../engine/execute/docker-engine';
import { buildEnvImage, buildLanguageImage, ImageBuildError, listImages, type ImageSource } from '../engine/execute/images';
import { pullPublishedImage } from '../engine/execute/published-images';
import { LANGUAGE_IDS, type LanguageId } from '../engine/languages/ids';

/** `xrepotest images build|pull|list`'s work; their flags are commands/images.ts. */

export interface BuildOpts {
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

export interface PullOpts {
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
