// Which stable error codes each operation of the facade can answer, read from the code that raises them, so that
// the OpenAPI document lists per operation the codes a client may meet there and no others. Pure functions over
// source texts; `npm run error-codes` writes the result to functions/api/lib/operation-codes.ts.
//
// The reading is textual and errs on the side of listing a code:
// - SQL (supabase/schemas): a function raises the documented codes quoted in its body, and whatever the functions
//   it calls raise, the triggers of the tables it writes (and of the tables a delete cascades to) and the
//   functions a table's defaults and checks call. A code built as `'too_many_' || family` is resolved with the
//   trigger's literal argument (`count_write('posts', …)`: too_many_posts), or else to every code so built.
// - TypeScript (functions/api): a module raises the documented codes it quotes, and those of the modules it
//   imports and of the SQL functions it names. The app's own modules (app.ts and what it imports, routes
//   aside) apply to every operation.
// - An operation answers what its route module raises, and what the SQL functions its own route definition names
//   raise: each route is written `.openapi(createRoute(…), handler)`, so the text from one `createRoute(` to the
//   next is its own, and what a module names before the first counts for all of its routes.

export interface Source {
  /** Relative to the repository root, with `/`. */
  path: string;
  text: string;
}

interface SqlGraph {
  /** Each function (`private.fail`) with its bodies' text (overloads together). */
  bodies: Map<string, string>;
  /**
   * Each `table:event` (`public.posts:insert`) with the trigger functions it fires, their literal arguments, and
   * for `update of …` the columns.
   */
  triggers: Map<string, { fn: string; args: string[]; columns?: string[] }[]>;
  /** Each `table:event` with the `table:event`s it causes: a delete's cascades, and a table's defaults' functions. */
  causes: Map<string, string[]>;
  /** Each table with the functions its defaults and checks call. */
  tableCalls: Map<string, string[]>;
}

const append = <K, V>(map: Map<K, V[]>, key: K, value: V) => map.set(key, [...(map.get(key) ?? []), value]);

/** The text between the dollar quotes that begin after `from` (a function's body), and where it ends. */
function dollarQuoted(text: string, from: number): { body: string; end: number } | undefined {
  const open = /\$(\w*)\$/g;
  open.lastIndex = from;
  const match = open.exec(text);
  if (!match) return undefined;
  const close = text.indexOf(match[0], match.index + match[0].length);
  return close < 0
    ? undefined
    : { body: text.slice(match.index + match[0].length, close), end: close + match[0].length };
}

const qualified = /\b(public|private|auth)\.(\w+)\s*\(/g;

/**
 * A body's code without its comments and the insides of its string literals, where a function or table may be
 * named without being called or written (a message saying "call private.recount_counters()").
 */
function codeOnly(body: string): string {
  return body.replace(/--[^\n]*|\/\*[\s\S]*?\*\/|'(?:[^']|'')*'/g, (token) => token.startsWith("'") ? "''" : ' ');
}

export function sqlGraph(files: Source[]): SqlGraph {
  const graph: SqlGraph = { bodies: new Map(), triggers: new Map(), causes: new Map(), tableCalls: new Map() };
  for (const { text } of files) {
    for (const match of text.matchAll(/create\s+(?:or\s+replace\s+)?function\s+(\w+\.\w+)\s*\(/gi)) {
      const quoted = dollarQuoted(text, match.index + match[0].length);
      if (quoted) graph.bodies.set(match[1], `${graph.bodies.get(match[1]) ?? ''}\n${quoted.body}`);
    }
    const trigger =
      /create\s+(?:constraint\s+)?trigger\s+\w+\s+(?:before|after|instead\s+of)\s+([\w\s,]+?)\s+on\s+(\w+\.\w+)[\s\S]*?execute\s+(?:function|procedure)\s+(\w+\.\w+)\s*\(([^)]*)\)/gi;
    for (const [, events, table, fn, args] of text.matchAll(trigger)) {
      const literals = [...args.matchAll(/'([^']*)'/g)].map((m) => m[1]);
      for (const event of events.split(/\s+or\s+/i)) {
        const [, kind, columns] = event.trim().match(/^(\w+)(?:\s+of\s+(.+))?$/i) ?? [];
        append(graph.triggers, `${table}:${kind.toLowerCase()}`, {
          fn,
          args: literals,
          columns: columns?.split(/\s*,\s*/),
        });
      }
    }
    for (const match of text.matchAll(/create\s+table\s+(\w+\.\w+)\s*\(/gi)) {
      const end = text.indexOf('\n);', match.index);
      const definition = text.slice(match.index + match[0].length, end < 0 ? undefined : end);
      for (
        const [, parent, action] of definition.matchAll(
          /references\s+(\w+\.\w+)[^,]*?on\s+delete\s+(cascade|set\s+null)/gi,
        )
      ) {
        append(graph.causes, `${parent}:delete`, `${match[1]}:${/cascade/i.test(action) ? 'delete' : 'update'}`);
      }
      for (const [, schema, name] of definition.matchAll(qualified)) {
        append(graph.tableCalls, match[1], `${schema}.${name}`);
      }
    }
    const foreignKey =
      /alter\s+table\s+(?:only\s+)?(\w+\.\w+)\s+add\s+constraint\s+\w+\s+foreign\s+key[^;]*?references\s+(\w+\.\w+)[^;]*?on\s+delete\s+(cascade|set\s+null)/gi;
    for (const [, child, parent, action] of text.matchAll(foreignKey)) {
      append(graph.causes, `${parent}:delete`, `${child}:${/cascade/i.test(action) ? 'delete' : 'update'}`);
    }
  }
  return graph;
}

/** The documented codes quoted in `text`, and the prefixes of codes built in it (`'too_many_' || …`). */
function quotedCodes(text: string, documented: Set<string>): { codes: string[]; prefixes: string[] } {
  // An example in a schema (`example: 'post_not_found'`) raises nothing.
  const codes = [...text.matchAll(/(?<!example:\s*)'([a-z_]+)'/g)].map((m) => m[1]).filter((c) => documented.has(c));
  const prefixes = [...text.matchAll(/'([a-z_]+_)'\s*\|\|/g)].map((m) => m[1])
    .filter((prefix) => [...documented].some((c) => c.startsWith(prefix)));
  return { codes, prefixes };
}

/** The codes the SQL functions `roots` may raise, by way of what they call and write. */
export function sqlCodes(graph: SqlGraph, roots: string[], documented: Set<string>): Set<string> {
  const found = new Set<string>();
  const seen = new Set<string>();
  const visitFunction = (fn: string, families: string[]) => {
    const key = `${fn}(${families})`;
    if (seen.has(key) || !graph.bodies.has(fn)) return;
    seen.add(key);
    const body = graph.bodies.get(fn)!;
    const { codes, prefixes } = quotedCodes(body, documented);
    const code = codeOnly(body);
    codes.forEach((code) => found.add(code));
    for (const prefix of prefixes) {
      const built = families.length > 0
        ? families.map((family) => prefix + family)
        : [...documented].filter((c) => c.startsWith(prefix));
      built.filter((code) => documented.has(code)).forEach((code) => found.add(code));
    }
    for (const [, schema, name] of code.matchAll(qualified)) visitFunction(`${schema}.${name}`, families);
    for (const [, verb, table] of code.matchAll(/\b(insert\s+into|delete\s+from)\s+(\w+\.\w+)/gi)) {
      visitTable(`${table}:${verb.split(/\s+/)[0].toLowerCase()}`);
    }
    // An update fires the `update of …` triggers of the columns it sets (the names before an `=` in its set list).
    const update =
      /\bupdate\s+(\w+\.\w+)(?:\s+(?:as\s+)?\w+)?\s+set\b([\s\S]*?)(?:\bwhere\b|\bfrom\b|\breturning\b|;|$)/gi;
    for (const [, table, list] of code.matchAll(update)) {
      visitTable(`${table}:update`, [...list.matchAll(/(\w+)\s*=(?!=)/g)].map((m) => m[1]));
    }
  };
  const visitTable = (tableEvent: string, columns?: string[]) => {
    const key = `${tableEvent}(${columns ?? '*'})`;
    if (seen.has(key)) return;
    seen.add(key);
    const [table, event] = tableEvent.split(':');
    if (event !== 'delete') { for (const fn of graph.tableCalls.get(table) ?? []) visitFunction(fn, []); }
    for (const trigger of graph.triggers.get(tableEvent) ?? []) {
      const fires = !trigger.columns || !columns || trigger.columns.some((column) => columns.includes(column));
      if (fires) visitFunction(trigger.fn, trigger.args);
    }
    for (const caused of graph.causes.get(tableEvent) ?? []) visitTable(caused);
  };
  roots.forEach((fn) => visitFunction(fn, []));
  return found;
}

/** What one TypeScript module raises itself: the codes it quotes and the SQL functions it names. */
interface ModuleFacts {
  codes: string[];
  functions: string[];
  imports: string[];
}

/** The SQL functions a piece of the facade names: `rpc(deps, caller, 'feed', …)`, `rpcStatement('me', …)`, `private.uid()`. */
function namedFunctions(text: string): string[] {
  return [
    ...[...text.matchAll(/\brpc\(\s*[^,()]+(?:\([^)]*\))?,\s*[^,()]+,\s*'(\w+)'/g)].map((m) => `public.${m[1]}`),
    ...[...text.matchAll(/\brpcStatement\(\s*'(\w+)'/g)].map((m) => `public.${m[1]}`),
    ...[...text.matchAll(qualified)].map((m) => `${m[1]}.${m[2]}`),
  ];
}

function moduleFacts({ path, text }: Source, documented: Set<string>): ModuleFacts {
  const dir = path.split('/').slice(0, -1);
  const imports = [...text.matchAll(/from\s+'(\.{1,2}\/[^']+\.ts)'/g)].map(([, relative]) => {
    const parts = [...dir];
    for (const part of relative.split('/')) {
      if (part === '..') parts.pop();
      else if (part !== '.') parts.push(part);
    }
    return parts.join('/');
  });
  // A generated module (lib/error-codes.ts) quotes messages, which may name a function (`call private.recount_counters()`): none is called.
  const generated = text.startsWith('// Generated by');
  return { codes: quotedCodes(text, documented).codes, functions: generated ? [] : namedFunctions(text), imports };
}

/**
 * Each operation (by operationId) with the documented codes it may answer, from the facade's modules (`facade`:
 * functions/api; the generated ones quote their codes in double quotes, so they add none) and the schemas
 * (`schemas`). `documented`: every code of ERRORS.md.
 */
export function operationCodes(facade: Source[], schemas: Source[], documented: Set<string>): Record<string, string[]> {
  const graph = sqlGraph(schemas);
  const facts = new Map(facade.map((source) => [source.path, moduleFacts(source, documented)]));
  const isRoute = (path: string) => path.includes('/routes/');
  /** A module's codes and SQL functions with those of every module it imports (`skip`: modules not to enter). */
  const closure = (start: string, skip: (path: string) => boolean) => {
    const codes = new Set<string>();
    const functions = new Set<string>();
    const pending = [start];
    const seen = new Set<string>();
    while (pending.length > 0) {
      const path = pending.pop()!;
      const module = facts.get(path);
      if (seen.has(path) || !module) continue;
      seen.add(path);
      module.codes.forEach((code) => codes.add(code));
      module.functions.forEach((fn) => functions.add(fn));
      pending.push(...module.imports.filter((imported) => !skip(imported)));
    }
    return { codes, functions };
  };
  const app = closure('functions/api/app.ts', isRoute);
  const everyOperation = new Set([...app.codes, ...sqlCodes(graph, [...app.functions], documented)]);

  const result: Record<string, string[]> = {};
  for (const route of facade.filter(({ path }) => isRoute(path))) {
    const chunks = route.text.split(/createRoute\(/);
    const own = facts.get(route.path)!;
    const imported = own.imports.map((path) => closure(path, () => false));
    const moduleCodes = [...own.codes, ...imported.flatMap(({ codes }) => [...codes])];
    // The SQL functions a route's own chunk names are its alone.
    const moduleFunctions = [
      ...imported.flatMap(({ functions }) => [...functions]),
      ...namedFunctions(chunks[0]),
    ];
    for (const chunk of chunks.slice(1)) {
      const id = chunk.match(/operationId:\s*'(\w+)'/)?.[1];
      if (!id) continue;
      const functions = [...moduleFunctions, ...namedFunctions(chunk)];
      result[id] = [...new Set([...everyOperation, ...moduleCodes, ...sqlCodes(graph, functions, documented)])].sort();
    }
  }
  return Object.fromEntries(Object.entries(result).sort(([a], [b]) => a.localeCompare(b)));
}

export function renderOperationCodes(codes: Record<string, string[]>): string {
  return [
    '// Generated by `npm run error-codes` from the facade and the schemas (supabase/tools/operation-codes.ts): the',
    '// stable codes each operation may answer, whatever the status. Do not edit by hand.',
    '',
    'export const operationCodes: Record<string, string[]> = {',
    ...Object.entries(codes).map(([id, list]) => `  ${id}: ${JSON.stringify(list)},`),
    '};',
    '',
  ].join('\n');
}
