// A webhook receiver on 127.0.0.1 for a test file: every POST it receives (path and body), each
// answered 200. Started before the file's tests, closed after.
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll } from "vitest";

export interface Received {
  url: string;
  body: string;
}

export function useWebhookReceiver(): { readonly received: Received[]; readonly port: number } {
  const received: Received[] = [];
  let server: Server | undefined;
  let port = 0;
  beforeAll(async () => {
    const listening = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        received.push({ url: req.url ?? "", body });
        res.end("ok");
      });
    });
    await new Promise<void>((resolve) => listening.listen(0, "127.0.0.1", resolve));
    const address = listening.address();
    port = typeof address === "object" && address ? address.port : 0;
    server = listening;
  });
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        if (server)
          server.close(() => {
            resolve();
          });
        else resolve();
      }),
  );
  return {
    received,
    get port() {
      return port;
    },
  };
}
