/**
 * Typed errors of the Truco service, parsed from the google.rpc.Status the server sends.
 *
 * Every failed call rejects with a {@link TrucoError} subclass chosen by the gRPC status code; `reason` is the
 * stable machine code of the status' `google.rpc.ErrorInfo` (`NOT_YOUR_TURN`, `CARD_NOT_IN_HAND`,
 * `VERSION_CONFLICT`...), empty when the server sent none (a transport failure, say).
 */
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema, RetryInfoSchema } from "./gen/google/rpc/error_details_pb.js";
import type { CommandError } from "./gen/truco/v1/game_service_pb.js";
import { type MatchTicket, TicketState } from "./gen/truco/v1/players_pb.js";

/** The ErrorInfo domain of the service's own errors. */
export const DOMAIN = "truco.v1";

/** A call the server (or the transport) refused. */
export class TrucoError extends Error {
  constructor(
    /** The gRPC status code. */
    readonly code: Code,
    /** The ErrorInfo reason, a stable machine code ("" when the server sent no ErrorInfo). */
    readonly reason: string,
    /** The human-readable status message. */
    readonly rawMessage: string,
    /** The ErrorInfo metadata (extra facts such as the current version), possibly empty. */
    readonly metadata: Readonly<Record<string, string>> = {},
    /** The ErrorInfo domain, `truco.v1` for the service's own errors. */
    readonly domain: string = DOMAIN,
    options?: { cause?: unknown; retryDelayMs?: number },
  ) {
    super(`${Code[code]}${reason ? ` ${reason}` : ""}: ${rawMessage}`, options);
    this.name = new.target.name;
    this.retryDelayMs = options?.retryDelayMs;
  }

  /**
   * Milliseconds to wait before sending the call again, from the status' google.rpc.RetryInfo (a quota refusal
   * carries one); undefined without one.
   */
  readonly retryDelayMs: number | undefined;
}

/** INVALID_ARGUMENT: a malformed request (a card that does not exist, an unset command...). */
export class InvalidArgument extends TrucoError {}
/** FAILED_PRECONDITION: a well-formed command the rules do not allow now (NOT_YOUR_TURN, CARD_NOT_IN_HAND...). */
export class IllegalMove extends TrucoError {}
/** ABORTED: the game moved past `expectedVersion`; nothing changed. Read the view again and choose again. */
export class VersionConflict extends TrucoError {}
/** NOT_FOUND: no such game (GAME_NOT_FOUND). */
export class NotFound extends TrucoError {}
/** UNAUTHENTICATED: the call needs a seat token (TOKEN_MISSING) or the token is unknown. */
export class Unauthenticated extends TrucoError {}
/** PERMISSION_DENIED: the token does not allow this (another game's token, say). */
export class PermissionDenied extends TrucoError {}
/**
 * RESOURCE_EXHAUSTED: a quota was used up (reason QUOTA_EXCEEDED; `metadata.quota` names it, `retryDelayMs` says
 * when to send the call again). The client waits and retries by itself first.
 */
export class ResourceExhausted extends TrucoError {}
/** UNAVAILABLE: the server could not be reached (after the client's retries). */
export class Unavailable extends TrucoError {}
/** DEADLINE_EXCEEDED: no answer within the call's deadline (after the client's retries, for idempotent calls). */
export class DeadlineExceeded extends TrucoError {}
/**
 * UNIMPLEMENTED, from the client itself: a PlayGame session needs a transport that streams both ways at once
 * (HTTP/2), and the client's does not (Connect or gRPC-Web over HTTP/1.1, as browsers speak). Play with
 * `submit` and `watch` instead.
 */
export class SessionUnsupported extends TrucoError {}

/**
 * A quick match that found no game: its ticket EXPIRED (its wait ran out) or was CANCELLED (by CancelMatch from
 * elsewhere, or its stream ended). Not a failed call: `ticket` is how it ended (undefined when the stream ended
 * before its first message).
 */
export class NoMatch extends Error {
  constructor(readonly ticket: MatchTicket | undefined) {
    super(`no match: the ticket ended ${ticket ? TicketState[ticket.state] : "before it opened"}`);
    this.name = new.target.name;
  }

  /** How the ticket ended (UNSPECIFIED when it never opened). */
  get state(): TicketState {
    return this.ticket?.state ?? TicketState.UNSPECIFIED;
  }
}

type ErrorClass = new (...args: ConstructorParameters<typeof TrucoError>) => TrucoError;

const CLASSES: Partial<Record<Code, ErrorClass>> = {
  [Code.InvalidArgument]: InvalidArgument,
  [Code.FailedPrecondition]: IllegalMove,
  [Code.Aborted]: VersionConflict,
  [Code.NotFound]: NotFound,
  [Code.Unauthenticated]: Unauthenticated,
  [Code.PermissionDenied]: PermissionDenied,
  [Code.ResourceExhausted]: ResourceExhausted,
  [Code.Unavailable]: Unavailable,
  [Code.DeadlineExceeded]: DeadlineExceeded,
};

/**
 * The typed error of a failed call: any thrown value becomes a {@link TrucoError} (a ConnectError keeps its code
 * and the first `truco.v1` ErrorInfo of its details; an ErrorInfo of another domain is used when there is none).
 */
export function toTrucoError(error: unknown): TrucoError {
  if (error instanceof TrucoError) {
    return error;
  }
  const connect = ConnectError.from(error);
  const retry = connect.findDetails(RetryInfoSchema)[0]?.retryDelay;
  const retryDelayMs = retry === undefined ? undefined : Number(retry.seconds) * 1000 + retry.nanos / 1e6;
  const infos = connect.findDetails(ErrorInfoSchema);
  const info = infos.find((candidate) => candidate.domain === DOMAIN) ?? infos[0];
  if (info === undefined) {
    // The server's ABORTED always carries an ErrorInfo (VERSION_CONFLICT); connect-node reports a connection reset
    // mid-call (a server gone) as ABORTED without one: that is an UNAVAILABLE, to retry.
    const code = connect.code === Code.Aborted ? Code.Unavailable : connect.code;
    const cls = CLASSES[code] ?? TrucoError;
    return new cls(code, "", connect.rawMessage, {}, "", { cause: error, retryDelayMs });
  }
  const cls = CLASSES[connect.code] ?? TrucoError;
  const options = { cause: error, retryDelayMs };
  return new cls(connect.code, info.reason, connect.rawMessage, { ...info.metadata }, info.domain, options);
}

/**
 * The typed error of a command a PlayGame stream refused (its outcome's CommandError): the same class, reason,
 * message, metadata and retry delay as SubmitCommand's failed status would have given.
 */
export function commandError(error: CommandError): TrucoError {
  const code = error.code as Code; // a google.rpc.Code number: Connect's Code has the same numbers
  const cls = CLASSES[code] ?? TrucoError;
  const delay = error.retryDelay;
  const retryDelayMs = delay === undefined ? undefined : Number(delay.seconds) * 1000 + delay.nanos / 1e6;
  const domain = error.reason ? DOMAIN : "";
  return new cls(code, error.reason, error.message, { ...error.metadata }, domain, { retryDelayMs });
}

/**
 * The codes errors.proto's retry policy sends a call again for, the same request with the same request id, with
 * backoff and jitter (CANCELLED only when the caller did not cancel the call).
 */
export const RETRIED_CODES: readonly Code[] = [Code.Unavailable, Code.DeadlineExceeded, Code.Canceled];

/**
 * Whether errors.proto's retry policy sends the failed call again: one of {@link RETRIED_CODES}, or INTERNAL or
 * UNKNOWN carrying no ErrorInfo of domain `truco.v1` (a proxy's HTTP/2 stream reset, not the service's answer).
 * RESOURCE_EXHAUSTED is sent again after its RetryInfo delay instead (`maxQuotaWaitMs`).
 */
export function isRetried(failure: TrucoError): boolean {
  if (RETRIED_CODES.includes(failure.code)) {
    return true;
  }
  return (failure.code === Code.Internal || failure.code === Code.Unknown) && failure.domain !== DOMAIN;
}
