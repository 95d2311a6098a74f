package uy.truco.client;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import io.grpc.Metadata;
import java.io.IOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The details of a failed call's {@code google.rpc.Status} (its {@code grpc-status-details-bin} trailer) that the
 * SDK reads: the {@code ErrorInfo}s and the {@code RetryInfo}. Decoded field by field with the protobuf runtime's
 * {@link CodedInputStream}, which protobuf-java and protobuf-javalite both have, so that one source serves the full
 * SDK and its javalite flavour: the google.rpc classes come only with protobuf-java (proto-google-common-protos),
 * and a lite copy of them in an app's jar would clash with any other library's. Field numbers are google.rpc's.
 */
final class RichStatus {
  /** The trailer gRPC servers put the serialized google.rpc.Status in. */
  static final Metadata.Key<byte[]> DETAILS_KEY =
      Metadata.Key.of("grpc-status-details-bin", Metadata.BINARY_BYTE_MARSHALLER);

  private static final String ERROR_INFO = "google.rpc.ErrorInfo";
  private static final String RETRY_INFO = "google.rpc.RetryInfo";

  /** One google.rpc.ErrorInfo: reason, domain, metadata. */
  static final class ErrorInfo {
    String reason = "";
    String domain = "";
    final Map<String, String> metadata = new LinkedHashMap<>();
  }

  /** The ErrorInfo chosen: the first of domain {@code preferred}, else the first of any domain; null without one. */
  ErrorInfo info;
  /** The RetryInfo's delay in nanoseconds; -1 without a RetryInfo. */
  long retryDelayNanos = -1;

  private RichStatus() {}

  /** The details of a status' trailer bytes (null or unreadable bytes: no details). */
  static RichStatus parse(byte[] status, String preferred) {
    RichStatus found = new RichStatus();
    if (status == null) {
      return found;
    }
    try {
      CodedInputStream in = CodedInputStream.newInstance(status);
      for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
        if (WireFormat.getTagFieldNumber(tag) == 3) { // Status.details: repeated Any
          found.detail(in.readBytes(), preferred);
        } else {
          in.skipField(tag);
        }
      }
    } catch (IOException unreadable) {
      // details that do not parse: keep what was read (the code and message come from the status itself)
    }
    return found;
  }

  private void detail(ByteString any, String preferred) throws IOException {
    String type = "";
    ByteString value = ByteString.EMPTY;
    CodedInputStream in = any.newCodedInput();
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      switch (WireFormat.getTagFieldNumber(tag)) {
        case 1 -> type = in.readStringRequireUtf8(); // Any.type_url
        case 2 -> value = in.readBytes(); // Any.value
        default -> in.skipField(tag);
      }
    }
    String name = type.substring(type.lastIndexOf('/') + 1);
    if (name.equals(RETRY_INFO)) {
      retryDelayNanos = retryDelay(value);
    } else if (name.equals(ERROR_INFO)) {
      ErrorInfo candidate = errorInfo(value);
      if (info == null || (preferred.equals(candidate.domain) && !preferred.equals(info.domain))) {
        info = candidate;
      }
    }
  }

  private static ErrorInfo errorInfo(ByteString value) throws IOException {
    ErrorInfo info = new ErrorInfo();
    CodedInputStream in = value.newCodedInput();
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      switch (WireFormat.getTagFieldNumber(tag)) {
        case 1 -> info.reason = in.readStringRequireUtf8();
        case 2 -> info.domain = in.readStringRequireUtf8();
        case 3 -> entry(in.readBytes(), info.metadata); // map<string, string>: entries of key 1, value 2
        default -> in.skipField(tag);
      }
    }
    return info;
  }

  private static void entry(ByteString bytes, Map<String, String> into) throws IOException {
    String key = "";
    String value = "";
    CodedInputStream in = bytes.newCodedInput();
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      switch (WireFormat.getTagFieldNumber(tag)) {
        case 1 -> key = in.readStringRequireUtf8();
        case 2 -> value = in.readStringRequireUtf8();
        default -> in.skipField(tag);
      }
    }
    into.put(key, value);
  }

  /** RetryInfo.retry_delay (field 1), a google.protobuf.Duration (seconds 1, nanos 2), in nanoseconds. */
  private static long retryDelay(ByteString value) throws IOException {
    long seconds = 0;
    int nanos = 0;
    CodedInputStream in = value.newCodedInput();
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      if (WireFormat.getTagFieldNumber(tag) != 1) {
        in.skipField(tag);
        continue;
      }
      CodedInputStream duration = in.readBytes().newCodedInput();
      for (int inner = duration.readTag(); inner != 0; inner = duration.readTag()) {
        switch (WireFormat.getTagFieldNumber(inner)) {
          case 1 -> seconds = duration.readInt64();
          case 2 -> nanos = duration.readInt32();
          default -> duration.skipField(inner);
        }
      }
    }
    return Math.max(0, seconds * 1_000_000_000L + nanos);
  }

  /** The metadata of the chosen ErrorInfo, unmodifiable (empty without one). */
  Map<String, String> metadata() {
    return info == null ? Collections.<String, String>emptyMap() : info.metadata;
  }
}
