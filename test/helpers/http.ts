// Requests to the facade over HTTP, through the gateway, as a client would send them.
import { request as httpRequest } from 'node:http';
import { assertKeepsContract } from './contract.ts';
import { assertDocumentedCode } from './documented-codes.ts';
import { replicaCaughtUp } from './replica.ts';
import { stack } from './stack.ts';

export interface ApiResponse {
  status: number;
  // deno-lint-ignore no-explicit-any
  body: any;
  headers: Headers;
}

export async function api(
  method: string,
  path: string,
  options: {
    token?: string;
    json?: unknown;
    body?: string;
    headers?: Record<string, string>;
    /** A read that takes the replica as it is, not waiting for it to replay what the primary acknowledged. */
    replicaAsItIs?: boolean;
  } = {},
): Promise<ApiResponse> {
  if (method === 'GET' && !options.replicaAsItIs) await replicaCaughtUp();
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  let body = options.body;
  if (options.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.json);
  }
  const response = await fetch(`${stack.functionsUrl}${path}`, { method, headers, body });
  const text = await response.text();
  const answer = { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
  await assertDocumentedCode(method, path, answer.status, answer.body);
  await assertKeepsContract(method, path, answer.status, answer.body, answer.headers);
  return answer;
}

/**
 * The same request from another source address of the loopback range (127.0.0.2, 127.0.0.3…), as a client
 * with many addresses would send it: the gateway names that address to the facade and to Auth.
 */
export async function apiFrom(
  source: string,
  method: string,
  path: string,
  options: { json?: unknown; token?: string } = {},
): Promise<ApiResponse> {
  const answer = await requestFrom(
    source,
    method,
    `${stack.functionsUrl}${path}`,
    options.json,
    options.token ? { Authorization: `Bearer ${options.token}` } : {},
  );
  await assertDocumentedCode(method, path, answer.status, answer.body);
  await assertKeepsContract(method, path, answer.status, answer.body, answer.headers);
  return answer;
}

/** A request straight to Supabase Auth's `/auth/v1<path>` through the gateway, as supabase-js sends it, from `source`. */
export function authFrom(
  source: string,
  method: string,
  path: string,
  json?: unknown,
  token?: string,
): Promise<ApiResponse> {
  const headers: Record<string, string> = { apikey: stack.anonKey, Authorization: `Bearer ${token ?? stack.anonKey}` };
  return requestFrom(source, method, `${stack.apiUrl}/auth/v1${path}`, json, headers);
}

/** A request to `target` from the loopback address `source`, JSON in and out. */
export function requestFrom(
  source: string,
  method: string,
  target: string,
  json: unknown,
  extraHeaders: Record<string, string>,
): Promise<ApiResponse> {
  const url = new URL(target);
  const body = json === undefined ? undefined : JSON.stringify(json);
  const headers = body === undefined
    ? extraHeaders
    : { ...extraHeaders, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    const request = httpRequest({
      host: url.hostname,
      port: url.port,
      path: url.pathname + url.search,
      method,
      localAddress: source,
      headers,
    }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => {
        resolve({
          status: response.statusCode ?? 0,
          body: text ? JSON.parse(text) : undefined,
          headers: new Headers(response.headers as Record<string, string>),
        });
      });
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** `count` distinct loopback source addresses, from 127.0.0.2 on. */
export function sourceAddresses(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `127.0.0.${i + 2}`);
}
