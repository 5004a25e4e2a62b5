// The OpenAPI document as clients and tools read it: stable operation ids, security said for every operation,
// and the typed client's generated types (`npm run client`) in step with it.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { clientTypes, clientTypesFile, openApiDocument } from '../../supabase/stack/openapi.ts';

interface Operation {
  operationId?: string;
  security?: Record<string, string[]>[];
}

const document = await openApiDocument();
const operations = Object.entries(document.paths ?? {}).flatMap(([path, methods]) =>
  Object.entries(methods as Record<string, Operation>).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, ...operation })));

/** The operations anyone may call without a token. */
const publicOperations = [
  'getHealth', 'getOpenApiDocument', 'register', 'confirmEmail', 'login', 'signInWithGoogle', 'refreshSession',
  'forgetPassword', 'resetPassword', 'resendCode',
];

describe('the OpenAPI document', () => {
  it('gives every operation a unique camelCase operationId', () => {
    const ids = operations.map((operation) => operation.operationId);
    expect(operations.filter((o) => !/^[a-z][a-zA-Z]*$/.test(o.operationId ?? '')).map((o) => o.name)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('says for every operation whether it needs a token: none, a bearer token, or either', () => {
    const [none, bearer, either] = [[], [{ bearerAuth: [] }], [{}, { bearerAuth: [] }]].map((security) => JSON.stringify(security));
    const security = (operation: Operation) => JSON.stringify(operation.security);
    expect(operations.filter((o) => security(o) === none).map((o) => o.operationId).sort()).toEqual([...publicOperations].sort());
    expect(operations.filter((o) => ![none, bearer, either].includes(security(o))).map((o) => o.name)).toEqual([]);
  });

  it('shows a real example for every parameter and every leaf of every body and answer (Swagger UI shows "string" else)', () => {
    type Schema = { $ref?: string; example?: unknown; enum?: unknown[]; type?: string | string[]; properties?: Record<string, Schema>; items?: Schema; anyOf?: Schema[]; oneOf?: Schema[]; allOf?: Schema[] };
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
      for (const part of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) visit(part, where, seen, covered);
      for (const [name, property] of Object.entries(schema.properties ?? {})) visit(property, `${where}.${name}`, seen, covered);
      visit(schema.items, `${where}[]`, seen, covered);
      const types = [schema.type ?? []].flat();
      if (types.some((type) => ['string', 'number', 'integer', 'boolean'].includes(type)) && !covered) bare.push(where);
    };
    type Content = Record<string, { schema?: Schema }>;
    type Full = Operation & { parameters?: { name: string; example?: unknown; schema?: Schema }[]; requestBody?: { content?: Content }; responses?: Record<string, { content?: Content }> };
    for (const operation of operations as (Full & { name: string })[]) {
      for (const parameter of operation.parameters ?? []) visit(parameter.schema, `${operation.name} ?${parameter.name}`, new Set(), parameter.example !== undefined);
      for (const [type, { schema }] of Object.entries(operation.requestBody?.content ?? {})) visit(schema, `${operation.name} body ${type}`, new Set());
      for (const [status, answer] of Object.entries(operation.responses ?? {})) {
        for (const [type, { schema }] of Object.entries(answer.content ?? {})) visit(schema, `${operation.name} ${status} ${type}`, new Set());
      }
    }
    expect(bare).toEqual([]);
  });

  it('describes every operation beyond its summary', () => {
    const undescribed = operations.filter((o) => !((o as { description?: string }).description ?? '').trim()).map((o) => o.name);
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
        const formats = [schema.format, ...((schema.anyOf ?? schema.oneOf ?? []) as { format?: string }[]).map((s) => s.format)];
        if (/_at$/.test(name) && schema.type !== 'integer' && !formats.includes('date-time')) unformatted.push(`${where}.${name}`);
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

  it('is what the typed client was generated from (else run `npm run client`)', async () => {
    const committed = await readFile(clientTypesFile, 'utf8');
    expect(committed === await clientTypes(document), `${clientTypesFile} is out of date: run \`npm run client\``).toBe(true);
  });
});
