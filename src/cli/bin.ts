import { main } from './main';

/** The `xrepotest` executable's entry (esbuild.mjs bundles it; dist/cli.js starts it). */
void main(process.argv);
