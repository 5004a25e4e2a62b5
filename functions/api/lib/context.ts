// What every handler can reach through `c.var`: the shared dependencies, the request id and the caller.
import type { Env } from '../env.ts';
import type { AuthApi } from './auth-api.ts';
import type { Quota } from './errors.ts';
import type { Database } from './db.ts';
import type { SendMail } from './mail.ts';
import type { RequestQuota } from './request-quota.ts';
import type { Caller, TokenVerifier } from './tokens.ts';

export interface Deps {
  env: Env;
  db: Database;
  verifyToken: TokenVerifier;
  auth: AuthApi;
  /** Sends a code e-mail through the mail server (the Send Email hook's). */
  sendMail: SendMail;
  /** The request's, per request: aborts when its client goes away, which cancels its database statement. */
  signal?: AbortSignal;
  /** The request only reads (a GET): its statements may run on a replica. */
  readOnly?: boolean;
  /** The request's quota under the request limits, taken by its first round trip to the primary. */
  requestQuota?: RequestQuota;
  /** Told what is left of the write limit a request's write counted against (RateLimit-* headers). */
  onWriteQuota?: (quota: Quota) => void;
}

export interface AppEnv {
  Variables: {
    requestId: string;
    deps: Deps;
    caller: Caller;
    /** The caller's verified access token, for the Auth endpoints that act as the user. */
    accessToken: string;
    /** The client's address, as the gateway in front of the function reports it. */
    clientIp: string | undefined;
  };
}
