package uy.truco.client;

import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import uy.truco.v1.CommandError;

/**
 * A call the server (or the transport) refused: the gRPC status code and the stable machine code ({@link #reason()})
 * of the status' {@code google.rpc.ErrorInfo} ({@code NOT_YOUR_TURN}, {@code CARD_NOT_IN_HAND},
 * {@code VERSION_CONFLICT}...). The subclass says the kind: {@link IllegalMove}, {@link VersionConflict}...
 */
public class TrucoException extends RuntimeException {
  /** The ErrorInfo domain of the service's own errors. */
  public static final String DOMAIN = "truco.v1";

  private final Status.Code code;
  private final String reason;
  private final String statusMessage;
  private final Map<String, String> metadata;
  private final String domain;
  /** Nanoseconds, or -1 without a RetryInfo (no java.time here: Android has it from API 26, the Kotlin SDK's 24). */
  private long retryDelayNanos = -1;

  public TrucoException(
      Status.Code code, String reason, String message, Map<String, String> metadata, String domain, Throwable cause) {
    super(code + (reason.isEmpty() ? "" : " " + reason) + ": " + message, cause);
    this.code = code;
    this.reason = reason;
    this.statusMessage = message;
    this.metadata = Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
    this.domain = domain;
  }

  /** The gRPC status code. */
  public Status.Code code() { return code; }

  /** The ErrorInfo reason, a stable machine code ("" when the server sent no ErrorInfo). */
  public String reason() { return reason; }

  /** The human-readable status message. */
  public String statusMessage() { return statusMessage; }

  /** The ErrorInfo metadata (extra facts such as the current version), possibly empty. */
  public Map<String, String> metadata() { return metadata; }

  /** The ErrorInfo domain, truco.v1 for the service's own errors. */
  public String domain() { return domain; }

  /**
   * How long to wait before sending the call again, from the status' {@code google.rpc.RetryInfo} (a quota refusal
   * carries one); null without one.
   */
  @JvmOnly
  public Duration retryDelay() { return retryDelayNanos < 0 ? null : Duration.ofNanos(retryDelayNanos); }

  /**
   * {@link #retryDelay()} in nanoseconds, -1 without a RetryInfo: the same delay without {@code java.time}, which
   * Android has only from API 26 (the Kotlin SDK reads this one).
   */
  public long retryDelayNanos() { return retryDelayNanos; }

  /**
   * Whether the call failed because the connection did, not because the service refused it: UNAVAILABLE, a CANCELLED
   * the caller did not ask for, or an UNKNOWN without the service's ErrorInfo (grpc-java reports a connection closed
   * under a call, as on a server restart, as "UNKNOWN: channel closed"; the service's own errors always carry a
   * reason). Such a call is safe to send again: writes carry their request id.
   */
  public boolean connectionLost() {
    return code == Status.Code.UNAVAILABLE || code == Status.Code.CANCELLED
        || (code == Status.Code.UNKNOWN && !DOMAIN.equals(domain));
  }

  /**
   * The codes errors.proto's retry policy sends a call again for, the same request with the same request id, with
   * backoff and jitter (CANCELLED only when the caller did not cancel the call).
   */
  public static final Set<Status.Code> RETRIED_CODES =
      Collections.unmodifiableSet(EnumSet.of(Status.Code.UNAVAILABLE, Status.Code.DEADLINE_EXCEEDED, Status.Code.CANCELLED));

  /**
   * Whether errors.proto's retry policy sends the failed call again: one of {@link #RETRIED_CODES}, or INTERNAL or
   * UNKNOWN carrying no ErrorInfo of domain {@code truco.v1} (a proxy's HTTP/2 stream reset, or grpc-java's
   * "channel closed": not the service's answer). RESOURCE_EXHAUSTED is sent again after its RetryInfo delay instead.
   */
  public boolean retried() {
    return RETRIED_CODES.contains(code)
        || ((code == Status.Code.INTERNAL || code == Status.Code.UNKNOWN) && !DOMAIN.equals(domain));
  }

  /** INVALID_ARGUMENT: a malformed request. */
  public static class InvalidArgument extends TrucoException {
    InvalidArgument(Status.Code c, String r, String m, Map<String, String> md, String d, Throwable t) { super(c, r, m, md, d, t); }
  }

  /** FAILED_PRECONDITION: a well-formed command the rules do not allow now (NOT_YOUR_TURN, CARD_NOT_IN_HAND...). */
  public static class IllegalMove extends TrucoException {
    IllegalMove(Status.Code c, String r, String m, Map<String, String> md, String d, Throwable t) { super(c, r, m, md, d, t); }
  }

  /** ABORTED: the game moved past expected_version; nothing changed. Read the view again and choose again. */
  public static class VersionConflict extends TrucoException {
    VersionConflict(Status.Code c, String r, String m, Map<String, String> md, String d, Throwable t) { super(c, r, m, md, d, t); }
  }

  /** NOT_FOUND: no such game. */
  public static class NotFound extends TrucoException {
    NotFound(Status.Code c, String r, String m, Map<String, String> md, String d, Throwable t) { super(c, r, m, md, d, t); }
  }

  /** UNAUTHENTICATED: the call needs a seat token (TOKEN_MISSING) or the token is unknown. */
  public static class Unauthenticated extends TrucoException {
    Unauthenticated(Status.Code c, String r, String m, Map<String, String> md, String d, Throwable t) { super(c, r, m, md, d, t); }
  }

  /** PERMISSION_DENIED: the token does not allow this. */
  public static class PermissionDenied extends TrucoException {
    PermissionDenied(Status.Code c, String r, String m, Map<String, String> md, String d, Throwable t) { super(c, r, m, md, d, t); }
  }

  /** RESOURCE_EXHAUSTED: a limit was reached. */
  public static class ResourceExhausted extends TrucoException {
    ResourceExhausted(Status.Code c, String r, String m, Map<String, String> md, String d, Throwable t) { super(c, r, m, md, d, t); }
  }

  /** UNAVAILABLE (after the client's retries). */
  public static class Unavailable extends TrucoException {
    Unavailable(Status.Code c, String r, String m, Map<String, String> md, String d, Throwable t) { super(c, r, m, md, d, t); }
  }

  /** DEADLINE_EXCEEDED (after the client's retries). */
  public static class DeadlineExceeded extends TrucoException {
    DeadlineExceeded(Status.Code c, String r, String m, Map<String, String> md, String d, Throwable t) { super(c, r, m, md, d, t); }
  }

  /**
   * The typed error of a failed call, with the first truco.v1 ErrorInfo of its google.rpc.Status (an ErrorInfo of
   * another domain when there is none). A TrucoException is returned as it is.
   */
  public static TrucoException from(Throwable error) {
    if (error instanceof TrucoException already) {
      return already;
    }
    Status status = Status.fromThrowable(error);
    boolean grpc = error instanceof StatusRuntimeException || error instanceof io.grpc.StatusException;
    Metadata trailers = grpc ? Status.trailersFromThrowable(error) : null;
    RichStatus rich = RichStatus.parse(trailers == null ? null : trailers.get(RichStatus.DETAILS_KEY), DOMAIN);
    Status.Code code = status.getCode();
    String message = status.getDescription() == null ? "" : status.getDescription();
    String reason = rich.info == null ? "" : rich.info.reason;
    String domain = rich.info == null ? "" : rich.info.domain;
    return of(code, reason, message, rich.metadata(), domain, rich.retryDelayNanos, error);
  }

  /**
   * The typed error of a command a PlayGame session's server refused (its outcome's {@code CommandError}): the same
   * class, reason, metadata and retry delay as {@link #from(Throwable)} gives for the SubmitCommand status it stands
   * for (domain {@link #DOMAIN}).
   */
  public static TrucoException from(CommandError error) {
    long retryDelay = error.hasRetryDelay() ? nanos(error.getRetryDelay()) : -1;
    return of(Status.fromCodeValue(error.getCode()).getCode(), error.getReason(), error.getMessage(),
        error.getMetadataMap(), DOMAIN, retryDelay, null);
  }

  /** The subclass of {@code code}, with its facts. */
  static TrucoException of(Status.Code code, String reason, String message, Map<String, String> metadata,
      String domain, long retryDelayNanos, Throwable error) {
    TrucoException failure = switch (code) {
      case INVALID_ARGUMENT -> new InvalidArgument(code, reason, message, metadata, domain, error);
      case FAILED_PRECONDITION -> new IllegalMove(code, reason, message, metadata, domain, error);
      case ABORTED -> new VersionConflict(code, reason, message, metadata, domain, error);
      case NOT_FOUND -> new NotFound(code, reason, message, metadata, domain, error);
      case UNAUTHENTICATED -> new Unauthenticated(code, reason, message, metadata, domain, error);
      case PERMISSION_DENIED -> new PermissionDenied(code, reason, message, metadata, domain, error);
      case RESOURCE_EXHAUSTED -> new ResourceExhausted(code, reason, message, metadata, domain, error);
      case UNAVAILABLE -> new Unavailable(code, reason, message, metadata, domain, error);
      case DEADLINE_EXCEEDED -> new DeadlineExceeded(code, reason, message, metadata, domain, error);
      default -> new TrucoException(code, reason, message, metadata, domain, error);
    };
    failure.retryDelayNanos = retryDelayNanos;
    return failure;
  }

  private static long nanos(com.google.protobuf.Duration delay) {
    return Math.max(0, delay.getSeconds() * 1_000_000_000L + delay.getNanos());
  }
}
