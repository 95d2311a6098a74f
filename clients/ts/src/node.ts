/** Node transports for {@link TrucoClient}: gRPC over HTTP/2 with @connectrpc/connect-node. */
import type { Transport } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";

/**
 * A gRPC transport to `address` ("host:port", or a full "http://" / "https://" URL): plaintext unless the
 * address starts with https://.
 */
export function createNodeTransport(address: string): Transport {
  const baseUrl = /^https?:\/\//.test(address) ? address : `http://${address}`;
  return createGrpcTransport({ baseUrl });
}
