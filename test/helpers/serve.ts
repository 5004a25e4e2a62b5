// A fetch handler (the facade built in-process) behind a node:http server on a free loopback port, for clients
// that need a real URL: a browser.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Served {
  url: string;
  close: () => Promise<void>;
}

export async function serve(handle: (request: Request) => Response | Promise<Response>): Promise<Served> {
  const server = createServer(async (incoming, outgoing) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(incoming.headers)) {
      for (const one of [value ?? []].flat()) headers.append(name, one);
    }
    const response = await handle(
      new Request(`http://${incoming.headers.host}${incoming.url}`, {
        method: incoming.method,
        headers,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      }),
    );
    outgoing.writeHead(response.status, Object.fromEntries(response.headers));
    outgoing.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
