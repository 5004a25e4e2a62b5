// The project's one TypeScript style: deno fmt (the pinned Deno) with the options of deno.json's `fmt`, over the
// folders of code. `npm run fmt` applies it, `npm run check` refuses what it would change (`--check`), and the
// generators format what they write with it, so a generated file is formatted too; a plain `deno fmt` (an
// editor's format-on-save) reads the same deno.json. functions/api/deno.json, the nearest config inside the
// function's folder, repeats its options: `--check` refuses a difference. Runs under Deno and Node, hence node:
// modules.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const deno = `${root}node_modules/.bin/deno`;
const options = [`--config=${root}deno.json`];
const folders = [
  'functions/',
  'supabase/cli/',
  'supabase/stack/',
  'supabase/tools/',
  'supabase/bench/',
  'client/',
  'test/',
];

/** The formatter's options of the config file at `path` (from the repository's root), without its exclusions. */
function fmtOptions(path: string): string {
  const { exclude: _, ...fmt } = JSON.parse(readFileSync(`${root}${path}`, 'utf8')).fmt ?? {};
  return JSON.stringify(fmt);
}

/** `text`, a TypeScript module, as deno fmt formats it. */
export function formatTypeScript(text: string): string {
  return execFileSync(deno, ['fmt', '--ext=ts', ...options, '-'], { input: text, maxBuffer: 16 * 1024 * 1024 })
    .toString();
}

// `deno run --allow-run --allow-read --allow-env supabase/tools/format.ts [--check]`: the whole tree.
// (import.meta.main is Deno's; the tests type-check this module with Node's types.)
if ((import.meta as { main?: boolean }).main) {
  if (fmtOptions('functions/api/deno.json') !== fmtOptions('deno.json')) {
    console.error(
      `functions/api/deno.json's fmt (${fmtOptions('functions/api/deno.json')}) differs from deno.json's ` +
        `(${fmtOptions('deno.json')}): make them the same, or deno fmt formats the function's folder otherwise`,
    );
    process.exit(1);
  }
  try {
    execFileSync(deno, ['fmt', ...options, ...process.argv.slice(2), ...folders], {
      cwd: root,
      stdio: 'inherit',
    });
  } catch (error) {
    // deno fmt printed what it found; anything else (it did not start) is thrown as is.
    const status = (error as { status?: number }).status;
    if (typeof status !== 'number') throw error;
    process.exit(status);
  }
}
