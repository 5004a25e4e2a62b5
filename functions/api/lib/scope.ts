// One request's own state, apart from the dependencies every request shares (lib/context.ts): app.ts makes
// it for each request, and the code that runs the request's statements reads it (lib/db.ts, query.ts, rpc.ts).
import type { Quota } from './limits.ts';
import type { RequestQuota } from './request-quota.ts';

export interface RequestScope {
  /** Aborts when the request's client goes away, which cancels its database statement. */
  signal: AbortSignal;
  /** The request only reads (a GET): its statements may run on a replica. */
  readOnly: boolean;
  /**
   * Its quota under the request limits, taken by its first round trip to the primary (none: it counts against
   * none, as Auth's calls to the Send Email hook).
   */
  quota?: RequestQuota;
  /** Told what is left of the write limit a write counted against (RateLimit-* headers). */
  onWriteQuota: (quota: Quota) => void;
}
