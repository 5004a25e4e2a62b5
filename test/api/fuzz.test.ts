// A seeded fuzz of every operation of the OpenAPI document the running facade serves: for each, a fixed number of
// requests with hostile path parameters, query strings, bodies, content types, headers and tokens (see
// test/helpers/fuzz.ts), anonymous, signed in as a real user, and with tokens the facade must refuse. Every answer
// must come within the deadline, be below 500, and every 4xx must be the JSON error envelope.
// FUZZ_SEED=<n> reproduces a run (the default is fixed); FUZZ_REQUESTS=<n> sets the requests per operation.
import { decodeJwt, generateKeyPair, importJWK, SignJWT } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { type Account, createAccount, makeAdmin } from '../helpers/accounts.ts';
import { contractBreaches } from '../helpers/contract.ts';
import { rpc } from '../helpers/db.ts';
import {
  describeRequest,
  type FuzzRequest,
  generate,
  hash,
  type Identity,
  type Operation,
  operationsOf,
  random,
  type World,
} from '../helpers/fuzz.ts';
import { api } from '../helpers/http.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';
import { authClient, defaultPassword } from '../helpers/users.ts';

const seedText = process.env.FUZZ_SEED || '14';
const seed = /^\d+$/.test(seedText) ? Number(seedText) >>> 0 : hash(seedText);
const requestsPerOperation = Number(process.env.FUZZ_REQUESTS || 40);
const deadlineMs = 15_000;
const concurrency = 4;
/** The identities of requests 0, 1, 2… in turn: as many signed in as anonymous, and every fifth a refused token. */
const identities: Identity[] = ['signed-in', 'anonymous', 'signed-in', 'anonymous', 'hostile token'];

// The document's paths start with the function's name (/api/…), under the function's base URL.
const functionsBase = stack.functionsUrl.replace(/\/api$/, '');
const served = (await api('GET', '/openapi.json')).body;
const operations = operationsOf(served);

/** The codes the document lists for this operation's answers of `status` (none listed: undefined). */
function documentedCodes(operation: Operation, status: number): string[] | undefined {
  const answer = served.paths[operation.path]?.[operation.method.toLowerCase()]?.responses?.[String(status)];
  const ref: string | undefined = answer?.content?.['application/json']?.schema?.$ref;
  return ref
    ? served.components.schemas[ref.replace('#/components/schemas/', '')]?.properties?.error?.properties?.code?.enum
    : undefined;
}

/** A signed-in user of its own for one operation, private, with a pending follow request from `target`, and
 * around it the things path parameters can name: a public post of `target` with a comment and a reply, a post of
 * the user's own, the user's report of the first. An admin for the admin operations. */
async function arrange(operation: Operation): Promise<{ actor: Account; world: World }> {
  const [actor, target] = await Promise.all([createAccount('fuzz', { isPrivate: true }), createAccount('fuzz_target')]);
  if (operation.path.startsWith('/api/admin/')) await makeAdmin(actor);
  const [targetPost, actorPost] = await Promise.all([
    rpc(target, 'create_post', { p_body: 'a post to fuzz around', p_privacy: 'public' }),
    rpc(actor, 'create_post', { p_body: 'a post of my own' }),
    rpc(target, 'follow', { p_username: actor.username }),
  ]);
  const comment = await rpc(target, 'comment_post', { p_post_id: targetPost.id, p_body: 'a comment' });
  const [reply, report] = await Promise.all([
    rpc(actor, 'reply_comment', { p_comment_id: comment.id, p_body: 'a reply' }),
    rpc(actor, 'report_post', { p_post_id: targetPost.id, p_reason: 'fuzz' }),
  ]);
  return {
    actor,
    world: {
      known: {
        username: [target.username, actor.username],
        postId: [targetPost.id, actorPost.id],
        commentId: [comment.id, reply.id],
        reportId: [report.id],
        elementId: [target.id, targetPost.id],
        email: [actor.email, target.email],
        login: [actor.username, actor.email],
      },
      hostileAuthorizations: await forgedAuthorizations(actor),
    },
  };
}

const arrangements = new Map<number, ReturnType<typeof arrange>>();

/** The arrangement of operation `index`, made once. */
function arranged(index: number): ReturnType<typeof arrange> {
  if (!arrangements.has(index)) arrangements.set(index, arrange(operations[index]));
  return arrangements.get(index)!;
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Tokens near the actor's real one that the facade must refuse: other keys and algorithms, tampered, or signed
 * with the stack's real key but with claims no session of Auth has. */
async function forgedAuthorizations(actor: Account): Promise<string[]> {
  const { key_ops: _ops, use: _use, ...privateJwk } = stack.signingKey;
  const realKey = await importJWK(privateJwk, 'ES256');
  const { privateKey: otherKey } = await generateKeyPair('ES256');
  const honest = decodeJwt(actor.accessToken);
  const [head, payload, signature] = actor.accessToken.split('.');
  const now = Math.floor(Date.now() / 1000);
  const sign = (claims: Record<string, unknown>, key: Parameters<SignJWT['sign']>[0] = realKey, alg = 'ES256') =>
    new SignJWT({ ...honest, ...claims }).setProtectedHeader({
      alg,
      ...(key === realKey && { kid: stack.signingKey.kid }),
      typ: 'JWT',
    }).sign(key);
  const tokens = [
    await sign({}, otherKey),
    `${base64url({ alg: 'none', typ: 'JWT' })}.${payload}.`,
    `${base64url({ ...JSON.parse(Buffer.from(head, 'base64url').toString()), alg: 'HS256' })}.${payload}.${signature}`,
    await sign({}, new TextEncoder().encode(stack.anonKey), 'HS256'),
    await sign({}, new TextEncoder().encode('super-secret-jwt-token-with-at-least-32-characters-long'), 'HS256'),
    `${head}.${base64url({ ...honest, role: 'service_role' })}.${signature}`,
    `${head}.${payload}.${signature.slice(0, -4)}`,
    await sign({ exp: now - 60 }),
    await sign({ nbf: now + 3_600 }),
    await sign({ sub: crypto.randomUUID(), session_id: crypto.randomUUID() }),
    await sign({ session_id: crypto.randomUUID() }),
    await sign({ session_id: 'not-a-uuid' }),
    await sign({ sub: 'not-a-uuid' }),
    await sign({ sub: 12345 }),
    await sign({ sub: '' }),
    await sign({ sub: 'x'.repeat(3_000) }),
    await sign({ sub: String(honest.sub).toUpperCase() }),
    await sign({ role: 'service_role' }),
    await sign({ role: 'anon' }),
    await sign({ role: 'postgres' }),
    await sign({ aud: 'someone-else' }),
    await sign({ iss: 'https://elsewhere.example/auth/v1' }),
    await sign({ exp: 1e20 }),
    await sign({ is_anonymous: true, app_metadata: { role: 'admin' }, user_metadata: { is_admin: true } }),
  ];
  return tokens.map((token) => `Bearer ${token}`);
}

type Outcome =
  | { status: number; contentType: string; text: string; headers: Headers; ms: number }
  | { failed: string; ms: number };

async function send(request: FuzzRequest, headers: Record<string, string>): Promise<Outcome> {
  const started = Date.now();
  try {
    const response = await fetch(`${functionsBase}${request.target}`, {
      method: request.method,
      headers,
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(deadlineMs),
    });
    const text = await response.text();
    return {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      text,
      headers: response.headers,
      ms: Date.now() - started,
    };
  } catch (error) {
    const { name, message, cause } = error as Error & { cause?: { code?: string; message?: string } };
    const failed = name === 'TimeoutError'
      ? `no answer within ${deadlineMs / 1000} s`
      : `no answer: ${name}: ${message}${cause ? ` (${cause.code ?? cause.message})` : ''}`;
    return { failed, ms: Date.now() - started };
  }
}

/**
 * What is wrong with an answer, if anything: a 5xx, no answer, a 4xx code off the document, or an answer the
 * document does not describe (helpers/contract.ts, as for every answer of `api()`).
 */
async function problemWith(outcome: Outcome, operation: Operation, request: FuzzRequest): Promise<string | undefined> {
  const problem = envelopeProblem(outcome, operation);
  if (problem || 'failed' in outcome) return problem;
  let body: unknown;
  try {
    body = outcome.text ? JSON.parse(outcome.text) : undefined;
  } catch {
    return undefined; // not JSON: a 2xx or 3xx that is not (the 302 to Google), checked below as no body
  }
  // The path as sent: fetch resolves dot segments (`/post/comment/../reply` is `/post/reply`).
  const sent = new URL(`${functionsBase}${request.target}`);
  const breaches = await contractBreaches(
    request.method,
    sent.pathname.replace(/^.*?\/api(?=\/)/, '') + sent.search,
    outcome.status,
    body,
    outcome.headers,
  );
  return breaches.length ? `answered what its document does not say: ${breaches.join('; ')}` : undefined;
}

/** What is wrong with an answer, if anything: a 5xx, no answer, or a 4xx code off the document. */
function envelopeProblem(outcome: Outcome, operation: Operation): string | undefined {
  if ('failed' in outcome) return outcome.failed;
  if (outcome.status >= 500) return `answered ${outcome.status}`;
  if (outcome.status < 400) return undefined;
  if (!outcome.contentType.includes('application/json')) {
    return `answered ${outcome.status} as ${outcome.contentType || 'no content type'}, not JSON`;
  }
  let body: { error?: { code?: unknown; message?: unknown } } | undefined;
  try {
    body = JSON.parse(outcome.text);
  } catch {
    return `answered ${outcome.status} with a body that is not JSON`;
  }
  if (typeof body?.error?.code !== 'string' || typeof body.error.message !== 'string') {
    return `answered ${outcome.status} without the error envelope { error: { code, message } }`;
  }
  // A status the operation's document lists must carry one of the codes listed for it. (A mutated request can
  // meet another operation, or a body limit an operation without a body does not list: its status is not checked.)
  const codes = documentedCodes(operation, outcome.status);
  if (codes && !codes.includes(body.error.code)) {
    return `answered ${outcome.status} ${body.error.code}, a code its document does not list for it`;
  }
  return undefined;
}

/** Runs `work` on every item, `workers` at a time. */
async function inParallel<T>(items: T[], workers: number, work: (item: T, index: number) => Promise<void>) {
  let next = 0;
  await Promise.all(Array.from({ length: workers }, async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index], index);
    }
  }));
}

const statuses = new Map<string, number>();
let sent = 0;
const startedAt = Date.now();

describe.skipIf(!authIsRunning)(`fuzz: every operation of the OpenAPI document (FUZZ_SEED=${seedText})`, () => {
  afterAll(() => {
    const tally = [...statuses].sort().map(([status, count]) => `${status}×${count}`).join(' ');
    console.log(
      `fuzz: ${sent} requests to ${operations.length} operations in ${
        ((Date.now() - startedAt) / 1000).toFixed(1)
      } s, FUZZ_SEED=${seedText}: ${tally}`,
    );
  });

  it('finds the operations in the document, and makes the same requests from the same seed', () => {
    expect(operations.length).toBeGreaterThan(50);
    const world: World = {
      known: { username: ['someone'], postId: [crypto.randomUUID()] },
      hostileAuthorizations: ['Bearer x.y.z'],
    };
    const run = (from: number) => {
      const rng = random(from);
      return operations.flatMap((operation) =>
        [0, 1, 2, 3, 4].map((i) => generate(rng, operation, world, identities[i]))
      );
    };
    expect(run(seed)).toEqual(run(seed));
    expect(run(seed)).not.toEqual(run(seed + 1));
  });

  for (const [position, operation] of operations.entries()) {
    it(operation.name, async () => {
      const { actor, world } = await arranged(position);
      // The next operation's accounts are made while this one's requests run.
      if (position + 1 < operations.length) arranged(position + 1).catch(() => undefined);
      const rng = random(hash(`${seed}:${operation.name}`));
      const requests = Array.from(
        { length: requestsPerOperation },
        (_, i) => generate(rng, operation, world, identities[i % identities.length]),
      );
      const failures: string[] = [];
      await inParallel(requests, concurrency, async (request, index) => {
        const headers = { ...request.headers };
        if (request.identity === 'signed-in') headers.Authorization = `Bearer ${actor.accessToken}`;
        const outcome = await send(request, headers);
        sent += 1;
        const key = 'failed' in outcome ? 'none' : String(outcome.status);
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
        const problem = await problemWith(outcome, operation, request);
        if (problem) {
          const shown = request.identity === 'signed-in'
            ? { ...headers, Authorization: `Bearer <access token of ${actor.username}>` }
            : headers;
          failures.push([
            `${operation.name}: ${problem} after ${outcome.ms} ms (request ${
              index + 1
            } of ${requests.length}, ${request.identity}; ${request.mutations.join('; ')})`,
            `reproduce: FUZZ_SEED=${seedText} npm test -- test/api/fuzz.test.ts -t '${operation.name}'`,
            describeRequest(request, shown),
            'status' in outcome
              ? `response: ${outcome.status} ${outcome.contentType} ${outcome.text.slice(0, 500)}`
              : '',
          ].join('\n'));
        }
        // Signing out ends the session the next requests carry: sign in again.
        if (
          operation.name === 'POST /api/auth/logout' && request.identity === 'signed-in' && 'status' in outcome &&
          outcome.status === 200
        ) {
          const signedIn = await authClient().signInWithPassword({ email: actor.email, password: defaultPassword });
          if (signedIn.data.session) actor.accessToken = signedIn.data.session.access_token;
        }
      });
      expect(failures.length, `\n${failures.join('\n\n')}\n`).toBe(0);
    }, 120_000);
  }
});
