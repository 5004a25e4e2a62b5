// What every handler can reach through `c.var`: the shared dependencies with the request's own state beside
// them, the request id and the caller. The access token is set by requireUser alone (lib/caller.ts), so only
// its routes see it.
import type { Env } from '../env.ts';
import type { AuthApi } from './auth-api.ts';
import type { Database } from './db.ts';
import type { SendMail } from './mail.ts';
import type { RequestCounter } from './request-counter.ts';
import type { RequestScope } from './scope.ts';
import type { Caller, TokenVerifier } from './tokens.ts';

/** The function's shared dependencies, built once a process (lib/deps.ts) and shared by every request. */
export interface Deps {
  env: Env;
  db: Database;
  verifyToken: TokenVerifier;
  auth: AuthApi;
  /** Sends a code e-mail through the mail server (the Send Email hook's). */
  sendMail: SendMail;
  /** This process's counts under the request limits, written to the primary in batches (lib/request-counter.ts). */
  requestCounter: RequestCounter;
}

/** The shared dependencies as one request uses them: with its own state (app.ts sets it per request). */
export interface RequestDeps extends Deps {
  request: RequestScope;
}

export interface AppEnv {
  Variables: {
    requestId: string;
    deps: RequestDeps;
    caller: Caller;
    /** The client's address, as the gateway in front of the function reports it. */
    clientIp: string | undefined;
  };
}
