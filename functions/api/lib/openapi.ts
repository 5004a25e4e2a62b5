// The answers every route can give besides its own: the routes declare what is theirs, this adds what the
// app's middleware and dependencies add to all of them, so the document lists every status a client may see;
// then each error answer names the codes it may carry: those of its status (lib/error-codes.ts, from
// supabase/ERRORS.md) that its operation can answer (lib/operation-codes.ts, read from the facade and the SQL).
import { cacheControl, noStoreOperations } from './caching.ts';
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

type Document = {
  paths?: object;
  tags?: { name: string; description?: string }[];
  components?: { schemas?: Record<string, unknown>; headers?: Record<string, unknown> };
};

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
  [
    '403',
    (op) => op.security?.some((scheme) => 'bearerAuth' in scheme) ?? false,
    'The account has a second factor this session has not proved (second_factor_required: verify a code with ' +
    'POST /user/mfa/{factorId}/verify first), or the caller may not do this',
  ],
  // A body is read, bounded in time and size, whatever the route: one sent where none is taken is refused alike.
  ['408', () => true, 'The body did not arrive within 10 s'],
  ['413', () => true, 'A body over 64 KiB'],
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
  // Every answer now names its own envelope: the generic one the routes declare would be listed unused.
  if (!JSON.stringify(document.paths ?? {}).includes('"#/components/schemas/Error"')) delete schemas.Error;
  return document;
}

/** The response headers the facade sends, as components: each answer below names those it may carry. */
const headers = {
  'X-Request-Id': {
    description: 'The id of this request: the one the request sent, else a new one; quote it in a bug report',
    required: true,
    schema: { type: 'string', example: errorExample.request_id },
  },
  'RateLimit-Limit': {
    description:
      'Of the limit this request counted against that is nearest its end (a write limit or a request limit): its size',
    schema: { type: 'integer', example: 600 },
  },
  'RateLimit-Remaining': {
    description: 'What is left of that limit in its window',
    schema: { type: 'integer', example: 598 },
  },
  'RateLimit-Reset': {
    description: 'Seconds until its window ends',
    schema: { type: 'integer', example: 42 },
  },
  'Retry-After': {
    description: 'Seconds after which trying again may succeed',
    required: true,
    schema: { type: 'integer', example: 60 },
  },
  'WWW-Authenticate': {
    description: 'How to authenticate (RFC 6750): `error="invalid_token"` when a sent token was refused',
    required: true,
    schema: { type: 'string', example: 'Bearer realm="api", error="invalid_token", error_description="Token expired"' },
  },
  'Cache-Control': {
    description: `What a client or a cache may keep: \`${cacheControl.anonymous}\` on a read without a token, ` +
      `\`${cacheControl.personal}\` on a signed-in read, \`${cacheControl.none}\` on everything else and on the reads ` +
      "of the account's secrets (its e-mail, sessions, second factors, export)",
    required: true,
    schema: { type: 'string', enum: Object.values(cacheControl), example: cacheControl.personal },
  },
  ETag: {
    description:
      'The version of this answer: send it back in If-None-Match, and an unchanged answer is a 304 without a body',
    required: true,
    schema: { type: 'string', example: '"n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg"' },
  },
  Location: {
    description: 'Where to go next',
    required: true,
    schema: { type: 'string', format: 'uri', example: 'http://127.0.0.1:54321/auth/v1/authorize?provider=google' },
  },
} as const;

type HeaderName = keyof typeof headers;

/** The headers an answer of `operation` with `status` may carry, besides those of every answer. */
function headersOf(operation: Operation & { method?: string }, status: string): HeaderName[] {
  const names: HeaderName[] = ['X-Request-Id', 'Cache-Control'];
  // Every request that reaches the database counts against the request limits (the document itself does not).
  if (operation.operationId !== 'getOpenApiDocument') {
    names.push('RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset');
  }
  if (status === '429' || status === '503') names.push('Retry-After');
  if (status === '401') names.push('WWW-Authenticate');
  if (status === '302') names.push('Location');
  if (revalidated(operation) && (status === '200' || status === '304')) names.push('ETag');
  return names;
}

/** Whether a read's answer carries an ETag, and a 304 answers an If-None-Match that names it (lib/caching.ts). */
function revalidated(operation: Operation & { method?: string }): boolean {
  const json = (operation.responses['200'] as { content?: Record<string, unknown> } | undefined)?.content?.[
    'application/json'
  ];
  return operation.method === 'get' && json !== undefined && !noStoreOperations.includes(operation.operationId ?? '');
}

const notModified = {
  description: 'Not Modified: If-None-Match named the ETag of the answer as it still is; no body',
};

/** The operations' groups, in the order the reference shows them. */
const tags = [
  { name: 'health', description: 'Whether the services behind the API are up' },
  { name: 'docs', description: 'This document' },
  { name: 'auth', description: 'Signing up, in and out; codes by e-mail; passwords; sessions' },
  { name: 'account', description: 'Your account: its settings, sessions, second factors, export and deletion' },
  {
    name: 'users',
    description: 'Profiles, follows, follow requests, close friends, blocks, mutes, reports, calendars',
  },
  { name: 'posts', description: 'Posts, their likes and reports' },
  { name: 'comments', description: 'Comments and replies, their likes and reports' },
  { name: 'feed', description: 'The posts of the accounts you follow' },
  { name: 'notifications', description: 'What others did that concerns you' },
  { name: 'search', description: 'Accounts and posts by their words' },
  { name: 'admin', description: 'Moderation: reports, bans and their history' },
];

/**
 * `document` with the top-level tags, and the response headers of every answer: each declared once under
 * components.headers, named by each answer that may carry it (required when every such answer does).
 */
export function withHeadersAndTags<D extends Document>(document: D): D {
  const used = new Set<string>();
  for (const methods of Object.values(document.paths ?? {}) as Record<string, Operation>[]) {
    for (const [method, operation] of Object.entries(methods)) {
      for (const tag of operation?.tags ?? []) used.add(tag);
      if (revalidated({ ...operation, method }) && !operation.responses['304']) {
        operation.responses = Object.fromEntries(
          Object.entries({ ...operation.responses, '304': structuredClone(notModified) }).sort(([a], [b]) =>
            a.localeCompare(b)
          ),
        );
      }
      for (const [status, answer] of Object.entries(operation?.responses ?? {})) {
        const declared = ((answer as { headers?: Record<string, unknown> }).headers ??= {});
        for (const name of headersOf({ ...operation, method }, status)) {
          declared[name] ??= { $ref: `#/components/headers/${name}` };
        }
      }
    }
  }
  (document.components ??= {}).headers = { ...headers, ...document.components.headers };
  document.tags = tags.filter((tag) => used.has(tag.name));
  const unknown = [...used].filter((name) => !tags.some((tag) => tag.name === name));
  if (unknown.length) throw new Error(`tags without a description in lib/openapi.ts: ${unknown.join(', ')}`);
  return document;
}
