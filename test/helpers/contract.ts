// Every answer a test receives from the facade through `api()` and `apiFrom()` (helpers/http.ts) is checked against
// the OpenAPI document the stack serves, by a maintained OpenAPI validator (openapi-backend, Ajv underneath, with
// ajv-formats for date-time, uuid, uri…): its status is one the operation documents, its JSON body matches that
// answer's schema, and its headers are those the answer declares (each of the API's own headers sent is declared
// and matches its schema; each declared required one is sent). A drift between the facade and its document fails the
// test that met it. A request no operation of the document serves (an unknown path, a wrong method, the Send Email
// hook) has nothing to be checked against: the tests of those check them.
import addFormats from 'ajv-formats';
import { type Document, OpenAPIBackend, type Operation, SetMatchType } from 'openapi-backend';
import { stack } from './stack.ts';

/** Headers of the transport, of CORS and of the gateway, which an OpenAPI document does not declare. */
const transportHeaders = new Set([
  'connection',
  'content-length',
  'content-type',
  'date',
  'keep-alive',
  'server',
  'transfer-encoding',
  'vary',
]);

let validator: Promise<OpenAPIBackend> | undefined;

/** The served document, dereferenced once per test file; each operation's validators compiled when first needed. */
function validatorOnce(): Promise<OpenAPIBackend> {
  return validator ??= fetch(`${stack.functionsUrl}/openapi.json`)
    .then((response) => response.json() as Promise<Document>)
    .then((definition) =>
      new OpenAPIBackend({
        definition,
        // Lazily compiled validators; the document itself is linted by test/api/openapi-lint.test.ts.
        quick: true,
        strict: true,
        customizeAjv: (ajv) => {
          // A CommonJS module: its function is the default export's `default`, under Node and Deno's type-check alike.
          addFormats.default(ajv);
          return ajv;
        },
      }).init()
    );
}

type Response = {
  description?: string;
  content?: Record<string, unknown>;
  headers?: Record<string, { required?: boolean }>;
};

/** Why the answer breaks the document, or [] when it keeps it. */
export async function contractBreaches(
  method: string,
  path: string,
  status: number,
  body: unknown,
  headers: Headers,
): Promise<string[]> {
  const backend = await validatorOnce();
  const [pathname, query = ''] = `/api${path}`.split('?');
  const operation = backend.router.matchOperation({ method, path: pathname, query, headers: {} }) as
    | Operation
    | undefined;
  if (!operation) return [];
  const responses = operation.responses as Record<string, Response>;
  const answer = responses[String(status)] ?? responses[`${Math.floor(status / 100)}XX`] ?? responses.default;
  if (!answer) return [`status ${status} is not one ${operation.operationId} documents (${Object.keys(responses)})`];
  const breaches: string[] = [];

  const type = headers.get('content-type')?.split(';')[0].trim();
  const declared = Object.keys(answer.content ?? {});
  if (body === undefined) {
    if (declared.length > 0 && status !== 304) breaches.push(`no body, where the document declares ${declared}`);
  } else if (!type || !declared.includes(type)) {
    breaches.push(`a ${type} body, where the document declares ${declared.length ? declared : 'none'}`);
  } else if (type === 'application/json') {
    const result = backend.validateResponse(body, operation, status);
    for (const error of result.errors ?? []) {
      breaches.push(`body${error.instancePath} ${error.message} (${JSON.stringify(error.params)})`);
    }
  }

  const own: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (!transportHeaders.has(name) && !name.startsWith('access-control-')) own[name] = value;
  });
  const result = backend.validateResponseHeaders(own, operation, {
    statusCode: status,
    setMatchType: SetMatchType.Subset,
  });
  for (const error of result.errors ?? []) {
    breaches.push(`headers${error.instancePath} ${error.message} (${JSON.stringify(error.params)})`);
  }
  for (const [name, header] of Object.entries(answer.headers ?? {})) {
    if (header.required && !headers.has(name)) breaches.push(`no ${name} header, which the document requires`);
  }
  return breaches.map((breach) => `${operation.operationId} ${status}: ${breach}`);
}

/** Throws when the answer to `method path` breaks the served OpenAPI document. */
export async function assertKeepsContract(
  method: string,
  path: string,
  status: number,
  body: unknown,
  headers: Headers,
): Promise<void> {
  const breaches = await contractBreaches(method, path, status, body, headers);
  if (breaches.length > 0) {
    throw new Error(
      `${method} ${path} answered what its OpenAPI document does not say:\n  ${breaches.join('\n  ')}\n` +
        `body: ${JSON.stringify(body)?.slice(0, 2000)}`,
    );
  }
}
