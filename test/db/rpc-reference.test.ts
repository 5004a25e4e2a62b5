// docs/RPC.md, the rpc() reference, says what the database holds: every function anon or authenticated may call,
// with its arguments, defaults, who may call it and its comment, beside the route answering the same JSON.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { rpcReferenceFile, sourcesOf } from '../../supabase/tools/generated.ts';
import { apiFunctions, routesByFunction } from '../../supabase/tools/rpc-reference.ts';
import { asRoot } from '../helpers/db.ts';
import { authIsRunning } from '../helpers/stack.ts';

// The app's functions are applied on top of Auth's schema, so without Auth there is nothing to read.
describe.skipIf(!authIsRunning)('docs/RPC.md', () => {
  it('is what the database and the routes say now (else run `npm run docs:rpc`)', async () => {
    const functions = await apiFunctions(asRoot);
    const routes = routesByFunction(sourcesOf('functions/api/routes', '.ts').map(({ text }) => text));
    expect(functions.map((fn) => fn.name)).toEqual(expect.arrayContaining(['feed', 'mute', 'my_sessions', 'search']));
    expect(routes.get('feed')).toBe('GET /feed');
    const { path, text } = await rpcReferenceFile(asRoot);
    expect(readFileSync(path, 'utf8')).toBe(text);
  });
});
