// The stable error codes under each HTTP status, read from their one source, supabase/ERRORS.md (whose tables
// test/db/error-codes.test.ts holds to what the SQL and the facade raise), with an example message for each
// status taken from where such a code is raised. `npm run error-codes` writes functions/api/lib/error-codes.ts,
// from which the OpenAPI document gives every error answer the codes its status may carry; a test fails when
// that file is out of date. Pure functions: the callers read the files.

export interface Documented {
  /** Each code with the HTTP statuses of the ERRORS.md rows naming it. */
  codes: Map<string, Set<number>>;
  /** The Postgres SQLSTATEs' rows (not PTxyz): "<state> <statuses> <codes>", sorted. */
  sqlStates: string[];
}

/** ERRORS.md's tables: each code with the HTTP statuses of its rows, and the Postgres SQLSTATEs' rows. */
export function documentedCodes(errorsMd: string): Documented {
  const codes = new Map<string, Set<number>>();
  const sqlStates: string[] = [];
  const tables = errorsMd.split(/\n\s*\n/).filter((block) => block.startsWith('|'));
  for (const table of tables) {
    const [header, , ...rows] = table.trim().split('\n').map((line) =>
      line.split('|').slice(1, -1).map((cell) => cell.trim())
    );
    const column = (...names: string[]) => header.findIndex((cell) => names.includes(cell.toLowerCase()));
    const [code, http, sqlState] = [column('code', 'codes'), column('http'), column('sqlstate')];
    for (const row of rows) {
      const statuses = (row[http].match(/\d{3}/g) ?? []).map(Number);
      const rowCodes = [...row[code].matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
      for (const c of rowCodes) codes.set(c, new Set([...(codes.get(c) ?? []), ...statuses]));
      for (const [, state] of sqlState < 0 ? [] : row[sqlState].matchAll(/`([0-9A-Z]{5})`/g)) {
        if (!state.startsWith('PT')) sqlStates.push(`${state} ${statuses.join()} ${rowCodes.join()}`);
      }
    }
  }
  return { codes, sqlStates: sqlStates.sort() };
}

/**
 * A message each code is raised with, where a source spells it out: `private.fail(404, 'code', 'message')` (or
 * `format('message', …)`) in the schemas, `new ApiError(404, 'code', 'message')` and the translation tables
 * `[404, 'code', 'message']` in the facade. The first one found wins (the callers give the facade's sources
 * first: its messages are the ones a client reads most). The write limits' codes are made from their family
 * (`'too_many_' || p_family`): each documented one gets that refusal's message, its family named.
 */
export function messagesOf(sources: string[], documented: Iterable<string> = []): Map<string, string> {
  const messages = new Map<string, string>();
  const patterns = [
    /private\.fail\(\d{3},\s*'([a-z_]+)',\s*'((?:[^']|'')+)'\)/g,
    /new ApiError\(\s*\d{3},\s*'([a-z_]+)',\s*(?:'([^']+)'|`([^`]+)`)/g,
    /\[\s*\d{3},\s*'([a-z_]+)',\s*'([^']+)',?\s*\]/g,
    /private\.fail\(\d{3},\s*'([a-z_]+)',\s*format\(\s*'((?:[^']|'')+)'/g,
  ];
  // A message made from the request reads with its values left out.
  const unfilled = (text: string) => text.replaceAll("''", "'").replace(/%[sIL]/g, '…');
  for (const source of sources) {
    for (const pattern of patterns) {
      for (const [, code, quoted, template] of source.matchAll(pattern)) {
        const message = quoted ? unfilled(quoted) : template.replace(/\$\{[^}]*\}/g, '…');
        if (!messages.has(code)) messages.set(code, message);
      }
    }
  }
  const template = sources.map((source) => /private\.fail\(429,\s*v_code,\s*format\(\s*'([^']+)'/.exec(source)?.[1])
    .find(Boolean);
  const families = new Set(
    sources.flatMap((source) =>
      [.../insert into private\.write_limits[^;]*;/.exec(source)?.[0].matchAll(/\(\s*'([a-z_]+)'/g) ?? []].map((
        [, family],
      ) => family)
    ),
  );
  for (const code of documented) {
    const family = code.replace(/^too_many_/, '');
    if (!template || messages.has(code) || !families.has(family)) continue;
    // The template's second value is the family, spaced as the refusal spaces it.
    let value = 0;
    messages.set(code, template.replace(/%s/g, () => ++value === 2 ? family.replaceAll('_', ' ') : '…'));
  }
  return messages;
}

/** The code each status shows as its example: the one a client meets most (the first code with a message else). */
const usual: Record<number, string> = {
  400: 'validation_failed',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'post_not_found',
  409: 'conflict',
  429: 'too_many_requests',
  503: 'database_unavailable',
};

export function renderErrorCodes({ codes }: Documented, messages: Map<string, string>): string {
  const byStatus = new Map<number, string[]>();
  for (const [code, statuses] of codes) {
    for (const status of statuses) byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const entries = [...byStatus].sort(([a], [b]) => a - b).map(([status, list]) => {
    const sorted = [...new Set(list)].sort();
    const example = [usual[status], ...sorted].find((code) => code && sorted.includes(code) && messages.has(code)) ??
      sorted[0];
    // A message only the request makes (Postgres's own, a framework's) is shown as "…".
    const message = messages.get(example) || '…';
    return `  ${status}: {\n    codes: ${JSON.stringify(sorted)},\n    example: ${
      JSON.stringify({ code: example, message })
    },\n  },`;
  });
  return [
    '// Generated by `npm run error-codes` from supabase/ERRORS.md (supabase/tools/error-codes.ts): the stable codes each HTTP',
    '// status may carry, and an example of one as the server answers it. Do not edit by hand.',
    '',
    'export const errorCodes: Record<number, { codes: string[]; example: { code: string; message: string } }> = {',
    ...entries,
    '};',
    '',
    '/** A message each code is answered with, where a source spells it out (for the examples of narrower lists). */',
    'export const errorMessages: Record<string, string> = {',
    ...[...codes.keys()].sort().filter((code) => messages.get(code)).map((code) =>
      `  ${code}: ${JSON.stringify(messages.get(code))},`
    ),
    '};',
    '',
  ].join('\n');
}
