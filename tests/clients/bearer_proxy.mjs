// A loopback reverse proxy that adds the operator's bearer token to every request it forwards.
//
// The conformance runner's server mode has no option for request headers, and `ck3raven serve --transport
// http` answers 401 to a request without its token. This proxy stands where an operator's configured client
// would: it forwards method, path, headers (Host and Origin untouched, so the server's DNS-rebinding door
// still judges what the runner sent) and body, streams the response back (SSE included), and only adds
// `Authorization: Bearer <token>` when the request carries none.
//
// Usage: node bearer_proxy.mjs <upstream port> <token file>
// Prints `listening <port>` on stdout once it listens on 127.0.0.1 (an ephemeral port), then runs until killed.

import { readFileSync } from "node:fs";
import http from "node:http";

const [upstreamPort, tokenFile] = process.argv.slice(2);
if (!upstreamPort || !tokenFile) {
  console.error("usage: node bearer_proxy.mjs <upstream port> <token file>");
  process.exit(2);
}
const token = readFileSync(tokenFile, "utf8").trim();

const server = http.createServer((request, response) => {
  const headers = { ...request.headers };
  if (!headers.authorization) {
    headers.authorization = `Bearer ${token}`;
  }
  const upstream = http.request(
    {
      host: "127.0.0.1",
      port: Number(upstreamPort),
      method: request.method,
      path: request.url,
      headers,
      setHost: false,
    },
    (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      response.flushHeaders();
      answer.pipe(response);
    },
  );
  upstream.on("error", (error) => {
    if (!response.headersSent) {
      response.writeHead(502, { "content-type": "text/plain" });
    }
    response.end(`bearer_proxy: ${error.message}`);
  });
  response.on("close", () => upstream.destroy());
  request.pipe(upstream);
});

server.listen(0, "127.0.0.1", () => {
  console.log(`listening ${server.address().port}`);
});
