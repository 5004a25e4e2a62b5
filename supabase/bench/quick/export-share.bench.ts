// `npm run bench -- supabase/bench/quick/export-share.bench.ts`: whether 8 accounts exporting 20,000 posts each, read by slow
// clients, starve everyone else (docs/PERFORMANCE.md, "Long reads take a share"). 8 other signed-in clients read
// their profile, a profile and the feed in a loop for a while with no export running, then again while the 8
// exports run; prints their median and p99 in both, the failures, and how the exports were answered. Figures, not
// pass or fail.
import { bench, describe } from 'vitest';
import { type Account, createAccount } from '../../../test/helpers/accounts.ts';
import { asRoot } from '../../../test/helpers/db.ts';
import { authIsRunning, stack } from '../../../test/helpers/stack.ts';

const exporters = 8;
const postsEach = 20_000;
const readers = 8;
const phaseMs = 20_000;
/** A slow reader: one chunk of the archive every this many milliseconds. */
const chunkPauseMs = 25;

async function seed() {
  const accounts = await Promise.all(Array.from({ length: exporters }, () => createAccount('exporter')));
  for (const account of accounts) {
    await asRoot`
      insert into public.posts (author_id, body, privacy)
      select ${account.id}, 'day ' || n || ' of a long journal, with a few words more to make it a real page',
        'public'::public.post_privacy
      from generate_series(1, ${postsEach}) n`;
  }
  const others = await Promise.all(Array.from({ length: readers }, () => createAccount('reader')));
  await asRoot`analyze`;
  return { accounts, others };
}

const get = (path: string, token: string) =>
  fetch(`${stack.functionsUrl}${path}`, { headers: { Authorization: `Bearer ${token}` } });

/** Each reader's requests in a loop until `until`: every answer's time and status. */
async function readLoop(reader: Account, target: Account, until: number) {
  const samples: { ms: number; status: number }[] = [];
  const paths = ['/auth/user', `/${target.username}`, '/feed?limit=20'];
  for (let i = 0; Date.now() < until; i++) {
    const start = performance.now();
    const response = await get(paths[i % paths.length], reader.accessToken);
    await response.arrayBuffer();
    samples.push({ ms: performance.now() - start, status: response.status });
  }
  return samples;
}

/** One export read slowly to its end: its status, bytes and seconds. */
async function slowExport(account: Account) {
  const start = performance.now();
  const response = await get('/user/export', account.accessToken);
  let bytes = 0;
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.length;
    await new Promise((resolve) => setTimeout(resolve, chunkPauseMs));
  }
  return { status: response.status, bytes, seconds: (performance.now() - start) / 1000 };
}

function summary(samples: { ms: number; status: number }[]) {
  const times = samples.map((s) => s.ms).sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  const failed = samples.filter((s) => s.status >= 500).length;
  return { requests: samples.length, median: at(0.5), p99: at(0.99), failed };
}

async function phase(others: Account[], target: Account) {
  const until = Date.now() + phaseMs;
  return summary((await Promise.all(others.map((reader) => readLoop(reader, target, until)))).flat());
}

describe.skipIf(!authIsRunning)(`${exporters} slow exports of ${postsEach} posts beside ${readers} readers`, () => {
  bench('the readers alone, then beside the exports', async () => {
    const { accounts, others } = await seed();
    const alone = await phase(others, accounts[0]);
    const exports = Promise.all(accounts.map(slowExport));
    const beside = await phase(others, accounts[0]);
    const exported = await exports;
    const row = (name: string, s: ReturnType<typeof summary>) =>
      `${name.padEnd(22)} ${String(s.requests).padStart(8)} ${s.median.toFixed(1).padStart(10)} ${
        s.p99.toFixed(1).padStart(10)
      } ${String(s.failed).padStart(6)}`;
    console.log(`\n${'readers'.padEnd(22)} requests median ms    p99 ms  5xx`);
    console.log(row('alone', alone));
    console.log(row('beside 8 exports', beside));
    console.log(
      `ratio beside/alone: median ×${(beside.median / alone.median).toFixed(2)}, p99 ×${
        (beside.p99 / alone.p99).toFixed(2)
      }`,
    );
    const byStatus = Object.groupBy(exported, (e) => String(e.status));
    for (const [status, list] of Object.entries(byStatus)) {
      const done = list!;
      console.log(
        `exports answered ${status}: ${done.length}, ${
          (done.reduce((n, e) => n + e.bytes, 0) / done.length / 1e6).toFixed(1)
        } MB each, ${Math.max(...done.map((e) => e.seconds)).toFixed(1)} s at most`,
      );
    }
  }, { iterations: 1, warmupIterations: 0, time: 0 });
});
