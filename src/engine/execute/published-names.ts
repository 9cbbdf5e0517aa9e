/**
 * The names of the benchmark's published images (xrepotest-release.md §3), apart from
 * published-images.ts (which re-exports them) so the CLI's flags can show the lock file's default
 * without loading the Docker client.
 */
export const PUBLISHED_REPOSITORY = 'dungxg502/xrepotest';
export const PUBLISHED_REPO_DATA = '/app/repo_data';
export const IMAGES_LOCK_FILE = 'xrepotest-images.lock.json';
