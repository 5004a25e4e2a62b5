// One error envelope for every failure: { error: { code, message, details?, request_id } }.
// `code` is stable and machine-readable; `message` is for people. Postgres errors are mapped by SQLSTATE
// (see supabase/ERRORS.md); the PTxyz SQLSTATEs carry their HTTP status as PostgREST reads them.
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { parseQuota, type Quota, quotaHeaders } from './limits.ts';

export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    /** Seconds after which trying again may succeed, sent as Retry-After. */
    readonly retryAfter?: number,
    /** The write limit that refused the request, sent as RateLimit-* headers. */
    readonly quota?: Quota,
  ) {
    super(message);
  }
}

interface PostgresLikeError {
  code: string;
  message: string;
  hint?: string;
  detail?: string;
}

function isPostgresError(error: unknown): error is PostgresLikeError {
  return error instanceof Error && error.name === 'PostgresError' &&
    typeof (error as { code?: unknown }).code === 'string';
}

const statusCodes: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable',
  429: 'rate_limited',
  503: 'service_unavailable',
};

/**
 * SQLSTATEs Postgres raises by itself: the constraints that guard the data, a server busy, stopping or starting, a
 * timeout. A message given here replaces Postgres's own, where that one says nothing a client can act on.
 */
const sqlStates: Record<string, [ContentfulStatusCode, string, string?]> = {
  '22001': [400, 'value_too_long'],
  '22003': [400, 'value_out_of_range'],
  '22007': [400, 'invalid_date'],
  '22008': [400, 'invalid_date'],
  // A NUL character (\u0000) in text: Postgres text cannot hold it (22021 as a parameter, 22P05 inside JSON).
  '22021': [400, 'invalid_text'],
  '22023': [400, 'invalid_parameter'],
  '22P02': [400, 'invalid_value'],
  '22P05': [400, 'invalid_text'],
  '23502': [400, 'missing_value'],
  '23514': [400, 'constraint_violation'],
  '23503': [404, 'not_found'],
  '23505': [409, 'conflict'],
  '40001': [409, 'concurrent_update'],
  '40P01': [409, 'concurrent_update'],
  '42501': [403, 'forbidden'],
  // A function or table the facade needs is missing: the migrations have not been applied.
  '42883': [503, 'database_not_ready'],
  '42P01': [503, 'database_not_ready'],
  // The server is out of connections, shutting down, restarting or starting up.
  '53300': [503, 'database_unavailable'],
  '57P01': [503, 'database_unavailable'],
  '57P02': [503, 'database_unavailable'],
  '57P03': [503, 'database_unavailable'],
  '55P03': [503, 'lock_timeout'],
  // A read replica behind what the request must see (private.replica_ready): lib/query.ts then reads from the
  // primary, so no client should ever get this.
  'DKLAG': [503, 'database_unavailable'],
  // The caller's statement_timeout (or a statement cancelled because its client went away: nobody reads that answer).
  '57014': [
    504,
    'statement_timeout',
    'The database took longer than this request may take; try again, or ask for a smaller page',
  ],
};

/** Retry-After, in seconds, of the 503 answers about the database: busy, starting, stopping, unreachable. */
export const databaseRetryAfter = 1;
/** Retry-After of a 429 that names no interval of its own: the shortest of the limits (a code e-mail a minute). */
const rateLimitRetryAfter = 60;

export function databaseUnavailable(message = 'The database cannot be reached; try again in a moment'): ApiError {
  return new ApiError(503, 'database_unavailable', message, undefined, databaseRetryAfter);
}

/** Failures of the connection itself, as postgres.js and the runtime report them. */
const connectionFailures = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECTION_ENDED',
]);

/**
 * The error a limit raises whole for PostgREST (private.fail with a quota: SQLSTATE PGRST, the body in MESSAGE
 * as JSON, { code: 'PT429', message, details, hint }), read as the PTxyz error it holds; else undefined.
 */
function raisedWhole(error: PostgresLikeError): PostgresLikeError | undefined {
  try {
    const { code, message, details, hint } = JSON.parse(error.message);
    return /^PT\d{3}$/.test(code) && typeof message === 'string' ? { code, message, hint, detail: details } : undefined;
  } catch {
    return undefined;
  }
}

function fromPostgres(error: PostgresLikeError): ApiError | undefined {
  // Class 08: the connection failed, as the server saw it.
  if (error.code.startsWith('08')) return databaseUnavailable();
  if (error.code === 'PGRST') {
    const raised = raisedWhole(error);
    return raised && fromPostgres(raised);
  }
  const custom = /^PT(\d{3})$/.exec(error.code);
  if (custom) {
    const status = Number(custom[1]) as ContentfulStatusCode;
    // Our SQL functions put the stable code in HINT (supabase/ERRORS.md).
    const code = error.hint && /^[a-z_]+$/.test(error.hint) ? error.hint : (statusCodes[status] ?? 'error');
    // A write limit's refusal says when its window ends.
    const quota = status === 429 ? parseQuota(error.detail) : undefined;
    return new ApiError(status, code, error.message, undefined, quota?.reset, quota);
  }
  const known = sqlStates[error.code];
  if (!known) return undefined;
  const [status, code, message = error.message] = known;
  return new ApiError(status, code, message, undefined, status === 503 ? databaseRetryAfter : undefined);
}

export function isConnectionFailure(error: unknown): boolean {
  return connectionFailures.has(String((error as { code?: unknown })?.code));
}

export function toApiError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof HTTPException) {
    if (error.status === 400 && /malformed json/i.test(error.message)) {
      return new ApiError(400, 'malformed_json', 'The request body is not valid JSON');
    }
    if (error.status === 415) {
      return new ApiError(
        415,
        'unsupported_media_type',
        'Send the body as JSON, with "Content-Type: application/json"',
      );
    }
    return new ApiError(
      error.status as ContentfulStatusCode,
      statusCodes[error.status] ?? 'error',
      error.message || 'Request failed',
    );
  }
  if (isPostgresError(error)) return fromPostgres(error);
  if (isConnectionFailure(error)) return databaseUnavailable();
  return undefined;
}

export function errorBody(error: ApiError, requestId?: string) {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.details === undefined ? {} : { details: error.details }),
      ...(requestId ? { request_id: requestId } : {}),
    },
  };
}

/**
 * The challenge of a 401 (RFC 6750): a token that was sent and refused (malformed, expired, its session ended)
 * is an invalid_token; without one, or for a wrong password, the scheme alone says how to authenticate.
 */
function wwwAuthenticate(error: ApiError, sentToken: boolean): string {
  if (!sentToken || !['invalid_token', 'unauthorized'].includes(error.code)) return 'Bearer realm="api"';
  return `Bearer realm="api", error="invalid_token", error_description="${error.message.replace(/["\\]/g, "'")}"`;
}

/** The app's single error handler: known failures keep their status; anything else is a logged 500. */
export function handleError(error: unknown, c: Context) {
  const requestId = c.get('requestId') as string | undefined;
  const known = toApiError(error);
  // A client that sent too much, or too slowly, is not kept on the connection.
  if (known?.status === 408 || known?.status === 413) c.header('Connection', 'close');
  if (known) {
    const retryAfter = known.retryAfter ??
      (known.status === 429 ? rateLimitRetryAfter : known.status === 503 ? databaseRetryAfter : undefined);
    if (retryAfter !== undefined) c.header('Retry-After', String(retryAfter));
    for (const [name, value] of known.quota ? quotaHeaders(known.quota) : []) c.header(name, value);
    if (known.status === 401) {
      c.header('WWW-Authenticate', wwwAuthenticate(known, c.req.header('Authorization') !== undefined));
    }
    return c.json(errorBody(known, requestId), known.status);
  }
  // A client that went away aborts what its request was waiting for: no one reads the answer, nothing to log.
  if (!c.req.raw.signal.aborted) console.error(`[${requestId}] unexpected error`, error);
  const unexpected = new ApiError(500, 'internal_error', 'Something went wrong on our side; quote the request id');
  return c.json(errorBody(unexpected, requestId), 500);
}
