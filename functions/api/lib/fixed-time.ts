// Answers whose timing must not tell which accounts exist (docs/ACCOUNTS-SECURITY.md, "Security"): an unknown
// address is answered at once by Supabase Auth, a known one after a password hash or an e-mail.

export function sleepUntil(deadline: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now())));
}

/** Runs `work`, then settles with its result or error no sooner than `ms` after the start. */
export async function atLeast<T>(ms: number, work: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + ms;
  try {
    return await work();
  } finally {
    await sleepUntil(deadline);
  }
}

/**
 * Starts `work` and resolves exactly `ms` later, whatever it does and however long it takes: for answers that
 * are the same whatever happened. Work still running then goes on in the background.
 */
export async function exactly(ms: number, work: () => Promise<unknown>): Promise<void> {
  const deadline = Date.now() + ms;
  const done = work().catch((error) => console.error('background work failed', error));
  // The Edge Runtime ends an instance's pending work once the response is sent unless told to wait for it.
  (globalThis as { EdgeRuntime?: { waitUntil?: (p: Promise<unknown>) => void } }).EdgeRuntime?.waitUntil?.(done);
  await sleepUntil(deadline);
}
