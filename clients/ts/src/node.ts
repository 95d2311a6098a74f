/** Node transports for {@link TrucoClient}, from @connectrpc/connect-node. */
import type { Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { markFullDuplex } from "./duplex.js";

/** The wire protocol of a Node transport. */
export type Protocol = "grpc" | "connect" | "grpc-web";

/**
 * A transport to `address` ("host:port", or a full "http://" / "https://" URL; plaintext unless https://).
 * "grpc" (the default) speaks gRPC over HTTP/2 to the server's gRPC port; "connect" and "grpc-web" speak what a
 * browser would (over HTTP/1.1) to the server's web port (`truco serve --web-port`), the protocols a browser
 * transport from @connectrpc/connect-web uses, so the same client code runs in both. `httpVersion: "2"` speaks them
 * over HTTP/2 instead (the web port takes both), which a PlayGame session (`client.play`) needs: over HTTP/1.1 it
 * refuses to open, as in a browser.
 */
export function createNodeTransport(
  address: string,
  options: { protocol?: Protocol; httpVersion?: "1.1" | "2" } = {},
): Transport {
  const baseUrl = /^https?:\/\//.test(address) ? address : `http://${address}`;
  const httpVersion = options.httpVersion ?? "1.1";
  switch (options.protocol ?? "grpc") {
    case "connect":
      return markFullDuplex(createConnectTransport({ baseUrl, httpVersion }), httpVersion === "2");
    case "grpc-web":
      return markFullDuplex(createGrpcWebTransport({ baseUrl, httpVersion }), httpVersion === "2");
    default:
      return markFullDuplex(createGrpcTransport({ baseUrl }), true);
  }
}
