// Request limits through the facade (supabase/schemas/26_request_limits.sql): every request that reaches the
// database counts, reads and failures included, for its account and for its client's address, in the database, so every facade instance
// counts into one number; past the limit, 429 too_many_requests with headers a browser can read. The suite runs
// with the limits raised out of its reach (test/request-limits.setup.ts): each test here arranges its own count
// so that the next request meets the limit, whatever the limit is.
//
// The facade counts per instance and flushes (functions/api/lib/request-counter.ts): a key's first request in a
// window takes its quota in the database, and so does every request near the limit; the others are admitted by
// the instance and written within seconds (at once for a busy key, after holdMs for a quiet one). A count arranged for a key the instance has not met is
// therefore met at once; one arranged behind the back of an instance that knows the key is learned at its next
// flush, and a count read right after requests the instance admitted is polled for.
import { describe, expect, it } from 'vitest';
import { flushIntervalMs, holdMs, margin } from '../../functions/api/lib/request-counter.ts';
import { type Account, createAccount, createLoadWriter, makeAdmin } from '../helpers/accounts.ts';
import { anon, as, asRoot, errorOf } from '../helpers/db.ts';
import { api, apiFrom } from '../helpers/http.ts';
import { authIsRunning } from '../helpers/stack.ts';

/** Sets the current window's count of `key` so that `left` more requests are allowed. */
async function leave(key: string, left: number): Promise<void> {
  const scope = key.split(':')[0];
  await asRoot`
    insert into private.request_counts (key, window_start, requests)
    select ${key}, private.write_window_start(l.window_length), l.max_requests - ${left}
    from private.request_limits l where l.scope = ${scope}
    on conflict (key, window_start) do update set requests = excluded.requests`;
}

/** What `key` may send in a window now (the suite raises the limits out of its reach). */
async function limitOf(key: string): Promise<number> {
  const [row] = await asRoot`select max_requests from private.request_limits where scope = ${key.split(':')[0]}`;
  return row.max_requests;
}

async function counted(key: string): Promise<number> {
  const [row] = await asRoot`
    select coalesce(sum(r.requests), 0)::int as n from private.request_counts r
    join private.request_limits l on l.scope = split_part(r.key, ':', 1)
    where r.key = ${key} and r.window_start = private.write_window_start(l.window_length)`;
  return row.n;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The count of `key` once the facade's flush has written it: polled until it is `expected` (within the time a
 * quiet key's requests are held, a second and a few intervals), then read again two flush intervals later, so
 * that a count written twice would show.
 */
async function flushedCount(key: string, expected: number): Promise<number> {
  const deadline = Date.now() + holdMs + 1_000 + 4 * flushIntervalMs;
  while (await counted(key) !== expected && Date.now() < deadline) await sleep(25);
  await sleep(2 * flushIntervalMs);
  return counted(key);
}

const profile = (account: Account) => api('GET', `/${account.username}`, { token: account.accessToken });

describe.skipIf(!authIsRunning)('request limits', () => {
  it('an account at its limit is refused with 429 too_many_requests, Retry-After and RateLimit headers a browser can read', async () => {
    const reader = await createAccount('reader');
    await leave(`account:${reader.id}`, 1);
    expect((await profile(reader)).status).toBe(200);
    const refused = await api('GET', `/${reader.username}`, {
      token: reader.accessToken,
      headers: { Origin: 'https://app.example' },
    });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('too_many_requests');
    expect(refused.body.error.message).toMatch(
      /^Too many requests: at most \d+ per 5 minutes from one account; try again in/,
    );
    const retryAfter = Number(refused.headers.get('Retry-After'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(300);
    expect(refused.headers.get('RateLimit-Remaining')).toBe('0');
    expect(refused.headers.get('RateLimit-Reset')).toBe(String(retryAfter));
    const exposed = (refused.headers.get('Access-Control-Expose-Headers') ?? '').split(/,\s*/);
    expect(exposed).toEqual(
      expect.arrayContaining(['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
    );
    // Writes are refused alike; another account is not.
    expect((await api('POST', '/post/create', { token: reader.accessToken, json: { body: 'hello' } })).status).toBe(
      429,
    );
    const other = await createAccount('other');
    expect((await profile(other)).status).toBe(200);
  });

  it('counts every request that reaches the database once, reads, writes and failures alike; bad input refused before is not', async () => {
    const reader = await createAccount('counted');
    const key = `account:${reader.id}`;
    const before = await counted(key);
    await profile(reader);
    await api('POST', '/post/create', { token: reader.accessToken, json: { body: 'counted' } });
    expect((await api('GET', '/post/00000000-0000-4000-8000-000000000000', { token: reader.accessToken })).status).toBe(
      404,
    );
    expect((await api('POST', '/post/create', { token: reader.accessToken, json: { body: '' } })).status).toBe(400);
    // The first took its quota in the database; the facade admitted the next two itself and writes them once held
    // for holdMs.
    expect(await flushedCount(key, before + 3)).toBe(before + 3);
  });

  it('reads the facade admits itself are written to the database within a flush, each once, and report what is left', async () => {
    const reader = await createAccount('flushed');
    const key = `account:${reader.id}`;
    // Far from the limit, beyond the margin under which every request goes to the database.
    const left = 10 * margin(await limitOf(key));
    await leave(key, left);
    // The first read takes the quota in the database and tells the facade the account's state.
    expect((await profile(reader)).headers.get('RateLimit-Remaining')).toBe(String(left - 1));
    const arranged = await counted(key);
    const reads = [];
    for (let i = 0; i < 5; i++) reads.push(await profile(reader));
    expect(reads.map((read) => read.status)).toEqual([200, 200, 200, 200, 200]);
    expect(reads.map((read) => read.headers.get('RateLimit-Remaining'))).toEqual(
      [2, 3, 4, 5, 6].map((n) => String(left - n)),
    );
    // Admitted by the facade: not in the database yet (fewer than a batch, held), then written once.
    expect(await counted(key)).toBe(arranged);
    expect(await flushedCount(key, arranged + 5)).toBe(arranged + 5);
  });

  it('an account the facade believes far from its limit is refused exactly at the limit once its count is learned', async () => {
    const reader = await createAccount('learned');
    const key = `account:${reader.id}`;
    expect((await profile(reader)).status).toBe(200);
    // Another instance (here: the test) brings the account to 3 short of its limit behind this instance's back.
    // The instance still believes it far: it admits the next read itself, and learns the count when it writes
    // it (what several instances may pass a limit by: docs/PRODUCT.md, "Request limits").
    await leave(key, 3);
    const arranged = await counted(key);
    expect((await profile(reader)).status).toBe(200);
    expect(await flushedCount(key, arranged + 1)).toBe(arranged + 1);
    // Now near its limit, every request asks the database: exactly the 2 left pass, in parallel too.
    const answers = await Promise.all(Array.from({ length: 6 }, () => profile(reader)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(2);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(4);
    expect(await counted(key)).toBe(arranged + 3);
  });

  it('every answer that counted says what is left of its limit, reads and anonymous callers included', async () => {
    const reader = await createAccount('told');
    await leave(`account:${reader.id}`, 10);
    const read = await api('GET', `/${reader.username}`, { token: reader.accessToken });
    expect(read.status).toBe(200);
    expect(read.headers.get('RateLimit-Remaining')).toBe('9');
    const reset = Number(read.headers.get('RateLimit-Reset'));
    expect(reset).toBeGreaterThan(0);
    expect(reset).toBeLessThanOrEqual(300);
    // An anonymous read counts for its address (a replica may serve it; the quota is taken on the primary).
    const address = '127.0.0.203';
    await leave(`address:${address}`, 5);
    const anonymous = await apiFrom(address, 'GET', `/${reader.username}`);
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers.get('RateLimit-Remaining')).toBe('4');
    // What never reaches the database counts against nothing, and says nothing.
    const refusedEarly = await api('POST', '/post/create', { token: reader.accessToken, json: { body: '' } });
    expect(refusedEarly.status).toBe(400);
    expect(refusedEarly.headers.get('RateLimit-Limit')).toBeNull();
  });

  it('8 parallel requests of an account with 3 left: exactly 3 pass', async () => {
    const reader = await createAccount('parallel');
    await leave(`account:${reader.id}`, 3);
    const answers = await Promise.all(Array.from({ length: 8 }, () => profile(reader)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(5);
  });

  it('an address at its limit is refused, signed in or not; another address is not', async () => {
    const [crowded, quiet] = ['127.0.0.201', '127.0.0.202'];
    const someone = await createAccount('someone');
    await leave(`address:${crowded}`, 1);
    expect((await apiFrom(crowded, 'GET', `/${someone.username}`)).status).toBe(200);
    const refused = await apiFrom(crowded, 'GET', `/${someone.username}`);
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toMatch(/from one address/);
    expect((await apiFrom(quiet, 'GET', `/${someone.username}`)).status).toBe(200);
    // A key's first request in a window takes its quota in the database: counted at once.
    expect(await counted(`address:${quiet}`)).toBe(1);
  });

  it('admins and trusted accounts are not limited by account', async () => {
    const [admin, trusted] = await Promise.all([createAccount('admin'), createLoadWriter('trusted')]);
    await makeAdmin(admin);
    for (const account of [admin, trusted]) {
      await leave(`account:${account.id}`, 0);
      expect((await profile(account)).status).toBe(200);
    }
  });

  it("a take answers when the key's window ends, to the millisecond, and how long windows are; a write of a window that ended counts nothing", async () => {
    const address = '127.0.0.204';
    await asRoot`delete from private.request_counts where key = ${`address:${address}`}`;
    const [{ answer, length, ends }] = await asRoot`
      select private.take_request_quota(null, ${address}) -> 'address' as answer,
        extract(epoch from l.window_length)::integer as length,
        extract(epoch from private.write_window_start(l.window_length) + l.window_length - now()) * 1000 as ends
      from private.request_limits l where l.scope = 'address'`;
    expect(answer.window_seconds).toBe(length);
    expect(answer.ends_in_ms).toBe(Math.floor(Number(ends)));
    expect(answer.reset).toBe(Math.max(1, Math.ceil(Number(ends) / 1000)));
    const ended = new Date(Date.parse(answer.window_start) - length * 1000).toISOString();
    const late = JSON.stringify([{ key: `address:${address}`, window_start: ended, requests: 5 }]);
    const current = JSON.stringify([{ key: `address:${address}`, window_start: answer.window_start, requests: 5 }]);
    expect((await asRoot`select private.add_request_counts(${late}::text::jsonb) as states`)[0].states).toEqual([]);
    expect(await counted(`address:${address}`)).toBe(1);
    await asRoot`select private.add_request_counts(${current}::text::jsonb)`;
    expect(await counted(`address:${address}`)).toBe(6);
  });

  it('only the facade may count: the API roles can neither take a quota nor write counts', async () => {
    const reader = await createAccount('direct');
    const counts = JSON.stringify([{
      key: `account:${reader.id}`,
      window_start: new Date().toISOString(),
      requests: 1,
    }]);
    for (const actor of [anon, reader]) {
      expect((await errorOf(as(actor, (tx) => tx`select private.take_request_quota(${reader.id}, '10.0.0.1')`))).code)
        .toBe('42501');
      expect((await errorOf(as(actor, (tx) => tx`select private.add_request_counts(${counts}::jsonb)`))).code)
        .toBe('42501');
    }
  });
});
