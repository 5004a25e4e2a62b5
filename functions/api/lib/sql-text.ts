// SQL text with its values written as literals, for the simple query protocol: a request's settings, session
// check and statement then travel as one message and run as one transaction, in one round trip. (With bind
// parameters and no prepared statements, which the transaction pooler cannot keep, postgres.js asks the
// server to describe each statement first: two round trips per statement.)
import { ApiError } from './errors.ts';

export class SqlText {
  constructor(readonly text: string) {}
}

/** A value as a SQL literal, escaped as libpq's PQescapeLiteral does; Postgres infers its type from where it stands. */
export function literal(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new ApiError(400, 'value_out_of_range', 'A number is out of range');
    return String(value);
  }
  if (Array.isArray(value)) {
    return literal(`{${value.map((item) => `"${String(item).replace(/[\\"]/g, '\\$&')}"`).join(',')}}`);
  }
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  // Postgres text cannot hold NUL, and a NUL would end the protocol message early.
  if (text.includes('\u0000')) {
    throw new ApiError(400, 'invalid_text', 'Text may not contain the NUL character (\\u0000)');
  }
  const quoted = `'${text.replace(/'/g, "''")}'`;
  return text.includes('\\') ? ` E${quoted.replace(/\\/g, '\\\\')}` : quoted;
}

/** `sql\`select f(${a}, ${b})\``: the template's text with each value as a literal. */
export function sql(strings: TemplateStringsArray, ...values: unknown[]): SqlText {
  return new SqlText(strings.reduce((text, part, i) => text + literal(values[i - 1]) + part));
}
