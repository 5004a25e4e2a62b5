// Requests for the fuzz test (test/api/fuzz.test.ts), made from one operation of the OpenAPI document and a
// seeded PRNG: hostile path parameters, query strings, bodies, content types, headers and tokens, mixed with
// plausible values (real usernames and ids from a `World`) so that many requests get past validation into the
// handlers. The same seed, operation and world sizes give the same requests.

/** mulberry32: a tiny PRNG, the same sequence for the same 32-bit seed everywhere. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a: a 32-bit seed from any text (the run's seed and an operation's name). */
export function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export type Random = ReturnType<typeof random>;

export function random(seed: number) {
  const next = mulberry32(seed);
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)];
  const chance = (p: number) => next() < p;
  const string = (length: number, alphabet: string) => {
    const chars = [...alphabet];
    return Array.from({ length }, () => pick(chars)).join('');
  };
  const hex = (length: number) => string(length, '0123456789abcdef');
  const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-${pick(['8', '9', 'a', 'b'])}${hex(3)}-${hex(12)}`;
  return { next, int, pick, chance, string, hex, uuid };
}

/** The part of JSON Schema the facade's document uses. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  anyOf?: Schema[];
  oneOf?: Schema[];
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: Schema;
}

export interface Operation {
  /** 'POST /api/post/{postId}/like', as the document names it. */
  name: string;
  method: string;
  path: string;
  parameters: Parameter[];
  body?: { required: boolean; schema: Schema };
}

interface OpenApiDocument {
  paths: Record<
    string,
    Record<string, {
      parameters?: (Parameter & { $ref?: string })[];
      requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
    }>
  >;
  components?: { schemas?: Record<string, Schema> };
}

/** Every operation of the document, its schemas' `$ref`s resolved. */
export function operationsOf(document: OpenApiDocument): Operation[] {
  const resolve = (schema: Schema): Schema => {
    if (schema.$ref) {
      const name = schema.$ref.replace('#/components/schemas/', '');
      const target = document.components?.schemas?.[name];
      if (!target) throw new Error(`unresolved ${schema.$ref}`);
      return resolve(target);
    }
    return {
      ...schema,
      ...(schema.properties && {
        properties: Object.fromEntries(Object.entries(schema.properties).map(([key, value]) => [key, resolve(value)])),
      }),
      ...(schema.items && { items: resolve(schema.items) }),
      ...(schema.anyOf && { anyOf: schema.anyOf.map(resolve) }),
      ...(schema.oneOf && { oneOf: schema.oneOf.map(resolve) }),
    };
  };
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => {
      const json = operation.requestBody?.content?.['application/json']?.schema;
      return {
        name: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        parameters: (operation.parameters ?? []).map((parameter) => ({
          name: parameter.name,
          in: parameter.in,
          required: parameter.required ?? parameter.in === 'path',
          schema: resolve(parameter.schema ?? {}),
        })),
        ...(json && { body: { required: operation.requestBody?.required ?? false, schema: resolve(json) } }),
      };
    })
  );
}

/**
 * Values that exist in the database, by parameter or field name (username, postId, commentId, reportId,
 * elementId, email), and the hostile Authorization headers made for this world's user.
 */
export interface World {
  known: Record<string, string[]>;
  hostileAuthorizations: string[];
}

export type Identity = 'anonymous' | 'signed-in' | 'hostile token';

export interface FuzzRequest {
  method: string;
  /** The documented path with its parameters filled in, and the query string: what follows the base URL. */
  target: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  identity: Identity;
  /** What this request makes hostile, for the failure message. */
  mutations: string[];
}

// ---------------------------------------------------------------------------------------------------------
// Plausible values

const letters = 'abcdefghijklmnopqrstuvwxyz';
const usernameChars = `${letters}0123456789._`;
/** Text with a little of everything a person may type: accents, CJK, emoji, RTL, combining marks. */
const textChars = `${letters}ABC 0123456789.,!?'"-_/\\éüñ中文字😀👍🏽ا ب ג a\u0301`;

function plausibleString(rng: Random, name: string, schema: Schema, world: World): string {
  const known = world.known[name];
  if (known?.length && rng.chance(0.7)) return rng.pick(known);
  if (schema.format === 'uuid') return rng.uuid();
  if (schema.format === 'email') return `fuzz.${rng.hex(10)}@example.test`;
  if (schema.format === 'date') {
    return `${rng.int(1999, 2031)}-${String(rng.int(1, 12)).padStart(2, '0')}-${
      String(rng.int(1, 28)).padStart(2, '0')
    }`;
  }
  if (schema.format === 'uri') {
    return rng.pick([
      'http://127.0.0.1:3000',
      'http://127.0.0.1:3000/auth/callback',
      'https://example.com/callback',
      'http://127.0.0.1:3000/auth/callback?x=1',
    ]);
  }
  if (schema.pattern === '^\\d{6}$') return rng.string(6, '0123456789');
  if (schema.pattern === '^[a-z0-9._]{3,30}$') return `fz${rng.string(rng.int(1, 20), usernameChars)}`;
  if (schema.pattern?.startsWith('^[A-Za-z0-9]')) return `${rng.uuid()}/${rng.string(rng.int(1, 12), letters)}.png`;
  if (name === 'cursor') {
    return cursor(rng, `${rng.int(946_684_800, 1_956_528_000)}${rng.string(6, '0123456789')}.${rng.uuid()}`);
  }
  if (name === 'password' || name === 'current_password') return rng.string(rng.int(8, 40), `${letters}0123456789 !#`);
  if (name === 'time_zone') {
    return rng.pick(['UTC', 'Europe/Paris', 'America/New_York', 'Asia/Kathmandu', 'Mars/Olympus', 'Etc/GMT+14']);
  }
  const min = schema.minLength ?? 0;
  const max = Math.min(schema.maxLength ?? 60, 60);
  return rng.string(rng.int(Math.max(min, 1), Math.max(min, max)), textChars);
}

function typeOf(rng: Random, schema: Schema): string | undefined {
  if (Array.isArray(schema.type)) return rng.pick(schema.type);
  if (schema.type) return schema.type;
  if (schema.properties) return 'object';
  return undefined;
}

/** A value the schema accepts, or nearly (patterns are honoured only for the fields the facade has). */
export function plausible(rng: Random, schema: Schema, world: World, name = ''): unknown {
  if (schema.enum) return rng.pick(schema.enum);
  if (schema.const !== undefined) return schema.const;
  const options = schema.anyOf ?? schema.oneOf;
  if (options) return plausible(rng, rng.pick(options), world, name);
  switch (typeOf(rng, schema)) {
    case 'null':
      return null;
    case 'boolean':
      return rng.chance(0.5);
    case 'integer':
    case 'number':
      return rng.int(schema.minimum ?? 0, schema.maximum ?? 1000);
    case 'array':
      return Array.from(
        { length: rng.int(0, Math.min(schema.maxItems ?? 3, 3)) },
        () => plausible(rng, schema.items ?? {}, world, name),
      );
    case 'object': {
      const required = new Set(schema.required ?? []);
      return Object.fromEntries(
        Object.entries(schema.properties ?? {})
          .filter(([key]) => required.has(key) || rng.chance(0.5))
          .map(([key, value]) => [key, plausible(rng, value, world, key)]),
      );
    }
    default:
      return plausibleString(rng, name, schema, world);
  }
}

/** A page cursor as the API makes them (base64url of "<microseconds>.<uuid>"), around any text. */
function cursor(rng: Random, text: string | Uint8Array): string {
  return Buffer.from(text).toString(rng.chance(0.8) ? 'base64url' : 'base64');
}

// ---------------------------------------------------------------------------------------------------------
// Hostile values

/** Cursors in the API's own format whose content is wrong: out of range, not numbers, not UTF-8. */
function hostileCursor(rng: Random): string {
  const id = rng.uuid();
  return cursor(
    rng,
    rng.pick<() => string | Uint8Array>([
      () => `-9223372036854775808.${id}`,
      () => `9223372036854775807.${id}`,
      () => `99999999999999999999999.${id}`,
      () => `-1.${id}`,
      () => `1.5.${id}`,
      () => `1700000000000000.${id}x`,
      () => `1700000000000000.${id.toUpperCase()}`,
      () => `1700000000000000`,
      () => `.${id}`,
      () => '.',
      () => `NaN.${id}`,
      () => `1e30.${id}`,
      () => `1700000000000000.${id}\u0000`,
      () => `${'9'.repeat(120)}.${id}`,
      () => new Uint8Array([0xff, 0xfe, 0x2e, 0x00]),
    ])(),
  );
}

/** Path parameters as they go on the wire (already percent-encoded where they are). */
function hostilePathValue(rng: Random, name: string, world: World): string {
  const known = world.known[name]?.[0] ?? 'someone';
  return rng.pick([
    () => 'not-a-uuid',
    () => '',
    () => '%00',
    () => `${known}%00`,
    () => '..',
    () => '%2e%2e',
    () => '..%2F..%2Fhealth',
    () => '%2F',
    () => '%',
    () => '%zz',
    () => '%FF%FE',
    () => '%C0%AE',
    () => encodeURIComponent('ünïcödé😀'),
    () => encodeURIComponent('\u202Eevil'),
    () => encodeURIComponent(' ' + known + ' '),
    () => encodeURIComponent(known.toUpperCase()),
    () => encodeURIComponent(`{${known}}`),
    () => `${known}x`,
    () => 'a'.repeat(rng.pick([31, 300, 4_000])),
    () => '9'.repeat(rng.pick([20, 400])),
    () => '-1',
    () => '0',
    () => '1e309',
    () => '00000000-0000-0000-0000-000000000000',
    () => 'ffffffff-ffff-ffff-ffff-ffffffffffff',
    () => rng.uuid().replace(/-/g, ''),
    () => encodeURIComponent("' or 1=1 --"),
    () => encodeURIComponent('"; drop table posts; --'),
    () => '__proto__',
    () => 'constructor',
    () => rng.pick(['admin', 'api', 'docs', 'health', 'openapi.json', 'auth', 'post', 'user']),
    () => '%0d%0aX-Injected:%201',
    () => encodeURIComponent(rng.string(rng.int(1, 40), textChars)),
  ])();
}

const hostileQueryValues = [
  '',
  '-1',
  '0',
  '1.5',
  '101',
  '1e3',
  '1e309',
  'NaN',
  'Infinity',
  '-Infinity',
  '0x10',
  '99999999999999999999999',
  'true',
  'null',
  'undefined',
  '[]',
  '{}',
  '%00',
  'a%00b',
  '%',
  '%zz',
  '%FF',
  encodeURIComponent('😀'),
  '2026-02-30',
  '2026-13-01',
  '0000-01-01',
  '99999-01-01',
  '-2026-01-01',
  '2026-1-1',
  '2026-01-01T00:00:00Z',
  encodeURIComponent("' or 1=1 --"),
  'javascript:alert(1)',
  'http://evil.example/auth/callback',
  '//evil.example',
  'http://127.0.0.1:3000@evil.example/',
  'data:text/html,x',
  'comment',
  'USER',
];

/** A value of the wrong JSON type (or a right type with a hostile content) for a property. */
function wrongValue(rng: Random): unknown {
  return rng.pick<() => unknown>([
    () => null,
    () => true,
    () => 0,
    () => -1,
    () => 1.5,
    () => 1e308,
    () => -1e308,
    () => Number.MAX_SAFE_INTEGER + 2,
    () => '',
    () => ' '.repeat(rng.int(1, 40)),
    () => 'string',
    () => '\u0000',
    () => 'nul\u0000in the middle',
    () => '\ud800',
    () => '\u202Eevil',
    () => '<script>alert(1)</script>',
    () => "' or 1=1 --",
    () => '${jndi:ldap://x}',
    () => [],
    () => [1, 'two', null],
    () => {},
    () => ({ $gt: '' }),
    () => ({ nested: { deeper: [true] } }),
    () => 'x'.repeat(rng.pick([1_001, 5_000])),
  ])();
}

/** JSON texts no JSON parser accepts (or only a lax one), and bytes that are not UTF-8. */
function malformedBody(rng: Random, valid: string): string | Uint8Array {
  return rng.pick<() => string | Uint8Array>([
    () => '',
    () => '{',
    () => '}',
    () => '{"',
    () => '{"a":}',
    () => '{"a":1,}',
    () => "{'a': 1}",
    () => 'NaN',
    () => 'undefined',
    () => '{"a":1}garbage',
    () => `${valid}${valid}`,
    () => '\ufeff' + valid,
    () => '{"a":"\\x00"}',
    () => '{"a":"\\u12"}',
    () => '{"a":"\\ud800"}',
    () => '{"a":1e999}',
    () => '{"a":-}',
    () => '[',
    () => 'nul',
    () => valid.slice(0, rng.int(0, Math.max(0, valid.length - 1))),
    () => valid.replace(/"/, "'"),
    () => new Uint8Array([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00]),
    () => new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
    () => new TextEncoder().encode(valid).map((byte, i) => (i % 7 === 3 ? 0x80 : byte)),
    () => new Uint8Array(Array.from({ length: rng.int(1, 200) }, () => rng.int(0, 255))),
  ])();
}

/** JSON texts that parse, with something a JavaScript or Postgres consumer might trip on. */
function trickyJson(rng: Random, valid: Record<string, unknown>): string {
  const inner = JSON.stringify(valid).slice(1, -1);
  const sep = inner ? ',' : '';
  const key = Object.keys(valid)[0] ?? 'a';
  return rng.pick([
    () => `{"__proto__":{"admin":true,"role":"service_role"}${sep}${inner}}`,
    () => `{"constructor":{"prototype":{"admin":true}}${sep}${inner}}`,
    () => `{${inner}${sep}"${key}":"duplicate"}`,
    () => `{"${key}":12345678901234567890123456789${sep}${inner}}`,
    () => `{"${key}":-0${sep}${inner}}`,
    () => `{"${key}":1.0000000000000000001${sep}${inner}}`,
    () => `{${inner}${sep}"${key}\\u0000":1}`,
    () => `  \n\t{${inner}}\n  `,
  ])();
}

function deepValue(rng: Random): string {
  const depth = rng.pick([100, 1_000, 10_000, 30_000]);
  return rng.chance(0.5)
    ? `${'['.repeat(depth)}${']'.repeat(depth)}`
    : `${'{"a":'.repeat(Math.min(depth, 12_000))}1${'}'.repeat(Math.min(depth, 12_000))}`;
}

/** A JSON body of about `bytes` bytes: the valid body with one string grown (1 to 4 UTF-8 bytes a character). */
function hugeBody(rng: Random, valid: Record<string, unknown>, bytes: number): { text: string; note: string } {
  const key = rng.pick([...Object.keys(valid), 'padding']);
  const unit = rng.pick(['x', 'é', '中', '😀']);
  const unitBytes = new TextEncoder().encode(unit).length;
  const shell = JSON.stringify({ ...valid, [key]: '' });
  const count = Math.max(0, Math.floor((bytes - new TextEncoder().encode(shell).length) / unitBytes));
  return {
    text: JSON.stringify({ ...valid, [key]: unit.repeat(count) }),
    note: `"${key}" = ${count} × ${JSON.stringify(unit)}`,
  };
}

const contentTypes = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/jsonx',
  'application/vnd.api+json',
  'application/merge-patch+json',
  'application/json, text/plain',
  '',
  '*/*',
  'application/json; boundary=";"',
  'application/json;' + ';'.repeat(500),
];

function hostileHeaders(rng: Random): [Record<string, string>, string] {
  const headers = rng.pick<() => Record<string, string>>([
    () => ({ 'X-Fuzz': 'x'.repeat(rng.pick([1_000, 8_000])) }),
    () => ({ 'X-Forwarded-For': rng.pick(['garbage', '999.1.1.1', '127.0.0.1, ::1, not-an-ip', ', , ,']) }),
    () => ({ Accept: rng.pick(['application/xml', 'text/html', '*/*;q=garbage', '']) }),
    () => ({ 'Accept-Encoding': rng.pick(['gzip;q=garbage', 'br, zstd, compress, identity;q=0', 'x'.repeat(2_000)]) }),
    () => ({ 'Content-Encoding': rng.pick(['gzip', 'br', 'deflate', 'identity, gzip']) }),
    () => ({ apikey: rng.pick(['garbage', '', 'sb_secret_' + rng.hex(32)]) }),
    () => ({ Origin: rng.pick(['null', 'https://evil.example', 'x'.repeat(3_000)]) }),
    () => ({ Cookie: `session=${rng.hex(64)}; ${'a=b; '.repeat(200)}` }),
    () => ({ 'X-HTTP-Method-Override': rng.pick(['DELETE', 'PUT', 'PATCH']) }),
    () => ({ 'X-Request-Id': rng.pick(['../../etc/passwd', 'x'.repeat(5_000), '%00']) }),
    () => ({ 'X-Fuzz': 'Latin-1 bytes: \u00e9\u00ff\u0080\u00a0' }),
    () => ({ Range: 'bytes=0-1' }),
    () => ({ 'If-None-Match': '*' }),
    () => ({ 'Sb-Forwarded-For': '1.2.3.4' }),
  ])();
  return [headers, `headers ${JSON.stringify(headers).slice(0, 120)}`];
}

/** An Authorization header no valid session is behind: garbage, malformed, or a token the facade must refuse. */
function hostileAuthorization(rng: Random, world: World): string {
  if (world.hostileAuthorizations.length && rng.chance(0.5)) return rng.pick(world.hostileAuthorizations);
  const segment = () => rng.string(rng.int(0, 60), `${letters}ABCXYZ0123456789-_`);
  return rng.pick([
    () => 'Bearer',
    () => 'Bearer ',
    () => `Bearer ${segment()}`,
    () => `Bearer ${segment()}.${segment()}.${segment()}`,
    () => `Bearer ${segment()}.${segment()}.`,
    () => `bearer  ${segment()}.${segment()}.${segment()}`,
    () => `Bearer Bearer ${segment()}.${segment()}.${segment()}`,
    () => `Basic ${Buffer.from('user:pass').toString('base64')}`,
    () => `Token ${segment()}`,
    () => rng.string(rng.int(1, 80), `${letters} .=/+-_0123456789`),
    () => `Bearer ${'a'.repeat(rng.pick([2_000, 7_000]))}.${'b'.repeat(100)}.${'c'.repeat(100)}`,
    () =>
      `Bearer ${Buffer.from('{"alg":"none"}').toString('base64url')}.${
        Buffer.from('{"sub":"x"}').toString('base64url')
      }.`,
    () => `Bearer eyJ.eyJ.eyJ`,
    () => `Bearer caf\u00e9.\u00ff\u00fe.\u0080`,
    () => `Bearer ${segment()}.${segment()}.${segment()}, Bearer ${segment()}`,
  ])();
}

// ---------------------------------------------------------------------------------------------------------
// Requests

type Strategy =
  | 'valid'
  | 'path'
  | 'query'
  | 'unknown query'
  | 'malformed body'
  | 'tricky json'
  | 'wrong type'
  | 'huge body'
  | 'unknown fields'
  | 'deep nesting'
  | 'wrong shape'
  | 'content type'
  | 'headers'
  | 'other method';

function strategiesFor(operation: Operation): Strategy[] {
  const hasPath = operation.parameters.some((p) => p.in === 'path');
  const hasQuery = operation.parameters.some((p) => p.in === 'query');
  const sendsBody = operation.method !== 'GET';
  const list: Strategy[] = ['valid', 'valid', 'unknown query', 'headers', 'other method'];
  if (hasPath) list.push('path', 'path');
  if (hasQuery) list.push('query', 'query');
  if (sendsBody) {
    list.push(
      'malformed body',
      'tricky json',
      'huge body',
      'unknown fields',
      'deep nesting',
      'wrong shape',
      'content type',
    );
  }
  if (operation.body) list.push('wrong type', 'wrong type', 'unknown fields');
  return list;
}

/** The strategies that rewrite the body's text: one at most a request. */
const textStrategies: Strategy[] = ['malformed body', 'tricky json', 'deep nesting', 'wrong shape', 'huge body'];

const unknownFields = [
  '__proto__',
  'constructor',
  'prototype',
  'role',
  'id',
  'user_id',
  'is_admin',
  'banned',
  'author',
  '$where',
  'x'.repeat(300),
  '😀',
  '',
];

/** One request to `operation` as `identity`, every choice drawn from `rng`. */
export function generate(rng: Random, operation: Operation, world: World, identity: Identity): FuzzRequest {
  const mutations: string[] = [];
  const strategies = strategiesFor(operation);
  const chosen = new Set<Strategy>([rng.pick(strategies)]);
  if (rng.chance(0.3)) chosen.add(rng.pick(strategies));
  if (chosen.size > 1) chosen.delete('valid');

  // The path.
  const pathParameters = operation.parameters.filter((p) => p.in === 'path');
  const hostilePath = chosen.has('path') ? rng.pick(pathParameters) : undefined;
  let path = operation.path;
  for (const parameter of pathParameters) {
    let value: string;
    if (parameter === hostilePath) {
      value = hostilePathValue(rng, parameter.name, world);
      mutations.push(
        `path ${parameter.name} = ${
          value.length > 80 ? `${value.slice(0, 40)}… (${value.length} chars)` : JSON.stringify(value)
        }`,
      );
    } else {
      value = encodeURIComponent(String(plausible(rng, parameter.schema, world, parameter.name)));
    }
    path = path.replace(`{${parameter.name}}`, value);
  }

  // The query string.
  const query: string[] = [];
  const queryParameters = operation.parameters.filter((p) => p.in === 'query');
  const hostileQuery = chosen.has('query') ? rng.pick(queryParameters) : undefined;
  for (const parameter of queryParameters) {
    if (parameter === hostileQuery) {
      const value = parameter.name === 'cursor' && rng.chance(0.4)
        ? hostileCursor(rng)
        : rng.chance(0.15)
        ? 'x'.repeat(rng.pick([201, 2_000, 6_000]))
        : rng.pick(hostileQueryValues);
      const repeated = rng.chance(0.2);
      query.push(`${parameter.name}=${value}`);
      if (repeated) query.push(`${parameter.name}=${rng.pick(hostileQueryValues)}`);
      mutations.push(
        `query ${parameter.name}${repeated ? ' (repeated)' : ''} = ${
          value.length > 80 ? `${value.length} chars` : JSON.stringify(value)
        }`,
      );
    } else if (parameter.required || rng.chance(0.5)) {
      query.push(
        `${parameter.name}=${encodeURIComponent(String(plausible(rng, parameter.schema, world, parameter.name)))}`,
      );
    }
  }
  if (chosen.has('unknown query')) {
    const extra = rng.pick([
      '__proto__[admin]=true',
      'limit[]=1',
      'cursor[$gt]=',
      'select=*',
      'role=service_role',
      '&&&==',
      '%00=%00',
      `x=${'y'.repeat(3_000)}`,
    ]);
    query.push(extra);
    mutations.push(`query += ${extra.length > 80 ? `${extra.length} chars` : JSON.stringify(extra)}`);
  }

  // The method: another one than documented reaches another operation of the path, or none.
  let method = operation.method;
  if (chosen.has('other method')) {
    method = rng.pick(
      ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'FUZZ'].filter((m) => m !== operation.method),
    );
    mutations.push(`method ${method}`);
  }

  // The body (none with GET: fetch cannot send one).
  const headers: Record<string, string> = {};
  let body: string | Uint8Array | undefined;
  if (method !== 'GET') {
    // First the fields (wrong types, unknown ones), then at most one change of the text that carries them.
    let fields = (operation.body ? plausible(rng, operation.body.schema, world) : {}) as Record<string, unknown>;
    const sendFields = operation.body && (operation.body.required || rng.chance(0.7));
    if (chosen.has('wrong type')) {
      const keys = Object.keys(operation.body?.schema.properties ?? {});
      const key = keys.length ? rng.pick(keys) : 'a';
      const value = wrongValue(rng);
      fields = { ...fields, [key]: value };
      mutations.push(`"${key}" = ${JSON.stringify(value)?.slice(0, 60)}`);
    }
    if (chosen.has('unknown fields')) {
      const key = rng.pick(unknownFields);
      fields = { ...fields, [key]: wrongValue(rng) };
      mutations.push(`unknown field ${JSON.stringify(key.slice(0, 20))}`);
    }
    const json = JSON.stringify(fields);
    body = sendFields || chosen.has('wrong type') || chosen.has('unknown fields') ? json : undefined;
    const [text] = textStrategies.filter((strategy) => chosen.has(strategy));
    if (text === 'malformed body') {
      body = malformedBody(rng, json);
      mutations.push('malformed body');
    } else if (text === 'tricky json') {
      body = trickyJson(rng, fields);
      mutations.push('tricky JSON');
    } else if (text === 'deep nesting') {
      const deep = deepValue(rng);
      const keys = Object.keys(operation.body?.schema.properties ?? {});
      const inner = json.slice(1, -1);
      body = rng.chance(0.3) ? deep : `{${inner}${inner ? ',' : ''}"${keys.length ? rng.pick(keys) : 'a'}":${deep}}`;
      mutations.push(`deep nesting (${deep.length} bytes)`);
    } else if (text === 'wrong shape') {
      body = rng.pick([`[${json}]`, '[]', 'null', 'true', '0', '"string"', JSON.stringify(json)]);
      mutations.push(`root ${body.slice(0, 40)}`);
    } else if (text === 'huge body') {
      const huge = hugeBody(rng, fields, rng.pick([10_000, 60_000, 65_536, 65_537, 70_000, 150_000]));
      body = huge.text;
      mutations.push(`huge body of ${new TextEncoder().encode(body).length} bytes: ${huge.note}`);
    }
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (chosen.has('content type')) {
      headers['Content-Type'] = rng.pick(contentTypes);
      body ??= json;
      // Without a Content-Type, as bytes: fetch would label a string text/plain.
      if (rng.chance(0.2)) {
        delete headers['Content-Type'];
        if (typeof body === 'string') body = new TextEncoder().encode(body);
      }
      mutations.push(`Content-Type ${JSON.stringify(headers['Content-Type'] ?? '(none)').slice(0, 60)}`);
    }
  }

  if (chosen.has('headers')) {
    const [extra, note] = hostileHeaders(rng);
    Object.assign(headers, extra);
    mutations.push(note);
  }
  if (identity === 'hostile token') {
    headers.Authorization = hostileAuthorization(rng, world);
    mutations.push('hostile Authorization');
  }
  if (mutations.length === 0) mutations.push('plausible values');

  return { method, target: path + (query.length ? `?${query.join('&')}` : ''), headers, body, identity, mutations };
}

/** The request as it can be read in a failure message, long values cut. */
export function describeRequest(request: FuzzRequest, sentHeaders: Record<string, string>): string {
  const cut = (text: string, max = 300) => (text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text);
  const headers = Object.entries(sentHeaders).map(([name, value]) => `  ${name}: ${cut(value, 200)}`);
  let body = '  (no body)';
  if (typeof request.body === 'string') body = `  ${cut(JSON.stringify(request.body))}`;
  else if (request.body) body = `  bytes (hex) ${cut(Buffer.from(request.body).toString('hex'))}`;
  return [`${request.method} ${cut(request.target, 400)}`, ...headers, body].join('\n');
}
