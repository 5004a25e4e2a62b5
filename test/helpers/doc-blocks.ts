// Examples of the docs, run as written: the fenced block right after a marker comment, run by Node (the one the
// tests run on, Node 22) from a file beside node_modules' parent, so `import '@supabase/supabase-js'` resolves as
// in an app.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

// Tests run from the repository's root (npm test).
const repoRoot = process.cwd();

/** The fenced ```js block right after `marker` in `file` (from the repository's root). */
export function blockAfter(file: string, marker: string): string {
  const text = readFileSync(join(repoRoot, file), 'utf8');
  const at = text.indexOf(marker);
  const block = /^\s*```js\n([\s\S]*?)\n```/.exec(text.slice(at + marker.length));
  if (at < 0 || !block) throw new Error(`${file} has no block after "${marker}"`);
  return block[1];
}

/** Runs `code` as an ES module; its standard output, split in lines. */
export async function runModule(name: string, code: string): Promise<string[]> {
  const file = join(repoRoot, '.local', `${name}-${process.pid}.mjs`);
  writeFileSync(file, code);
  const { stdout } = await promisify(execFile)(process.execPath, [file], { cwd: repoRoot });
  return stdout.trim().split('\n');
}
