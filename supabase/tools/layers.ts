// Run by `npm run check`: the tree's layers import one way, each from the layers below it and never from one above
// (README.md, "A tour of the code"). A layer is one or more folders; folders of one layer do not import each
// other. Only relative imports are read (static, dynamic and `export … from`); a process started by path (the
// stack's own services, vitest) is not an import. Prints each import that runs upward as file → file; exit 1.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

/** Top to bottom: what each layer is for, and its folders. */
export const layers: { what: string; folders: string[] }[] = [
  { what: 'the commands', folders: ['supabase/cli/'] }, // npm start, test, generate, bench…
  { what: 'the benchmarks', folders: ['supabase/bench/'] }, // the quick ones (quick/) use the tests' helpers
  { what: 'the tests', folders: ['test/'] },
  { what: 'the generators and checks', folders: ['supabase/tools/'] },
  { what: 'the local stack', folders: ['supabase/stack/'] },
  { what: 'the product', folders: ['functions/api/', 'client/'] }, // the Edge Function; the typed clients
];

const ignored = ['client/dist/', 'supabase/bench/reports/'];

/** The folder of `layers` that holds `file` (a path from the repository's root), and its layer's index. */
function placeOf(file: string): { folder: string; layer: number } | undefined {
  for (const [layer, { folders }] of layers.entries()) {
    const folder = folders.find((f) => file.startsWith(f));
    if (folder) return { folder, layer };
  }
}

/** The relative specifiers `source` imports. */
export function relativeImports(source: string): string[] {
  const found = source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.\.?\/[^'"]+)['"]/gm);
  return [...found].map((match) => match[1]);
}

/** Each import of `files` (paths from the root, with their text) that reaches a layer above, or beside, its own. */
export function upwardImports(files: { path: string; text: string }[]): string[] {
  const wrong: string[] = [];
  for (const { path, text } of files) {
    const from = placeOf(path);
    if (!from) continue;
    for (const specifier of relativeImports(text)) {
      const target = normalize(join(dirname(path), specifier));
      const to = placeOf(target);
      if (!to || to.folder === from.folder || to.layer > from.layer) continue;
      const why = to.layer === from.layer ? 'a folder beside its own' : `${layers[to.layer].what}, a layer above`;
      wrong.push(`${path} → ${target}: ${why}`);
    }
  }
  return wrong;
}

/** Every TypeScript and JavaScript file of the layers, as paths from `root`. */
export function layeredFiles(root: string): { path: string; text: string }[] {
  const walk = (folder: string): string[] =>
    readdirSync(join(root, folder)).flatMap((name) => {
      const path = `${folder}${name}`;
      if (name === 'node_modules' || ignored.some((skip) => `${path}/`.startsWith(skip))) return [];
      if (statSync(join(root, path)).isDirectory()) return walk(`${path}/`);
      return /\.(ts|js|mjs)$/.test(name) ? [path] : [];
    });
  return layers.flatMap(({ folders }) => folders).flatMap(walk).map((path) => ({
    path,
    text: readFileSync(join(root, path), 'utf8'),
  }));
}

if ((import.meta as { main?: boolean }).main) {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const wrong = upwardImports(layeredFiles(root));
  if (wrong.length > 0) {
    console.error(`imports that run up the layers (supabase/tools/layers.ts):\n  ${wrong.join('\n  ')}`);
    process.exit(1);
  }
  console.log(`layers: every import runs down (${layers.length} layers)`);
}
