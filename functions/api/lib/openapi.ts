// The answers every route can give besides its own: the routes declare what is theirs, this adds what the
// app's middleware and dependencies add to all of them, so the document lists every status a client may see.

type Operation = {
  requestBody?: unknown;
  security?: Record<string, unknown>[];
  tags?: string[];
  responses: Record<string, unknown>;
};

type Document = { paths?: object };

// The Error schema the routes register (lib/errors.ts), by reference as the routes' own answers have it.
const error = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

const common: [string, (operation: Operation) => boolean, string][] = [
  ['400', (op) => op.requestBody !== undefined, 'Malformed JSON, or a field missing, of the wrong type or out of range'],
  ['401', (op) => op.security?.some((scheme) => 'bearerAuth' in scheme) ?? false, 'A malformed, invalid or expired access token, or an ended session'],
  ['408', (op) => op.requestBody !== undefined, 'The body did not arrive within 10 s'],
  ['413', (op) => op.requestBody !== undefined, 'A body over 64 KiB'],
  ['415', (op) => op.requestBody !== undefined, 'A body that is not application/json'],
  ['429', () => true, 'Too many requests from this account or address (too_many_requests; see Retry-After), or too many attempts from this client (Supabase Auth)'],
  ['500', () => true, 'Unexpected; quote the request id'],
  ['503', () => true, 'The database, Supabase Auth or the mail server cannot be reached, or the database is busy (see Retry-After)'],
  ['504', () => true, "The database took longer than the caller's statement timeout"],
];

/** `document` with the common error answers added to each operation that does not declare its own. */
export function withCommonErrors<D extends Document>(document: D): D {
  for (const methods of Object.values(document.paths ?? {}) as Record<string, Operation>[]) {
    for (const operation of Object.values(methods)) {
      if (!operation?.responses) continue;
      for (const [status, applies, description] of common) {
        if (applies(operation) && !(status in operation.responses)) operation.responses[status] = error(description);
      }
    }
  }
  return document;
}
