import { type Command, InvalidArgumentError, Option } from 'commander';
import { IMAGES_LOCK_FILE } from '../../engine/execute/published-names';
import { LANGUAGE_IDS, type LanguageId } from '../../engine/languages/ids';
import type { BuildOpts, PullOpts } from '../images-command';

/** `xrepotest images build|pull|list`: their flags; images-command.ts, loaded when one runs, does the work. */

function languageList(value: string): LanguageId[] {
  const langs = value.split(',').map((s) => s.trim()).filter(Boolean);
  for (const l of langs) if (!LANGUAGE_IDS.includes(l as LanguageId)) throw new InvalidArgumentError(`unknown language ${l} (expected ${LANGUAGE_IDS.join(',')})`);
  return langs as LanguageId[];
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
      const { runImagesBuild } = await import('../images-command.js');
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
      const { runImagesPull } = await import('../images-command.js');
      process.exitCode = await runImagesPull(opts);
    });
  images
    .command('list')
    .description('list the xrepotest images the engine holds')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const { runImagesList } = await import('../images-command.js');
      process.exitCode = await runImagesList(!!opts.json);
    });
}
