// `npm run check`: every relative link and anchor in the project's markdown resolves. A link to a file needs the
// file (or folder); `#anchor` and `page.md#anchor` need a heading of that page whose slug, as GitHub makes it, is
// the anchor. External links (any `scheme:`, such as https: or mailto:) are not checked. Prints each broken link
// as file:line and exits 1. Run from the repository's root: deno run --allow-read supabase/tools/check-links.ts
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

/** The pages checked: the README, the manual, the client's README, the benchmarks and their reports. */
function pages(): string[] {
  const inFolder = (folder: string) =>
    readdirSync(folder).filter((name) => name.endsWith('.md')).sort().map((name) => join(folder, name));
  return [
    'README.md',
    ...inFolder('docs'),
    join('client', 'README.md'),
    ...inFolder('supabase'),
    ...inFolder(join('supabase', 'bench')),
    ...inFolder(join('supabase', 'bench', 'reports')),
  ];
}

/** Each line of a markdown text outside fenced code blocks: as written, with its code spans blanked, its number. */
function proseLines(text: string): { raw: string; prose: string; number: number }[] {
  const lines: { raw: string; prose: string; number: number }[] = [];
  let fence: string | null = null;
  text.split('\n').forEach((raw, index) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(raw)?.[1];
    if (marker && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      return;
    }
    if (fence !== null) return;
    const prose = raw.replace(/(`+)[\s\S]*?\1/g, (span) => ' '.repeat(span.length));
    lines.push({ raw, prose, number: index + 1 });
  });
  return lines;
}

/** A heading's anchor as GitHub makes it: lowercase, punctuation but `-` and `_` dropped, spaces to `-`. */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link keeps its text
    .replace(/[`*]/g, '') // code and emphasis marks
    .replace(/<[^>]+>/g, ''); // inline HTML
  return text.trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** The anchors of a markdown text: its headings' slugs (a repeated one gets -1, -2, …) and explicit ids. */
export function anchors(text: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const { raw, prose } of proseLines(text)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(raw);
    if (heading) {
      const base = slug(heading[1]);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      found.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const id of prose.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) found.add(id[1]);
  }
  return found;
}

/** Inline links and images `[text](target "title")`, and reference definitions `[name]: target`. */
function linkTargets(line: string): string[] {
  const inline = [...line.matchAll(/\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]);
  const reference = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(line);
  return reference ? [...inline, reference[1]] : inline;
}

/** Why a link of `page` does not resolve, or null when it does. */
function problem(page: string, target: string, anchorsOf: (file: string) => Set<string>): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return null; // external
  const hash = target.indexOf('#');
  const path = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
  const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
  const file = path === '' ? page : normalize(join(dirname(page), path));
  if (!existsSync(file)) return `no file ${file}`;
  if (anchor === null || !file.endsWith('.md') || statSync(file).isDirectory()) return null;
  if (!anchorsOf(file).has(anchor)) return `no heading with the anchor #${anchor} in ${file}`;
  return null;
}

function main(): void {
  const cache = new Map<string, Set<string>>();
  const anchorsOf = (file: string) => {
    if (!cache.has(file)) cache.set(file, anchors(readFileSync(file, 'utf8')));
    return cache.get(file)!;
  };
  const files = pages();
  let links = 0;
  const broken: string[] = [];
  for (const page of files) {
    for (const { prose, number } of proseLines(readFileSync(page, 'utf8'))) {
      for (const target of linkTargets(prose)) {
        links++;
        const why = problem(page, target, anchorsOf);
        if (why) broken.push(`${page}:${number}: broken link (${target}): ${why}`);
      }
    }
  }
  for (const line of broken) console.error(line);
  if (broken.length > 0) {
    console.error(`${broken.length} broken link(s) in ${files.length} markdown files`);
    Deno.exit(1);
  }
  console.log(`check-links: ${links} links in ${files.length} markdown files resolve`);
}

if (import.meta.main) main();
