// What every handler can reach through `c.var`: the shared dependencies, the request id and the caller.
import type { Env } from '../env.ts';
import type { Sql } from './db.ts';
import type { Caller, TokenVerifier } from './tokens.ts';

export interface Deps {
  env: Env;
  sql: Sql;
  verifyToken: TokenVerifier;
}

export interface AppEnv {
  Variables: {
    requestId: string;
    deps: Deps;
    caller: Caller;
  };
}
