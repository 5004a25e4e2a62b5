// The local stand-in for hosted Supabase's API gateway: Debian's nginx (the Supabase CLI runs Kong, itself
// built on nginx), giving one origin where Auth answers under /auth/v1, PostgREST under /rest/v1 and Edge
// Functions under /functions/v1, as on a hosted project. A proxy written in C, so that the hop costs little of the two
// cores the whole stack shares (docs/PERFORMANCE.md, "The facade's own cost").
import { join } from 'node:path';
import { notUtf8Message } from '../../functions/api/lib/utf8.ts';
import { ensureDebianPackages } from './apt.ts';
import { repoRoot } from './config.ts';
import { asClusterOwner, giveToClusterOwner } from './postgres.ts';
import { logPath, spawnReady } from './processes.ts';
import { supervise } from './supervisor.ts';

const nginxBinary = '/usr/sbin/nginx';
/** njs, nginx's JavaScript module: the check that a request is UTF-8 (gateway-utf8.js). */
const njsModule = '/usr/lib/nginx/modules/ngx_http_js_module.so';
const utf8Check = join(repoRoot, 'supabase', 'stack', 'gateway-utf8.js');

export async function ensureNginxInstalled(logDir: string): Promise<void> {
  await ensureDebianPackages('nginx', ['nginx', 'libnginx-mod-http-js'], [nginxBinary, njsModule], logDir);
}

export interface GatewayInput {
  port: number;
  auth: string;
  functions: string;
  rest: string;
  /** The project's API keys (anon, service_role): /rest/v1 takes a request only with one of them. */
  apiKeys: string[];
  /** The one API key whose holder may name the client in Sb-Forwarded-For (hosted: a secret key). */
  forwardingKey: string;
  /** Where its configuration and scratch files live. */
  dir: string;
  logDir: string;
}

/** A string as nginx reads it in double quotes (the JSON bodies below hold no `$` but the variables meant). */
function quoted(text: string): string {
  return `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

/** An answer in the project's error envelope (JSON: the server's default type). `message` may name nginx variables. */
function failure(status: number, code: string, message: string): string {
  return `return ${status} ${quoted(JSON.stringify({ error: { code, message } }))};`;
}

const nothingHere = failure(
  404,
  'not_found',
  'Nothing at $request_method $shown_path: this origin serves /auth/v1, /rest/v1 and /functions/v1',
);

/**
 * What nginx refuses itself, before any service sees the request, answered in the envelope rather than in its
 * HTML pages: a malformed request (an encoded NUL byte in the path, a header too large), a request line over
 * 16 KiB, TRACE, a body over the gateway's bound, a path it does not serve, a service silent for 300 s.
 * Repeated in each location that sets an error page of its own (nginx inherits error_page only where a level
 * sets none).
 */
const refusals = `
      error_page 400 494 /.gateway/malformed;
      error_page 405 /.gateway/method_not_allowed;
      error_page 413 /.gateway/too_large;
      error_page 414 /.gateway/path_too_long;
      error_page 501 /.gateway/malformed;
      error_page 504 /.gateway/timeout;
      error_page 404 = @nothing;`;

// Internal locations (a request whose path could not be read has no named location to go to).
const refusalAnswers = `
    location = /.gateway/malformed { internal; ${
  failure(
    400,
    'bad_request',
    'The request is malformed: its path or its headers cannot be read (an encoded NUL byte, a header over 16 KiB)',
  )
} }
    location = /.gateway/method_not_allowed { internal; ${
  failure(405, 'method_not_allowed', 'The gateway does not pass this method on (TRACE)')
} }
    location = /.gateway/too_large { internal; ${
  failure(413, 'payload_too_large', 'The request body is larger than 8 MiB')
} }
    location = /.gateway/path_too_long { internal; ${
  failure(414, 'path_too_long', 'The request path is longer than 16 KiB')
} }
    location = /.gateway/timeout { internal; ${
  failure(504, 'gateway_timeout', 'The service did not answer within 300 s')
} }`;

/**
 * A request whose path, query (once its %XX escapes are read) or a header is not UTF-8 (%FF, a lone byte of a
 * character, an encoded surrogate), answered before any service reads it (PostgREST would answer a plain-text
 * 500), as the facade answers it itself (functions/api/lib/utf8.ts).
 */
const notUtf8 = failure(400, 'invalid_encoding', notUtf8Message);

/** The headers every upstream gets: the client's address as the gateway saw it, never one the client claimed. */
const forwardedHeaders = `
      proxy_set_header Host $http_host;
      proxy_set_header Connection "";
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_set_header Sb-Forwarded-For $sb_forwarded_for;`;

/**
 * CORS as a hosted project's API gateway does it. The Supabase CLI's gateway (Kong, supabase/cli
 * internal/start/templates/kong.yml) puts Kong's `cors` plugin, unconfigured, on /auth/v1, /rest/v1 and
 * /storage/v1 (also /graphql/v1, /realtime/v1), not on /functions/v1, whose function answers its own preflight
 * (here the facade's `cors()`, functions/api/app.ts), as on a hosted project. Kong's plugin
 * (Kong/kong kong/plugins/cors/handler.lua), with no origins, methods or headers configured, runs before any key
 * check (priority 2000, key-auth 1250) and:
 * - answers a preflight (OPTIONS with Origin and Access-Control-Request-Method) itself, 200 with
 *   `Access-Control-Allow-Origin: *`, the methods below, and the request's Access-Control-Request-Headers as
 *   `Access-Control-Allow-Headers` (so apikey, x-client-info, Prefer… whatever supabase-js sends); no Max-Age;
 * - sets `Access-Control-Allow-Origin: *` on every other answer, the service's and its own (a 401 of key-auth).
 * Here every answer the gateway gives itself carries it too (404, 503, 400…), /functions/v1's included.
 */
const allowOrigin = 'add_header Access-Control-Allow-Origin "*" always;';
const preflight = `
      if ($cors_preflight) {
        ${allowOrigin}
        add_header Access-Control-Allow-Methods "GET,HEAD,PUT,PATCH,POST,DELETE,OPTIONS,TRACE,CONNECT" always;
        add_header Access-Control-Allow-Headers $http_access_control_request_headers always;
        return 200;
      }`;
/**
 * A service's own Access-Control-Allow-Origin gives way to the gateway's (Kong's plugin sets it over the
 * service's): an answer must not carry two. Supabase Auth's `Access-Control-Allow-Credentials: true` goes too: no
 * credentials travel here (keys and tokens are headers, never cookies), and a browser refuses it beside `*`.
 * The services' Access-Control-Expose-Headers stay theirs.
 */
const serviceCors = `
      proxy_hide_header Access-Control-Allow-Origin;
      proxy_hide_header Access-Control-Allow-Credentials;
      ${allowOrigin}`;

/**
 * The same answer with the headers every answer of the facade carries, so that a function's client meets its
 * OpenAPI document here too (a request id, nothing to keep); an `add_header` in an `if` drops the location's own,
 * hence CORS again.
 */
const notUtf8Function = `add_header X-Request-Id $request_id always;
        add_header Cache-Control no-store always;
        ${allowOrigin}
        ${notUtf8}`;

/**
 * `prefix` forwarded to the upstream `name` without the prefix. The path is the client's own, as sent (not
 * nginx's decoded and normalised one); a path that only normalises into the prefix ("/x/../rest/v1/…") is not
 * the prefix's and is refused.
 */
function route(prefix: string, name: string, service: string, extra = ''): string {
  return `
    location ${prefix}/ {
      if ($${name}_path = "") { ${nothingHere} }
      if ($not_utf8) { ${name === 'functions' ? notUtf8Function : notUtf8} }${extra}${forwardedHeaders}${serviceCors}
      proxy_pass http://${name}$${name}_path;
      error_page 502 = @${name}_down;${refusals}
    }
    location @${name}_down { ${failure(503, 'service_unavailable', `${service} is not running in this local stack`)} }`;
}

function upstream(name: string, url: string, prefix: string): string {
  const { host } = new URL(url);
  return `
  upstream ${name} { server ${host}; keepalive 32; }
  map $request_uri $${name}_path { "~^${prefix}(?<rest>/.*)$" $rest; default ""; }`;
}

export function nginxConfig(input: GatewayInput): string {
  const keys = input.apiKeys.map((key) => `    ${quoted(key)} ok;`).join('\n');
  const scratch = (name: string) => `${name}_temp_path ${join(input.dir, name)};`;
  return `# Written by supabase/stack/gateway.ts at every start: edit that file, not this one.
load_module ${njsModule};
daemon off;
# One process: a local stand-in, stopped and restarted by the stack's supervisor as one pid.
master_process off;
pid ${join(input.dir, 'nginx.pid')};
error_log stderr warn;
events { worker_connections 4096; }
http {
  access_log off;
  # What the gateway answers itself is JSON, whatever the path's extension (an e-mail template says otherwise).
  types { }
  default_type application/json;
  ${scratch('client_body')} ${scratch('proxy')} ${scratch('fastcgi')} ${scratch('uwsgi')} ${scratch('scgi')}
  # Each service sets its own limits (the facade refuses a body over 64 KiB); this one only bounds what the
  # gateway reads and throws away after a service answered early.
  client_max_body_size 8m;
  # Bodies and answers stream through, as the services send them.
  proxy_request_buffering off;
  proxy_buffering off;
  # A client that goes away does not cut the service's work short: the facade would cancel its statement, and a
  # cancel sent through the transaction pooler can land on another request's statement on the same server
  # connection (a 504 for an innocent read, seen in the suite).
  proxy_ignore_client_abort on;
  proxy_http_version 1.1;
  proxy_read_timeout 300s;
  proxy_send_timeout 300s;
  proxy_redirect off;
  merge_slashes off;
  # Room for the API keys (JWTs) as map keys.
  map_hash_bucket_size 256;
  # "1" when the request is not UTF-8 (gateway-utf8.js), read by the routes only.
  js_import utf8 from ${quoted(utf8Check)};
  js_set $not_utf8 utf8.malformed;

  # /rest/v1 as the hosted gateway guards it: a request names the project with an API key in the apikey header.
  map $http_apikey $api_key {
    "" none;
${keys}
    default invalid;
  }
  # Only a holder of the secret key may name the client in Sb-Forwarded-For (hosted: IP address forwarding on).
  map $http_apikey $sb_forwarded_for {
    ${quoted(input.forwardingKey)} $http_sb_forwarded_for;
    default "";
  }
  # A /rest/v1 request without a user token runs as its API key's role, the key then being the bearer.
  map $http_authorization $rest_authorization {
    "" "Bearer $http_apikey";
    default $http_authorization;
  }
  # A CORS preflight, as Kong's cors plugin tells one: OPTIONS with an Origin and an Access-Control-Request-Method.
  map "$request_method $http_access_control_request_method" $cors_request {
    "~^OPTIONS ." 1;
    default "";
  }
  map "$cors_request$http_origin" $cors_preflight {
    "~^1." 1;
    default "";
  }
  # The path in an error message, when it holds nothing JSON would have to escape.
  map $uri $shown_path {
    "~^[A-Za-z0-9/._~-]*$" $uri;
    default "that path";
  }
${upstream('auth', input.auth, '/auth/v1')}
${upstream('functions', input.functions, '/functions/v1')}
${upstream('rest', input.rest, '/rest/v1')}

  server {
    listen 127.0.0.1:${input.port};
    large_client_header_buffers 4 16k;
    # Every answer the gateway gives itself (refusals, 404, 503) may be read by a page on another origin, and
    # carries what every answer of the function does (its OpenAPI document says so): a request id, nothing to keep.
    # (A location that adds headers of its own, as each service's does, inherits none of these.)
    ${allowOrigin}
    add_header X-Request-Id $request_id always;
    add_header Cache-Control no-store always;${refusals.replaceAll('\n      ', '\n    ')}${refusalAnswers}
${route('/auth/v1', 'auth', 'Supabase Auth', preflight)}
${route('/functions/v1', 'functions', 'The api function')}
${
    route(
      '/rest/v1',
      'rest',
      'PostgREST',
      `${preflight}
      if ($api_key = none) { ${
        failure(401, 'no_api_key', "No API key found in the request: send the project's anon key in the apikey header")
      } }
      if ($api_key = invalid) { ${
        failure(401, 'invalid_api_key', 'Invalid API key: use one of the keys `npm start` prints')
      } }
      proxy_set_header Authorization $rest_authorization;`,
    )
  }
    # Storage is not part of the local stack (docs/OPERATIONS.md): its preflights are answered as a hosted project's
    # are, so that a browser reads the 404 that follows rather than failing the request.
    location /storage/v1/ {${preflight}
      ${nothingHere}
    }
    location ~ "^/(auth|functions|rest)/v1$" { ${nothingHere} }
    location / { ${nothingHere} }
    location @nothing { ${nothingHere} }
  }
}
`;
}

/** Starts the gateway under supervision (as the clusters' owner when run as root, as PgBouncer). */
export async function startGateway(input: GatewayInput): Promise<void> {
  await ensureNginxInstalled(input.logDir);
  await Deno.mkdir(input.dir, { recursive: true });
  const config = join(input.dir, 'nginx.conf');
  await Deno.writeTextFile(config, nginxConfig(input));
  await giveToClusterOwner(input.dir);
  const [command, args] = asClusterOwner(nginxBinary, ['-e', 'stderr', '-p', input.dir, '-c', config]);
  const ready = async () => {
    const response = await fetch(`http://127.0.0.1:${input.port}/`);
    await response.body?.cancel();
    return true;
  };
  await supervise({
    name: 'gateway',
    logFile: logPath(input.logDir, 'gateway'),
    start: () =>
      spawnReady('gateway', command, { args, logDir: input.logDir }, { what: 'the gateway (nginx)', check: ready }),
  });
}
