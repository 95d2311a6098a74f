/** Node transports for {@link TrucoClient}, from @connectrpc/connect-node. */
import type { Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";

/** The wire protocol of a Node transport. */
export type Protocol = "grpc" | "connect" | "grpc-web";

/**
 * A transport to `address` ("host:port", or a full "http://" / "https://" URL; plaintext unless https://).
 * "grpc" (the default) speaks gRPC over HTTP/2 to the server's gRPC port; "connect" and "grpc-web" speak what a
 * browser would (over HTTP/1.1) to the server's web port (`truco serve --web-port`), the protocols a browser
 * transport from @connectrpc/connect-web uses, so the same client code runs in both.
 */
export function createNodeTransport(address: string, options: { protocol?: Protocol } = {}): Transport {
  const baseUrl = /^https?:\/\//.test(address) ? address : `http://${address}`;
  switch (options.protocol ?? "grpc") {
    case "connect":
      return createConnectTransport({ baseUrl, httpVersion: "1.1" });
    case "grpc-web":
      return createGrpcWebTransport({ baseUrl, httpVersion: "1.1" });
    default:
      return createGrpcTransport({ baseUrl });
  }
}
