// The Edge Function's entry: the only file that touches Deno's globals.
import { createApp } from './app.ts';
import { parseEnv } from './env.ts';

const app = createApp(parseEnv(Deno.env.toObject()));
// The Edge Runtime ignores these options. Locally the function listens on loopback only, so that every
// request comes through the gateway: the app trusts the X-Forwarded-For the gateway sets. PORT is the stack's.
Deno.serve({ hostname: '127.0.0.1', port: Number(Deno.env.get('PORT') ?? 8000) }, app.fetch);
