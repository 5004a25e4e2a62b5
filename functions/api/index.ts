// The Edge Function's entry: the only file that touches Deno's globals.
import { createApp } from './app.ts';
import { parseEnv } from './env.ts';

const app = createApp(parseEnv(Deno.env.toObject()));
// The Edge Runtime ignores the port; the local stack sets PORT.
Deno.serve({ port: Number(Deno.env.get('PORT') ?? 8000) }, app.fetch);
