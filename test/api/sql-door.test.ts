// The facade has one door to the database's API: lib/rpc-statement.ts (run by lib/rpc.ts), whose function names and
// arguments are typed by database.types.ts, so a renamed function or parameter fails `npm run check`. SQL the facade writes itself may
// call private helpers and set settings, but no function of `public`: such a call would escape the types, and a
// rename would surface only at run time.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const facade = 'functions/api';
const door = join(facade, 'lib', 'rpc-statement.ts');
const types = join(facade, 'database.types.ts');

/** The facade's TypeScript files, the door and the generated types aside. */
const sources = readdirSync(facade, { recursive: true, encoding: 'utf8' })
  .filter((path) => path.endsWith('.ts'))
  .map((path) => join(facade, path))
  .filter((path) => path !== door && path !== types);

/** The functions of `public`, as the generated types list them. */
const publicFunctions = [...readFileSync(types, 'utf8').matchAll(/^\s*['"](\w+)['"]:\s*\{\s*Args:/gm)].map((match) =>
  match[1]
);

/** The SQL text of each template literal in a file (its `${…}` values left out), with the line it starts on. */
function templates(text: string): { line: number; sql: string }[] {
  return [...text.matchAll(/`((?:[^`\\]|\\.)*)`/gs)].map((match) => ({
    line: text.slice(0, match.index).split('\n').length,
    sql: match[1].replace(/\$\{[^}]*\}/g, ' '),
  }));
}

describe("the facade's SQL", () => {
  it('lists the public functions to look for', () => {
    expect(publicFunctions).toContain('me');
    expect(publicFunctions).toContain('update_profile');
  });

  it('calls no function of public but through lib/rpc-statement.ts', () => {
    const call = new RegExp(`(?<![\\w.])(?:public\\s*\\.\\s*"?\\w+"?|${publicFunctions.join('|')})\\s*\\(`, 'g');
    const untyped = sources.flatMap((path) =>
      templates(readFileSync(path, 'utf8')).flatMap(({ line, sql }) =>
        [...sql.matchAll(call)]
          // A template is SQL when it reads like it: prose and URLs name no statement.
          .filter(() => /\b(select|perform|call|from)\b/i.test(sql))
          .map((match) => `${path}:${line}: ${match[0]}`)
      )
    );
    expect(untyped).toEqual([]);
  });
});
