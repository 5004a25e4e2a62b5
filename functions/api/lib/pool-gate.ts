// The queue for a database connection, bounded: at most `slots` transactions hold a connection at once, at
// most `maxWaiting` requests wait for one, none longer than `maxWaitMs`. Past either bound the request is
// answered 503 with Retry-After at once, so a few slow requests cannot hold every other one for minutes.
import { ApiError, databaseRetryAfter } from './errors.ts';

export interface PoolGate {
  /** Waits for a free slot; the returned function frees it (call it exactly once). */
  enter(signal?: AbortSignal): Promise<() => void>;
}

function busy(): ApiError {
  return new ApiError(
    503,
    'database_busy',
    'Every database connection is busy; try again in a moment',
    undefined,
    databaseRetryAfter,
  );
}

export function createPoolGate(slots: number, maxWaiting: number, maxWaitMs: number): PoolGate {
  let free = slots;
  const waiting: (() => void)[] = [];

  function leave() {
    const next = waiting.shift();
    if (next) next();
    else free += 1;
  }

  function once(): () => void {
    let left = false;
    return () => {
      if (!left) leave();
      left = true;
    };
  }

  return {
    enter(signal) {
      if (free > 0) {
        free -= 1;
        return Promise.resolve(once());
      }
      if (waiting.length >= maxWaiting) return Promise.reject(busy());
      return new Promise((resolve, reject) => {
        const stop = (error: unknown) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', abandoned);
          const index = waiting.indexOf(granted);
          if (index >= 0) waiting.splice(index, 1);
          reject(error);
        };
        const granted = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', abandoned);
          resolve(once());
        };
        const abandoned = () => stop(signal?.reason);
        const timer = setTimeout(() => stop(busy()), maxWaitMs);
        signal?.addEventListener('abort', abandoned, { once: true });
        waiting.push(granted);
      });
    },
  };
}
