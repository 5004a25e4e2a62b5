// A request whose path or query is not UTF-8 once its %XX escapes are read (%FF, a lone byte of a character, an
// encoded surrogate) is refused with 400 invalid_encoding, as the local gateway refuses it for every service
// (supabase/stack/gateway-utf8.js, which checks the headers too): a hosted project's gateway passes it on, and a
// route would otherwise read the escapes as text. (A header that is not UTF-8 never reaches the app: Deno's
// server closes the connection.)
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from './context.ts';
import { ApiError } from './errors.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();
const escape = /^%[0-9A-Fa-f]{2}$/;

/** The bytes `text` stands for: each %XX its byte, anything else (a % without two hex digits too) as UTF-8. */
function unescaped(text: string): Uint8Array {
  return Uint8Array.from(text.split(/(%[0-9A-Fa-f]{2})/).flatMap((part) => escape.test(part) ? [parseInt(part.slice(1), 16)] : [...encoder.encode(part)]));
}

function isUtf8(text: string): boolean {
  try {
    utf8.decode(unescaped(text));
    return true;
  } catch {
    return false;
  }
}

/** The refusal's message, the gateway's too. */
export const notUtf8Message = 'The request is not UTF-8: its path, its query or a header holds bytes that are no character (such as %FF)';

export const utf8Only = createMiddleware<AppEnv>(async (c, next) => {
  const url = new URL(c.req.url);
  if (!isUtf8(url.pathname + url.search)) throw new ApiError(400, 'invalid_encoding', notUtf8Message);
  await next();
});
