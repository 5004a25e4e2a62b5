// The OpenAPI document as clients and tools read it: stable operation ids, security said for every operation,
// and the typed client's generated types (`npm run client`) in step with it.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { clientTypes, clientTypesFile, openApiDocument } from '../../supabase/tools/openapi.ts';

interface Operation {
  operationId?: string;
  security?: Record<string, string[]>[];
}

const document = await openApiDocument();
const operations = Object.entries(document.paths ?? {}).flatMap(([path, methods]) =>
  Object.entries(methods as Record<string, Operation>).map(([method, operation]) => ({
    name: `${method.toUpperCase()} ${path}`,
    ...operation,
  }))
);

/** The operations anyone may call without a token. */
const publicOperations = [
  'getHealth',
  'getOpenApiDocument',
  'register',
  'confirmEmail',
  'login',
  'signInWithGoogle',
  'refreshSession',
  'forgetPassword',
  'resetPassword',
  'resendCode',
  'undoAccountChange',
  'requestLoginCode',
  'loginWithCode',
];

describe('the OpenAPI document', () => {
  it('gives every operation a unique camelCase operationId', () => {
    const ids = operations.map((operation) => operation.operationId);
    expect(operations.filter((o) => !/^[a-z][a-zA-Z]*$/.test(o.operationId ?? '')).map((o) => o.name)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('says for every operation whether it needs a token: none, a bearer token, or either', () => {
    const [none, bearer, either] = [[], [{ bearerAuth: [] }], [{}, { bearerAuth: [] }]].map((security) =>
      JSON.stringify(security)
    );
    const security = (operation: Operation) => JSON.stringify(operation.security);
    expect(
      operations.filter((o) => security(o) === none).map((o) => o.operationId).sort(),
      'the operations anyone may call without a token: a new one is added to publicOperations, as a review',
    ).toEqual(
      [...publicOperations].sort(),
    );
    expect(operations.filter((o) => ![none, bearer, either].includes(security(o))).map((o) => o.name)).toEqual([]);
  });

  it('shows a real example for every parameter and every leaf of every body and answer (Swagger UI shows "string" else)', () => {
    type Schema = {
      $ref?: string;
      example?: unknown;
      enum?: unknown[];
      type?: string | string[];
      properties?: Record<string, Schema>;
      items?: Schema;
      anyOf?: Schema[];
      oneOf?: Schema[];
      allOf?: Schema[];
    };
    const schemas = (document.components?.schemas ?? {}) as Record<string, Schema>;
    const bare: string[] = [];
    const visit = (schema: Schema | undefined, where: string, seen: Set<string>, example = false) => {
      if (!schema) return;
      if (schema.$ref) {
        const name = schema.$ref.split('/').pop()!;
        if (!seen.has(name)) visit(schemas[name], `${where}→${name}`, new Set([...seen, name]), example);
        return;
      }
      const covered = example || schema.example !== undefined || schema.enum !== undefined;
      for (const part of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) {
        visit(part, where, seen, covered);
      }
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        visit(property, `${where}.${name}`, seen, covered);
      }
      visit(schema.items, `${where}[]`, seen, covered);
      const types = [schema.type ?? []].flat();
      if (types.some((type) => ['string', 'number', 'integer', 'boolean'].includes(type)) && !covered) bare.push(where);
    };
    type Content = Record<string, { schema?: Schema }>;
    type Full = Operation & {
      parameters?: { name: string; example?: unknown; schema?: Schema }[];
      requestBody?: { content?: Content };
      responses?: Record<string, { content?: Content }>;
    };
    for (const operation of operations as (Full & { name: string })[]) {
      for (const parameter of operation.parameters ?? []) {
        visit(parameter.schema, `${operation.name} ?${parameter.name}`, new Set(), parameter.example !== undefined);
      }
      for (const [type, { schema }] of Object.entries(operation.requestBody?.content ?? {})) {
        visit(schema, `${operation.name} body ${type}`, new Set());
      }
      for (const [status, answer] of Object.entries(operation.responses ?? {})) {
        for (const [type, { schema }] of Object.entries(answer.content ?? {})) {
          visit(schema, `${operation.name} ${status} ${type}`, new Set());
        }
      }
    }
    expect(bare).toEqual([]);
  });

  it('describes every operation beyond its summary', () => {
    const undescribed = operations.filter((o) => !((o as { description?: string }).description ?? '').trim()).map((o) =>
      o.name
    );
    expect(undescribed).toEqual([]);
  });

  it('opens with an overview, and gives every timestamp and day its format and the password its minimum', () => {
    expect((document.info.description ?? '').split('\n\n').length).toBeGreaterThanOrEqual(4);
    const unformatted: string[] = [];
    const passwords: unknown[] = [];
    // Every property of every schema, wherever it is declared (components, bodies, answers).
    const visit = (node: unknown, where: string): void => {
      if (Array.isArray(node)) return node.forEach((item, i) => visit(item, `${where}[${i}]`));
      if (!node || typeof node !== 'object') return;
      const properties = (node as { properties?: Record<string, Record<string, unknown>> }).properties ?? {};
      for (const [name, schema] of Object.entries(properties)) {
        const formats = [
          schema.format,
          ...((schema.anyOf ?? schema.oneOf ?? []) as { format?: string }[]).map((s) => s.format),
        ];
        if (/_at$/.test(name) && schema.type !== 'integer' && !formats.includes('date-time')) {
          unformatted.push(`${where}.${name}`);
        }
        if (name === 'day' && !formats.includes('date')) unformatted.push(`${where}.${name}`);
        // A password being set (register, reset, change); logging in takes whatever the account has.
        if (name === 'password' && !('login' in properties)) passwords.push(schema.minLength);
      }
      for (const [key, value] of Object.entries(node)) visit(value, `${where}.${key}`);
    };
    visit(document, '#');
    expect(unformatted).toEqual([]);
    expect(passwords.length).toBeGreaterThan(0);
    expect(new Set(passwords)).toEqual(new Set([8]));
  });

  it("shows each error answer with an example of its own operation's codes, the most telling first", () => {
    type ErrorSchema = {
      example: { error: { code: string; message: string } };
      properties: { error: { properties: { code: { enum: string[] } } } };
    };
    const schemas = document.components?.schemas as unknown as Record<string, ErrorSchema>;
    type Answer = { content?: Record<string, { schema?: { $ref?: string } }> };
    const example = (operationId: string, status: string) => {
      const operation = operations.find((op) => op.operationId === operationId) as unknown as {
        responses: Record<string, Answer>;
      };
      const name = operation.responses[status].content!['application/json'].schema!.$ref!.split('/').pop()!;
      return { ...schemas[name].example.error, codes: schemas[name].properties.error.properties.code.enum };
    };
    expect(example('createPost', '429').code).toBe('too_many_posts');
    expect(example('createPost', '429').message).toMatch(/^You have reached the limit of … posts in …/);
    expect(example('followUser', '400')).toMatchObject({
      code: 'cannot_follow_self',
      message: 'You cannot follow yourself',
    });
    expect(example('getPost', '404').code).toBe('post_not_found');
    expect(example('getPost', '429').code).toBe('too_many_requests');
    // Every example is one of the codes its answer lists, and a 400 is not one operation's message for all.
    const shown400 = new Set<string>();
    for (const operation of operations as unknown as { operationId?: string; responses?: Record<string, Answer> }[]) {
      for (const status of Object.keys(operation.responses ?? {})) {
        const ref = operation.responses![status].content?.['application/json']?.schema?.$ref;
        const schema = ref ? schemas[ref.split('/').pop()!] : undefined;
        if (!schema?.example?.error) continue;
        expect(schema.properties.error.properties.code.enum, `${operation.operationId} ${status}`).toContain(
          schema.example.error.code,
        );
        if (status === '400') shown400.add(schema.example.error.message);
      }
    }
    expect(shown400.size).toBeGreaterThan(5);
    expect([...shown400]).not.toContain('Say whether to accept (true) or decline (false)');
  });

  it('says null where an answer may be null: no allOf that forbids it (anyOf with null instead)', () => {
    const forbidding: string[] = [];
    const visit = (node: unknown, where: string): void => {
      if (Array.isArray(node)) return node.forEach((item, i) => visit(item, `${where}[${i}]`));
      if (!node || typeof node !== 'object') return;
      const allOf = (node as { allOf?: { type?: string | string[] }[] }).allOf ?? [];
      if (allOf.some((part) => [part.type ?? []].flat().includes('null'))) forbidding.push(where);
      for (const [key, value] of Object.entries(node)) visit(value, `${where}.${key}`);
    };
    visit(document, '#');
    expect(forbidding).toEqual([]);
  });

  it('declares the headers of every answer, and every tag it uses', () => {
    type Answer = { headers?: Record<string, unknown> };
    const undeclared = (operations as unknown as { name: string; responses: Record<string, Answer> }[]).flatMap((o) =>
      Object.entries(o.responses).filter(([, answer]) =>
        !answer.headers?.['X-Request-Id'] || !answer.headers?.['Cache-Control']
      )
        .map(([status]) => `${o.name} ${status}`)
    );
    expect(undeclared).toEqual([]);
    const tags = new Set(operations.flatMap((o) => (o as { tags?: string[] }).tags ?? []));
    expect(new Set((document.tags ?? []).map((tag) => tag.name))).toEqual(tags);
    expect((document.tags ?? []).every((tag) => (tag.description ?? '').length > 0)).toBe(true);
  });

  it('is what the typed client was generated from (else run `npm run client`)', async () => {
    const committed = await readFile(clientTypesFile, 'utf8');
    expect(committed === await clientTypes(document), `${clientTypesFile} is out of date: run \`npm run client\``).toBe(
      true,
    );
  });
});
