// The project's one TypeScript style: deno fmt (the pinned Deno) with these options, over the folders of code.
// `npm run fmt` applies it, `npm run check` refuses what it would change (`--check`), and the generators format
// what they write with it, so a generated file is formatted too. Runs under Deno and Node, hence node: modules.
import { execFileSync } from 'node:child_process';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const deno = `${root}node_modules/.bin/deno`;
const options = ['--single-quote', '--line-width=120'];
const folders = [
  'functions/',
  'supabase/cli/',
  'supabase/stack/',
  'supabase/tools/',
  'supabase/bench/',
  'client/',
  'test/',
];
// Markdown and JSON are written by hand or are reports; client/dist/ is the client's build.
const ignored = '--ignore=client/dist/,**/*.md,**/*.json';

/** `text`, a TypeScript module, as deno fmt formats it. */
export function formatTypeScript(text: string): string {
  return execFileSync(deno, ['fmt', '--ext=ts', ...options, '-'], { input: text, maxBuffer: 16 * 1024 * 1024 })
    .toString();
}

// `deno run --allow-run --allow-read --allow-env supabase/tools/format.ts [--check]`: the whole tree.
// (import.meta.main is Deno's; the tests type-check this module with Node's types.)
if ((import.meta as { main?: boolean }).main) {
  try {
    execFileSync(deno, ['fmt', ...options, ignored, ...process.argv.slice(2), ...folders], {
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
