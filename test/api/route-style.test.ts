// One way of declaring a route (docs/CHANGING.md, "Adding an endpoint"): `.openapi(createRoute({…}), [async] function
// <operationId>(c) {…})` in the router's chain, so the route's own SQL is what its handler names
// (supabase/tools/operation-codes.ts reads the sources so) and a stack trace names its operation.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const routes = 'functions/api/routes';
const files = readdirSync(routes).filter((file) => file.endsWith('.ts')).map((file) => ({
  file,
  text: readFileSync(join(routes, file), 'utf8'),
}));

describe('the route files', () => {
  it('declare each route inline, with a handler named after its operationId', () => {
    const wrong: string[] = [];
    for (const { file, text } of files) {
      for (const m of text.matchAll(/\.openapi\(\s*(?!createRoute\()(\w+),/g)) {
        wrong.push(`${file}: .openapi(${m[1]}, …)`);
      }
      for (const chunk of text.split(/\.openapi\(\s*createRoute\(/).slice(1)) {
        const id = /operationId:\s*'(\w+)'/.exec(chunk)?.[1];
        const handler = /\}\),\s*(?:async )?function (\w+)\(/.exec(chunk)?.[1];
        if (!id || handler !== id) {
          wrong.push(`${file}: ${id ?? 'a route'} handled by ${handler ?? 'an unnamed function'}`);
        }
      }
    }
    expect(files.length).toBeGreaterThan(10);
    expect(wrong).toEqual([]);
  });
});
