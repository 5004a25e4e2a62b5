// docs/RPC.md, the rpc() reference, says what the database holds: every function anon or authenticated may call,
// with its arguments, defaults, who may call it and its comment, beside the route answering the same JSON.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { apiFunctions, renderRpcReference, routesByFunction } from '../../supabase/stack/rpc-reference.ts';
import { asRoot } from '../helpers/db.ts';
import { authIsRunning } from '../helpers/stack.ts';

// The app's functions are applied on top of Auth's schema, so without Auth there is nothing to read.
describe.skipIf(!authIsRunning)('docs/RPC.md', () => {
  it('is what the database and the routes say now (else run `npm run docs:rpc`)', async () => {
    const functions = await apiFunctions(asRoot);
    const routes = routesByFunction(readdirSync('functions/api/routes').map((file) => readFileSync(`functions/api/routes/${file}`, 'utf8')));
    expect(functions.map((fn) => fn.name)).toEqual(expect.arrayContaining(['feed', 'mute', 'my_sessions', 'search']));
    expect(routes.get('feed')).toBe('GET /feed');
    expect(readFileSync('docs/RPC.md', 'utf8')).toBe(renderRpcReference(functions, routes));
  });
});
