// What `supabase functions deploy api --use-api` uploads, as the pinned Supabase CLI 3.1.0 builds it
// (pkg/function/deploy.go): the import map, the files `static_files` in supabase/config.toml matches (paths
// relative to supabase/, globs in the last part), and every local file of the entrypoint's module graph; the
// platform resolves the npm packages itself. Each keeps its path from the repository's root, where the CLI runs.
//   deno run --allow-read --allow-run --allow-write --allow-env supabase/tools/function-bundle.ts [copy <dir>]
// lists them with their sizes, or copies them into <dir> (test/api/deploy-bundle.test.ts serves the function from
// such a copy; the cold-start benchmark reports the upload's size).
import { copyFileSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readConfig, repoRoot } from '../stack/config.ts';

export interface BundleFile {
  /** From the repository's root. */
  path: string;
  bytes: number;
}

export interface Bundle {
  files: BundleFile[];
  /** The npm packages of the module graph, which the platform installs (name@version). */
  npm: string[];
}

/** The files one `static_files` pattern matches: a literal folder, `*` and `?` in the file name only. */
function staticFiles(pattern: string): string[] {
  const absolute = resolve(repoRoot, 'supabase', pattern);
  const folder = dirname(absolute);
  const name = absolute.slice(folder.length + 1);
  if (/[*?[]/.test(folder)) throw new Error(`static_files "${pattern}": only the file name may have wildcards here`);
  const matcher = new RegExp(
    `^${name.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')}$`,
  );
  const found = readdirSync(folder).filter((file) => matcher.test(file)).map((file) => join(folder, file));
  if (found.length === 0) throw new Error(`static_files "${pattern}" matches no file (has \`npm ci\` run?)`);
  return found;
}

/** The entrypoint's module graph, by `deno info` with the function's import map. */
async function moduleGraph(entrypoint: string, importMap: string): Promise<{ local: string[]; npm: string[] }> {
  const info = await new Deno.Command(Deno.execPath(), {
    args: ['info', '--json', '--config', importMap, entrypoint],
    stderr: 'inherit',
  }).output();
  if (!info.success) throw new Error(`deno info ${entrypoint} failed`);
  const graph: { modules: { specifier: string }[]; npmPackages?: Record<string, unknown> } = JSON.parse(
    new TextDecoder().decode(info.stdout),
  );
  const local = graph.modules.map((m) => m.specifier).filter((s) => s.startsWith('file:')).map((s) => fileURLToPath(s));
  return { local, npm: Object.keys(graph.npmPackages ?? {}).sort() };
}

/** The api function's upload. */
export async function functionBundle(): Promise<Bundle> {
  const fn = readConfig().functions.api as { entrypoint: string; import_map: string; static_files?: string[] };
  const entrypoint = resolve(repoRoot, 'supabase', fn.entrypoint);
  const importMap = resolve(repoRoot, 'supabase', fn.import_map);
  const graph = await moduleGraph(entrypoint, importMap);
  const paths = new Set([importMap, ...(fn.static_files ?? []).flatMap(staticFiles), ...graph.local]);
  const files = [...paths].map((path) => ({ path: relative(repoRoot, path), bytes: statSync(path).size }));
  return { files: files.sort((a, b) => a.path.localeCompare(b.path)), npm: graph.npm };
}

/** Copies the upload into `dir`, each file at its path from the repository's root. */
export function copyBundle(bundle: Bundle, dir: string): void {
  for (const file of bundle.files) {
    mkdirSync(dirname(join(dir, file.path)), { recursive: true });
    copyFileSync(join(repoRoot, file.path), join(dir, file.path));
  }
}

if (import.meta.main) {
  const [command, dir] = Deno.args;
  const bundle = await functionBundle();
  if (command === 'copy' && dir) copyBundle(bundle, dir);
  else if (command) throw new Error('usage: function-bundle.ts [copy <dir>]');
  else {
    for (const file of bundle.files) console.log(`${String(file.bytes).padStart(9)}  ${file.path}`);
    console.log(
      `${bundle.files.reduce((sum, file) => sum + file.bytes, 0)} bytes in ${bundle.files.length} files; npm: ${
        bundle.npm.join(', ')
      }`,
    );
  }
}
