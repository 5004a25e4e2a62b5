// Reports of one target from many accounts at once (issue 55, item 1), beside the writes benchmark's toggles. A
// reporter reports an element once, so reports are not repeated in a loop as likes are toggled: each round, every
// caller files one report at the same instant, all of one new post (hot) or each of a new post of its own
// (spread), through the facade, PostgREST's rpc() and SQL as `authenticator` taking the caller's role as PostgREST
// does (one connection per caller, as pgbench's). Through each door, hot and spread rounds alternate.
import postgres from 'postgres';
import { roleUrl } from '../stack/postgres.ts';
import type { Stack } from '../stack/stack.ts';
import { cpuByProcess } from './cpu.ts';
import type { Driver } from './drivers.ts';
import { identitySql } from './identity.ts';
import type { Load } from './load.ts';
import { percentile } from './stats.ts';
import { hotAndSpread, type Target } from './write-targets.ts';

export const burstDoors = ['facade', 'PostgREST', 'SQL'] as const;
export type BurstDoor = typeof burstDoors[number];

export interface Burst {
  callers: number;
  target: Target;
  door: BurstDoor;
  /** Reports a second (the reports over the rounds' time), and p50 and p99 of each report's time. */
  load: Load;
  /** Postgres's CPU over the counted rounds, per report. */
  cpuPerWrite: number;
}

/** Files caller i's report of a post; its time in ms, or undefined when refused. */
interface Sender {
  send: (i: number, post: string) => Promise<number | undefined>;
  close: () => Promise<void>;
}

/**
 * Each number of callers (the first of `accounts`), through each door, hot and spread in turn, round after round:
 * whatever a door's first bursts pay (a fresh path in the function, plans new to a server connection: ×0.71–0.82
 * for whichever target ran its rounds first, 2026-11-29) falls on both targets alike.
 */
export async function reportBursts(
  stack: Stack,
  root: postgres.Sql,
  counts: number[],
  accounts: Driver[],
  authors: { hot: string; spread: string[] },
  rounds: number,
): Promise<Burst[]> {
  const bursts: Burst[] = [];
  for (const callers of counts) {
    const who = accounts.slice(0, callers);
    const authorsOf = {
      hot: who.map(() => authors.hot),
      spread: who.map((_, i) => authors.spread[i]),
    };
    for (const door of burstDoors) {
      const sender = await senderThrough(stack, door, who);
      try {
        const tallies = { hot: newTally(), spread: newTally() };
        // A first round of each warms every session up and is not counted.
        for (let round = 0; round <= rounds; round++) {
          for (const target of hotAndSpread) {
            await burst(root, sender, authorsOf[target], round === 0 ? newTally() : tallies[target]);
          }
        }
        for (const target of hotAndSpread) {
          bursts.push({ callers, target, door, ...figures(tallies[target]) });
        }
      } finally {
        await sender.close();
      }
    }
  }
  return bursts;
}

/** What a target's counted bursts add up to. */
interface Tally {
  /** Each report's ms. */
  times: number[];
  /** Postgres's CPU seconds over the bursts. */
  spent: number;
  /** The bursts' ms, end to end. */
  took: number;
  refused: number;
}

const newTally = (): Tally => ({ times: [], spent: 0, took: 0, refused: 0 });

/** One burst: every caller reports a new post of its author at the same instant; added to `tally`. */
async function burst(root: postgres.Sql, sender: Sender, authors: string[], tally: Tally) {
  const posts = await newPosts(root, authors);
  const before = cpuByProcess('postgres');
  const started = performance.now();
  const answers = await Promise.all(posts.map((post, i) => sender.send(i, post)));
  tally.took += performance.now() - started;
  for (const [pid, cpu] of cpuByProcess('postgres')) tally.spent += cpu - (before.get(pid) ?? 0);
  for (const answer of answers) answer === undefined ? tally.refused++ : tally.times.push(answer);
}

function figures({ times, spent, took, refused }: Tally) {
  const filed = times.length;
  const load: Load = {
    perSecond: filed / (took / 1000),
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    failed: refused ? `${refused} refused` : undefined,
  };
  return { load, cpuPerWrite: (spent * 1e6) / filed };
}

/** A new public post by each author, in order (an author may be listed more than once). */
async function newPosts(root: postgres.Sql, authors: string[]): Promise<string[]> {
  const rows = await root`
    insert into public.posts (author_id, body)
    select a.id, 'a day to report' from unnest(${authors}::uuid[]) with ordinality a(id, n) order by a.n
    returning id, author_id`;
  return authors.map((author) => {
    const i = rows.findIndex((r) => r.author_id === author);
    return rows.splice(i, 1)[0].id;
  });
}

async function senderThrough(stack: Stack, door: BurstDoor, who: Driver[]): Promise<Sender> {
  if (door === 'SQL') {
    const sql = postgres(roleUrl(stack.superuserUrl, 'authenticator'), { max: who.length, onnotice: () => {} });
    const sessions = await Promise.all(who.map(() => sql.reserve()));
    return {
      send: async (i, post) => {
        const started = performance.now();
        try {
          await sessions[i].unsafe(
            `begin; ${identitySql(who[i].identity)}; select public.report_post('${post}', 'spam'); commit`,
          );
          return performance.now() - started;
        } catch {
          await sessions[i].unsafe('rollback');
          return undefined;
        }
      },
      close: async () => {
        for (const session of sessions) session.release();
        await sql.end();
      },
    };
  }
  const viaFacade = door === 'facade';
  return {
    send: async (i, post) => {
      const started = performance.now();
      const response = await fetch(
        viaFacade ? `${stack.urls.functions}/api/post/${post}/report` : `${stack.urls.rest}/rpc/report_post`,
        {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${who[i].accessToken}`,
            'Content-Type': 'application/json',
            ...(viaFacade ? {} : { apikey: stack.keys.anonKey }),
          },
          body: JSON.stringify(viaFacade ? { reason: 'spam' } : { p_post_id: post, p_reason: 'spam' }),
        },
      );
      await response.arrayBuffer();
      return response.ok ? performance.now() - started : undefined;
    },
    close: () => Promise.resolve(),
  };
}
