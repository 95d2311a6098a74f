/**
 * Which transports stream both ways at once (HTTP/2), as `createNodeTransport` made them: a PlayGame session needs
 * it. A transport is opaque (two functions), so its maker records it here and the client reads it.
 */
import type { Transport } from "@connectrpc/connect";

const fullDuplex = new WeakMap<Transport, boolean>();

/** Records whether `transport` streams both ways at once; returns it. */
export function markFullDuplex<T extends Transport>(transport: T, value: boolean): T {
  fullDuplex.set(transport, value);
  return transport;
}

/** Whether `transport` streams both ways at once, if its maker said; undefined otherwise. */
export function fullDuplexOf(transport: Transport): boolean | undefined {
  return fullDuplex.get(transport);
}
