// The facade's own share of a request: each read through the gateway (wrk) beside pgbench sending the very
// text the facade sends for it, as one message (the request quota, the role's settings, role and claims, the
// session check and the statement, joined with pgbench's `\;`), at 8 and 64 connections, and the same text
// without the request quota (what the request limits cost a read). The text comes from the facade's own code
// (functions/api/lib/db.ts `identity`, lib/request-quota.ts), with the role settings read as the facade reads them. Then the
// same reads straight to the function's port (no gateway hop), pgbench through the pooler as the facade reaches
// the database, and a request that reaches no database (the token check and routing alone), which tell where
// the rest of a request's time goes; the CPU time each process spends per request; and, at 8 connections, the
// facade and pgbench again with Postgres on a core of its own (bench/cpu.ts).
import type postgres from 'postgres';
import { type Database, identity } from '../../functions/api/lib/db.ts';
import { createRequestCounter } from '../../functions/api/lib/request-counter.ts';
import { takeQuota } from '../../functions/api/lib/request-quota.ts';
import { createRoleSettings } from '../../functions/api/lib/role-settings.ts';
import { type CpuTime, onCoresApart, withCpuTime } from './cpu.ts';
import type { Driver } from './drivers.ts';
import type { Endpoint } from './endpoints.ts';
import type { Load } from './load.ts';
import { runPgbench } from './pgbench.ts';
import { runWrk } from './wrk.ts';

export const facadeConnections = [8, 64] as const;

export interface FacadeCostRow {
  name: string;
  connections: number;
  facade: Load;
  straight: Load;
  sql: Load;
  /** The same text through the pooler, the facade's way to the database (absent: the stack runs none). */
  sqlThroughPooler?: Load;
  /** The same text without the request quota. */
  sqlWithoutQuota: Load;
  /** CPU seconds the facade's run (through the gateway) and pgbench's run cost each process. */
  facadeCpu: CpuTime;
  sqlCpu: CpuTime;
  /** Both again with Postgres alone on a core (8 connections; absent on one core). */
  apart?: { facade: Load; sql: Load };
}

export interface FacadeCostResult {
  rows: FacadeCostRow[];
  /** A request answered 400 before any database work (GET /post/<malformed id>: the token check, routing,
   * validation), through the gateway and straight to the function. */
  noDatabase: Array<{ connections: number; load: Load; straight: Load }>;
  /** One of the texts, as pgbench sent it. */
  sample: string;
  /** The length of each run. */
  seconds: number;
}

export interface FacadeCostContext {
  functionsUrl: string;
  functionsDirectUrl: string;
  authenticatorUrl: string;
  /** The pooler as `authenticator`, as the facade reaches the database (absent: the stack runs none). */
  poolerUrl?: string;
  authenticator: postgres.Sql;
  reader: Driver;
  pgbench: string;
  scratch: string;
  seconds: number;
}

/**
 * The facade's text for `statement` (as routes/ build it: `select public.fn(...) as result`) as the reader
 * through the gateway, with and without the request quota the facade takes first.
 */
async function facadeTexts(
  c: FacadeCostContext,
  statement: string,
): Promise<{ withQuota: string; withoutQuota: string }> {
  const db = {
    roleSettings: createRoleSettings(c.authenticator),
    replicas: { configured: false },
  } as unknown as Database;
  const claims = c.reader.identity.claims;
  const caller = {
    role: 'authenticated',
    userId: String(claims.sub),
    sessionId: String(claims.session_id),
    claims,
  } as Parameters<typeof identity>[1];
  const preamble = await identity(db, caller, { checkSession: true, countWrite: false });
  const withoutQuota = `${preamble.text} ${statement} as result`;
  return {
    // A counter that knows no key takes the quota in the database, as a key's first request in a window does.
    withQuota: `${
      takeQuota(
        { address: '127.0.0.1', counter: createRequestCounter(() => Promise.resolve([])), taken: false },
        caller,
      )
        .text
    } ${withoutQuota}`,
    withoutQuota,
  };
}

/** pgbench's script: the whole text as one command, its statements joined by `\;` (one simple-query message). */
export function oneMessage(text: string): string {
  return text.replace(/;\s*(?=(?:select|commit)\b)/g, '\\; ');
}

export async function measureFacadeCost(c: FacadeCostContext, reads: Endpoint[]): Promise<FacadeCostResult> {
  const rows: FacadeCostRow[] = [];
  let sample = '';
  const http = (url: string, connections: number, errorsAreAnswers = false) =>
    runWrk(
      { url, method: 'GET', tokens: [c.reader.accessToken], connections, seconds: c.seconds, errorsAreAnswers },
      c.scratch,
    );
  const pgbench = (text: string, connections: number, url = c.authenticatorUrl) =>
    runPgbench(
      { url, sql: text, identities: [], clients: connections, seconds: c.seconds, raw: true },
      c.pgbench,
      c.scratch,
    );
  // Unmeasured first: the function opens its pool's connections and compiles its hot paths on its first
  // requests, which would otherwise be the tail of the first run measured here (the bench has not called it yet).
  await http(`${c.functionsUrl}/api${reads[0].path}`, 64);
  for (const read of reads) {
    const texts = await facadeTexts(c, read.sql);
    const [withQuota, withoutQuota] = [oneMessage(texts.withQuota), oneMessage(texts.withoutQuota)];
    sample ||= withQuota;
    const url = `${c.functionsUrl}/api${read.path}`;
    for (const connections of facadeConnections) {
      const { value: facade, cpu: facadeCpu } = await withCpuTime(() => http(url, connections));
      const straight = await http(`${c.functionsDirectUrl}/api${read.path}`, connections);
      const { value: sql, cpu: sqlCpu } = await withCpuTime(() => pgbench(withQuota, connections));
      const sqlThroughPooler = c.poolerUrl ? await pgbench(withQuota, connections, c.poolerUrl) : undefined;
      const sqlWithoutQuota = await pgbench(withoutQuota, connections);
      const apart = connections !== 8 ? undefined : await onCoresApart(async () => ({
        facade: await http(url, connections),
        sql: await pgbench(withQuota, connections),
      }));
      rows.push({
        name: read.name,
        connections,
        facade,
        straight,
        sql,
        sqlThroughPooler,
        sqlWithoutQuota,
        facadeCpu,
        sqlCpu,
        apart,
      });
    }
  }
  const noDatabase = [];
  for (const connections of facadeConnections) {
    noDatabase.push({
      connections,
      load: await http(`${c.functionsUrl}/api/post/not-an-id`, connections, true),
      straight: await http(`${c.functionsDirectUrl}/api/post/not-an-id`, connections, true),
    });
  }
  return { rows, noDatabase, sample, seconds: c.seconds };
}
