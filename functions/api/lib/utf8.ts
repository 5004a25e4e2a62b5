// A request whose path or query (once its %XX escapes are read) or a header's value is not UTF-8 (%FF, a lone
// byte of a character, an encoded surrogate, a Latin-1 é) is refused with 400 invalid_encoding, as the local
// gateway refuses it for every service (supabase/stack/gateway-utf8.js): a hosted project's gateway may pass it
// on, and a route would otherwise read the escapes as text, or the bytes as Latin-1.
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from './context.ts';
import { ApiError } from './errors.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();
const escape = /^%[0-9A-Fa-f]{2}$/;
/** Printable ASCII (and tabs): UTF-8 as it is, as nearly every header is. */
const ascii = /^[\t -~]*$/;

function isUtf8(bytes: Uint8Array): boolean {
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The bytes a path or query stands for: each %XX its byte, anything else (a % without two hex digits too) as UTF-8. */
function unescaped(text: string): Uint8Array {
  return Uint8Array.from(
    text.split(/(%[0-9A-Fa-f]{2})/).flatMap((part) =>
      escape.test(part) ? [parseInt(part.slice(1), 16)] : [...encoder.encode(part)]
    ),
  );
}

/** A header's value as the runtime hands it, one character per byte (a ByteString), read back as its bytes. */
const headerBytes = (value: string) => Uint8Array.from(value, (character) => character.charCodeAt(0));

/** The refusal's message, the gateway's too. */
export const notUtf8Message =
  'The request is not UTF-8: its path, its query or a header holds bytes that are no character (such as %FF)';

export const utf8Only = createMiddleware<AppEnv>(async (c, next) => {
  const url = new URL(c.req.url);
  const headers = [...c.req.raw.headers.values()].filter((value) => !ascii.test(value));
  if (!isUtf8(unescaped(url.pathname + url.search)) || !headers.every((value) => isUtf8(headerBytes(value)))) {
    throw new ApiError(400, 'invalid_encoding', notUtf8Message);
  }
  await next();
});
