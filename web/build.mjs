// Bundles the dashboard (src/main.js and the CSS it imports) into dist/app.js and
// dist/app.css with esbuild: one minified script and one stylesheet, which CMake embeds
// into the kraken binary. Usage: node build.mjs NODE_MODULES_DIR OUT_DIR
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const [nodeModules, outDir] = process.argv.slice(2);
if (!nodeModules || !outDir) {
  console.error('usage: node build.mjs NODE_MODULES_DIR OUT_DIR');
  process.exit(2);
}
// The packages live in the build folder, not beside the sources.
const require = createRequire(path.join(path.resolve(nodeModules), 'noop.js'));
const esbuild = require('esbuild');
const here = path.dirname(fileURLToPath(import.meta.url));

await esbuild.build({
  entryPoints: { app: path.join(here, 'src', 'main.js') },
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['es2020'],
  outdir: outDir,
  nodePaths: [path.resolve(nodeModules)],
  legalComments: 'none',
  logLevel: 'warning',
  // The HTML report inlines the bundle in a <script> element: esbuild escapes "</script"
  // in the output for the browser platform (kraken's report writer checks it again).
  platform: 'browser',
});
