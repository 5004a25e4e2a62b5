// The Edge Function's entry: the only file that touches Deno's globals.
import { parseEnv } from './env.ts';
import { createDeps, openConnections } from './lib/deps.ts';

/**
 * The last resort, once the function serves: an error that escapes every request (a library failing outside
 * any promise, as postgres.js 3.4.9 can when a database connection drops mid-write) is logged, and the
 * function goes on serving. Before that, a failure to start still ends the process.
 */
function keepServing(): void {
  globalThis.addEventListener('error', (event) => {
    event.preventDefault();
    console.error('uncaught error, still serving:', event.error);
  });
  globalThis.addEventListener('unhandledrejection', (event) => {
    event.preventDefault();
    console.error('unhandled rejection, still serving:', event.reason);
  });
}

const env = parseEnv(Deno.env.toObject());
const deps = createDeps(env);
// The database connections open while the routes load (most of a cold start), not after.
openConnections(deps);
const { createApp } = await import('./app.ts');
const app = createApp(env, deps);
// The Edge Runtime ignores these options. Locally the function listens on loopback only, so that every
// request comes through the gateway: the app trusts the X-Forwarded-For the gateway sets. PORT is the stack's.
Deno.serve({ hostname: '127.0.0.1', port: Number(Deno.env.get('PORT') ?? 8000), onListen: keepServing }, app.fetch);
