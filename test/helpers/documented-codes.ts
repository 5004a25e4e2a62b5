// Every error answer a test meets must carry a code its operation's document lists for that status: the served
// document promises a client the codes it may meet per operation (functions/api/lib/openapi.ts, from
// lib/operation-codes.ts), and each test that meets one holds the promise. A request no operation serves (an
// unknown path, a wrong method) or a status the operation does not document is left to the tests of those.
import { stack } from './stack.ts';

interface Answer {
  content?: Record<string, { schema?: { $ref?: string } }>;
}
interface Document {
  paths: Record<string, Record<string, { responses: Record<string, Answer> }>>;
  components: { schemas: Record<string, { properties?: { error?: { properties?: { code?: { enum?: string[] } } } } }> };
}

let served: Promise<Document> | undefined;
const documentOnce = () =>
  served ??= fetch(`${stack.functionsUrl}/openapi.json`).then((response) => response.json() as Promise<Document>);

/** The document's path template that serves `path` (under /api): a literal one before one with parameters. */
function templateOf(document: Document, path: string): string | undefined {
  const pattern = (template: string) => new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
  return Object.keys(document.paths)
    .filter((template) => pattern(template).test(path))
    .sort((a, b) => a.split('{').length - b.split('{').length)[0];
}

/** Throws when `body` is an error whose code the document does not list for this operation and status. */
export async function assertDocumentedCode(method: string, path: string, status: number, body: unknown): Promise<void> {
  const code = (body as { error?: { code?: unknown } } | undefined)?.error?.code;
  if (status < 400 || typeof code !== 'string') return;
  const document = await documentOnce();
  const fullPath = `/api${path.split('?')[0]}`;
  const template = templateOf(document, fullPath);
  const answer = template ? document.paths[template][method.toLowerCase()]?.responses?.[String(status)] : undefined;
  const ref = answer?.content?.['application/json']?.schema?.$ref;
  const codes = ref
    ? document.components.schemas[ref.split('/').pop()!]?.properties?.error?.properties?.code?.enum
    : undefined;
  if (codes && !codes.includes(code)) {
    throw new Error(
      `${method} ${template} answered ${status} ${code}, which its document does not list (${codes.join(', ')}): ` +
        'name it in supabase/ERRORS.md, or run `npm run error-codes` if the facade or the SQL now raise it',
    );
  }
}
