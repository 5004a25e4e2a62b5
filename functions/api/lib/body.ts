// The request body, read whole before any handler runs: at most `maxBytes`, within `deadlineMs`. A client
// that sends more is answered 413, one that sends too slowly 408, both with `Connection: close`, so that
// neither holds a handler (and its place in the database pool's queue) while it dribbles. A client that goes
// away mid-body is no error of ours.
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from './context.ts';
import { ApiError } from './errors.ts';

export function bufferedBody(maxBytes: number, deadlineMs: number) {
  const tooLarge = () => new ApiError(413, 'payload_too_large', `The request body is larger than ${maxBytes} bytes`);
  return createMiddleware<AppEnv>(async (c, next) => {
    const stream = c.req.raw.body;
    if (!stream) return next();
    if (Number(c.req.header('content-length') ?? 0) > maxBytes) throw tooLarge();
    const reader = stream.getReader();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(new ApiError(408, 'request_timeout', `The request body did not arrive within ${deadlineMs / 1000} s`)),
        deadlineMs,
      );
    });
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      for (;;) {
        const { done, value } = await Promise.race([reader.read(), timedOut]);
        if (done) break;
        size += value.length;
        if (size > maxBytes) throw tooLarge();
        chunks.push(value);
      }
    } catch (error) {
      await reader.cancel().catch(() => undefined);
      // Otherwise the client went away mid-body (Deno reports it as BadResource): no one to answer, nothing to log.
      throw error instanceof ApiError
        ? error
        : new ApiError(400, 'incomplete_body', 'The connection closed before the whole body arrived');
    } finally {
      clearTimeout(timer);
    }
    const body = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      body.set(chunk, offset);
      offset += chunk.length;
    }
    c.req.raw = new Request(c.req.raw, { body });
    await next();
  });
}
