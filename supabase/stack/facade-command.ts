// The command line the stack runs the api function with (one Deno process, as the Edge Runtime would run
// functions/api/index.ts): shared by the stack, the cold-start benchmark and test/api/deploy-bundle.test.ts, which
// runs it from a copy of the upload. No Deno globals, so that the tests (Node) can import it.
import { join } from 'node:path';

export const facadeFlags = [
  '--allow-net',
  '--allow-env',
  '--allow-read',
  '--allow-sys',
  // A request's signal aborts only when its client goes away (the facade cancels the statement then), not after
  // every answer as Deno's legacy behaviour does: that built an exception per request and warned in the log.
  '--unstable-no-legacy-abort',
  // A dynamic import's modules are read when it runs, not all at start: Deno otherwise walks every route group's
  // module graph before the first line (a cold start loads only the groups it is asked for: routes/groups.ts).
  '--unstable-lazy-dynamic-imports',
];

/** `deno` arguments that run the function in `functionDir` with `flags`. */
export function facadeArgs(functionDir: string, flags: string[] = facadeFlags): string[] {
  return ['run', ...flags, '--config', join(functionDir, 'deno.json'), join(functionDir, 'index.ts')];
}
