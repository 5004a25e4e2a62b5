// The answers every route can give besides its own: the routes declare what is theirs, this adds what the
// app's middleware and dependencies add to all of them, so the document lists every status a client may see;
// then each error answer names the codes it may carry: those of its status (lib/error-codes.ts, from
// supabase/ERRORS.md) that its operation can answer (lib/operation-codes.ts, read from the facade and the SQL).
import { errorCodes, errorMessages } from './error-codes.ts';
import { errorExample } from './openapi-errors.ts';
import { operationCodes } from './operation-codes.ts';

type Operation = {
  operationId?: string;
  requestBody?: unknown;
  security?: Record<string, unknown>[];
  tags?: string[];
  responses: Record<string, unknown>;
};

type Document = { paths?: object; components?: { schemas?: Record<string, unknown> } };

// The Error schema the routes register (lib/openapi-errors.ts), by reference as the routes' own answers have it.
const error = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

const common: [string, (operation: Operation) => boolean, string][] = [
  [
    '400',
    () => true,
    'A path, query or header that is not UTF-8; with a body, malformed JSON, or a field missing, of the wrong type or out of range',
  ],
  [
    '401',
    (op) => op.security?.some((scheme) => 'bearerAuth' in scheme) ?? false,
    'A malformed, invalid or expired access token, or an ended session',
  ],
  ['408', (op) => op.requestBody !== undefined, 'The body did not arrive within 10 s'],
  ['413', (op) => op.requestBody !== undefined, 'A body over 64 KiB'],
  ['415', (op) => op.requestBody !== undefined, 'A body that is not application/json'],
  [
    '429',
    () => true,
    'Too many requests from this account or address (too_many_requests; see Retry-After), or too many attempts from this client (Supabase Auth)',
  ],
  ['500', () => true, 'Unexpected; quote the request id'],
  [
    '503',
    () => true,
    'The database, Supabase Auth or the mail server cannot be reached, or the database is busy (see Retry-After)',
  ],
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

/** How many operations may answer each code: the fewer, the more a code says of the operation that answers it. */
const operationsAnswering = new Map<string, number>();
for (const codes of Object.values(operationCodes)) {
  for (const code of codes) operationsAnswering.set(code, (operationsAnswering.get(code) ?? 0) + 1);
}

/**
 * The code an error answer shows as its example: of its own codes, one with a message to show, answered by the
 * fewest operations (too_many_posts before too_many_requests for createPost's 429), the status's usual one on a tie.
 */
export function exampleCode(status: number, codes: string[]): string {
  const usual = errorCodes[status].example.code;
  const shown = (code: string) => errorMessages[code] !== undefined;
  const rank = (
    code: string,
  ): [number, number, number] => [shown(code) ? 0 : 1, operationsAnswering.get(code) ?? 0, code === usual ? 0 : 1];
  return [...codes].sort((a, b) => {
    const [x, y] = [rank(a), rank(b)];
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2] || a.localeCompare(b);
  })[0];
}

/** The Error envelope of one status carrying one of `codes`, shown with a real example of one of them. */
function errorOf(status: number, codes: string[]) {
  const usual = errorCodes[status].example;
  const shown = exampleCode(status, codes);
  const example = shown === usual.code ? usual : { code: shown, message: errorMessages[shown] ?? '…' };
  return {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: {
            type: 'string',
            enum: codes,
            description: 'Stable: clients branch on it (supabase/ERRORS.md says what each means)',
          },
          message: { type: 'string', description: 'For people; may change', example: example.message },
          details: {
            type: 'array',
            description: 'For invalid input: one entry per invalid field',
            items: {
              type: 'object',
              properties: {
                path: { type: 'string', example: errorExample.detail.path },
                message: { type: 'string', example: errorExample.detail.message },
              },
            },
          },
          request_id: {
            type: 'string',
            description: 'The X-Request-Id header: quote it in a bug report',
            example: errorExample.request_id,
          },
        },
      },
    },
    example: { error: { ...example, request_id: errorExample.request_id } },
  };
}

/**
 * `document` with each error answer's schema naming the codes it may carry: the Error of its status (Error404…)
 * where its operation may answer all of them, else the one named after the first operation that answers just
 * those codes (GetPostError404, which likePost's 404 shares).
 */
export function withErrorCodes<D extends Document>(document: D): D {
  const schemas = (document.components ??= {}).schemas ??= {};
  const named = new Map<string, string>();
  for (const methods of Object.values(document.paths ?? {}) as Record<string, Operation>[]) {
    for (const operation of Object.values(methods)) {
      for (const [status, answer] of Object.entries(operation?.responses ?? {})) {
        const content = (answer as { content?: Record<string, { schema?: { $ref?: string } }> }).content
          ?.['application/json'];
        // Only the error envelope (health's 503 is its own report of the services).
        if (!errorCodes[Number(status)] || content?.schema?.$ref !== '#/components/schemas/Error') continue;
        const all = errorCodes[Number(status)].codes;
        const own = operation.operationId ? operationCodes[operation.operationId] : undefined;
        const codes = own ? all.filter((code) => own.includes(code)) : all;
        // A status the reading finds no code of keeps them all, rather than promise none.
        const key = `${status} ${codes}`;
        if (!named.has(key)) {
          named.set(
            key,
            codes.length === all.length || codes.length === 0
              ? `Error${status}`
              : `${operation.operationId![0].toUpperCase()}${operation.operationId!.slice(1)}Error${status}`,
          );
        }
        const name = named.get(key)!;
        schemas[name] ??= errorOf(Number(status), codes.length === 0 ? all : codes);
        content.schema = { $ref: `#/components/schemas/${name}` };
      }
    }
  }
  return document;
}
