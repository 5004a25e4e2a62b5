// Compares the keys of a JSON value with those a zod schema declares, at every level.
import type { z } from '@hono/zod-openapi';

/** The parts of a zod definition walked here. */
interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  entries?: Record<string, string>;
  options?: z.ZodType[];
}

const def = (schema: z.ZodType) => (schema as unknown as { def: Def }).def;
const wrappers = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'nonoptional', 'catch']);

/** The schema under optional, nullable, default… and the input side of a pipe. */
export function unwrap(schema: z.ZodType): z.ZodType {
  for (;;) {
    const { type, innerType, in: input } = def(schema);
    if (wrappers.has(type) && innerType) schema = innerType;
    else if (type === 'pipe' && input) schema = input;
    else return schema;
  }
}

/** The values of a zod enum (under its wrappers). */
export function enumValues(schema: z.ZodType): string[] {
  return Object.values(def(unwrap(schema)).entries ?? {});
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The paths present on one side only: keys of `value` the schema does not declare, and keys the schema requires
 * that `value` lacks (optional ones may be absent). An empty array of objects is reported too: nothing in it
 * was checked (within a list, only when it is empty in every item).
 */
export function keyDiff(schema: z.ZodType, value: unknown, path = '$'): string[] {
  const inner = def(unwrap(schema));
  if (inner.type === 'array' && Array.isArray(value) && inner.element) {
    const element = inner.element;
    if (value.length === 0) return def(unwrap(element)).type === 'object' ? [`${path}[]: empty, nothing checked`] : [];
    const diffs = value.map((item) => keyDiff(element, item, `${path}[]`));
    // A nested list empty in one item (a post without mentions) is checked in another: it is reported only when
    // it is empty in every item.
    const unchecked = (diff: string) => diff.endsWith(': empty, nothing checked');
    return [
      ...new Set(diffs.flat().filter((diff) => !unchecked(diff) || diffs.every((other) => other.includes(diff)))),
    ];
  }
  // A union (e.g. a banned user or a banned post): the value is checked against the option it fits best.
  if (inner.type === 'union' && inner.options) {
    const diffs = inner.options.map((option) => keyDiff(option, value, path));
    return diffs.reduce((best, diff) => (diff.length < best.length ? diff : best));
  }
  if (inner.type !== 'object' || !inner.shape || !isObject(value)) return [];
  const shape = inner.shape;
  return [
    ...Object.keys(shape)
      .filter((key) => !(key in value) && !shape[key].safeParse(undefined).success)
      .map((key) => `${path}.${key}: only in zod`),
    ...Object.keys(value).filter((key) => !(key in shape)).map((key) => `${path}.${key}: only in SQL`),
    ...Object.keys(shape).filter((key) => key in value).flatMap((key) =>
      keyDiff(shape[key], value[key], `${path}.${key}`)
    ),
  ];
}
