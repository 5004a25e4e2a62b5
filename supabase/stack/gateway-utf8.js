// The gateway's check that a request is UTF-8 (supabase/stack/gateway.ts): its path and query once their %XX
// escapes are read, and each header's value, as bytes. Run by njs, nginx's JavaScript module as Debian packages it
// (libnginx-mod-http-js, njs 0.7), whose JavaScript lacks destructuring and Array.from.
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The value of a hex digit's byte, or -1. */
function hexDigit(byte) {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  return -1;
}

/** The bytes `raw` stands for: each %XX its byte, a % without two hex digits itself (as PostgREST and the facade read it). */
function unescaped(raw) {
  const bytes = Buffer.alloc(raw.length);
  let length = 0;
  for (let i = 0; i < raw.length; i++) {
    const high = raw[i] === 0x25 && i + 2 < raw.length ? hexDigit(raw[i + 1]) : -1;
    const low = high < 0 ? -1 : hexDigit(raw[i + 2]);
    if (low < 0) {
      bytes[length++] = raw[i];
    } else {
      bytes[length++] = high * 16 + low;
      i += 2;
    }
  }
  return bytes.subarray(0, length);
}

function isUtf8(bytes) {
  try {
    utf8.decode(bytes);
    return true;
  } catch (_) {
    return false;
  }
}

/** The bytes of a header's value: njs 0.7 hands them as a byte string, which encodeURIComponent escapes byte by byte. */
function headerBytes(value) {
  try {
    return unescaped(Buffer.from(encodeURIComponent(value)));
  } catch (_) {
    return Buffer.from([0xff]); // a lone surrogate: not UTF-8 either
  }
}

/** Printable ASCII (and tabs), which is UTF-8 as it is: most paths and headers, checked in a few microseconds. */
const ascii = /^[\t -~]*$/;

/** '1' when the request's path, query or a header's value is not UTF-8; else ''. */
function malformed(r) {
  const uri = r.variables.request_uri;
  if (!(uri.indexOf('%') < 0 && ascii.test(uri)) && !isUtf8(unescaped(r.rawVariables.request_uri))) return '1';
  const headers = r.rawHeadersIn;
  for (let i = 0; i < headers.length; i++) {
    if (!ascii.test(headers[i][1]) && !isUtf8(headerBytes(headers[i][1]))) return '1';
  }
  return '';
}

export default { malformed };
