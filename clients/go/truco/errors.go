package truco

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Domain is the ErrorInfo domain of the service's own errors.
const Domain = "truco.v1"

// Error is a call the server (or the transport) refused: the gRPC status code and the stable machine code
// (Reason) of the status' google.rpc.ErrorInfo. Compare it with errors.Is against ErrIllegalMove,
// ErrVersionConflict, ... (by code), and read Reason with errors.As:
//
//	var failure *truco.Error
//	if errors.As(err, &failure) && failure.Reason == "CARD_NOT_IN_HAND" { ... }
type Error struct {
	// Code is the gRPC status code.
	Code codes.Code
	// Reason is the ErrorInfo reason (NOT_YOUR_TURN, CARD_NOT_IN_HAND...), "" when the server sent none.
	Reason string
	// Message is the human-readable status message.
	Message string
	// Metadata is the ErrorInfo metadata (extra facts such as the current version), possibly empty.
	Metadata map[string]string
	// Domain is the ErrorInfo domain, truco.v1 for the service's own errors.
	Domain string
	// RetryDelay is how long to wait before sending the call again, from the status' google.rpc.RetryInfo (a
	// quota refusal carries one); 0 without one.
	RetryDelay time.Duration
	cause      error
}

func (e *Error) Error() string {
	if e.Reason == "" {
		return fmt.Sprintf("%s: %s", e.Code, e.Message)
	}
	return fmt.Sprintf("%s %s: %s", e.Code, e.Reason, e.Message)
}

// Unwrap returns the gRPC status error the Error was made from.
func (e *Error) Unwrap() error { return e.cause }

// Is matches the sentinel of the error's code (ErrIllegalMove for FAILED_PRECONDITION...).
func (e *Error) Is(target error) bool {
	kind, ok := target.(codeError)
	return ok && kind.code == e.Code
}

type codeError struct {
	code codes.Code
	name string
}

func (e codeError) Error() string { return e.name }

// Sentinels for errors.Is, one per status code the service uses.
var (
	// ErrInvalidArgument: INVALID_ARGUMENT, a malformed request.
	ErrInvalidArgument error = codeError{codes.InvalidArgument, "invalid argument"}
	// ErrIllegalMove: FAILED_PRECONDITION, a command the rules do not allow now (NOT_YOUR_TURN...).
	ErrIllegalMove error = codeError{codes.FailedPrecondition, "illegal move"}
	// ErrVersionConflict: ABORTED, the game moved past expected_version; nothing changed. Read the view again.
	ErrVersionConflict error = codeError{codes.Aborted, "version conflict"}
	// ErrNotFound: NOT_FOUND, no such game.
	ErrNotFound error = codeError{codes.NotFound, "not found"}
	// ErrUnauthenticated: UNAUTHENTICATED, the call needs a seat token (TOKEN_MISSING) or the token is unknown.
	ErrUnauthenticated error = codeError{codes.Unauthenticated, "unauthenticated"}
	// ErrPermissionDenied: PERMISSION_DENIED, the token does not allow this.
	ErrPermissionDenied error = codeError{codes.PermissionDenied, "permission denied"}
	// ErrResourceExhausted: RESOURCE_EXHAUSTED, a quota was used up (reason QUOTA_EXCEEDED; Metadata["quota"]
	// names it, RetryDelay says when to send the call again). The client waits and retries by itself first.
	ErrResourceExhausted error = codeError{codes.ResourceExhausted, "resource exhausted"}
	// ErrUnavailable: UNAVAILABLE after the client's retries.
	ErrUnavailable error = codeError{codes.Unavailable, "unavailable"}
	// ErrDeadlineExceeded: DEADLINE_EXCEEDED after the client's retries.
	ErrDeadlineExceeded error = codeError{codes.DeadlineExceeded, "deadline exceeded"}
)

// FromError turns an error of a gRPC call into an *Error with the first truco.v1 ErrorInfo of its status (an
// ErrorInfo of another domain when there is none). nil stays nil; an *Error is returned as it is.
func FromError(err error) error {
	if err == nil {
		return nil
	}
	var already *Error
	if errors.As(err, &already) {
		return err
	}
	st := status.Convert(err)
	failure := &Error{Code: st.Code(), Message: st.Message(), Metadata: map[string]string{}, cause: err}
	var fallback *errdetails.ErrorInfo
	for _, detail := range st.Details() {
		if retry, ok := detail.(*errdetails.RetryInfo); ok {
			failure.RetryDelay = retry.GetRetryDelay().AsDuration()
		}
		info, ok := detail.(*errdetails.ErrorInfo)
		if !ok {
			continue
		}
		if fallback == nil || (info.GetDomain() == Domain && fallback.GetDomain() != Domain) {
			fallback = info
		}
	}
	if fallback != nil {
		failure.Reason, failure.Domain = fallback.GetReason(), fallback.GetDomain()
		for key, value := range fallback.GetMetadata() {
			failure.Metadata[key] = value
		}
	}
	return failure
}

// Reason is the ErrorInfo reason of err ("" when err is not an *Error or carries none).
func Reason(err error) string {
	var failure *Error
	if errors.As(err, &failure) {
		return failure.Reason
	}
	return ""
}

// RetriedCodes are the codes errors.proto's retry policy sends a call again for, the same request with the same
// request id, with backoff and jitter (CANCELLED only when the caller did not cancel the call).
var RetriedCodes = []codes.Code{codes.Unavailable, codes.DeadlineExceeded, codes.Canceled}

// Retried reports whether errors.proto's retry policy sends the failed call again: one of RetriedCodes, or INTERNAL
// or UNKNOWN carrying no ErrorInfo of domain truco.v1 (a proxy's HTTP/2 stream reset, not the service's answer).
// RESOURCE_EXHAUSTED is sent again after its RetryInfo delay instead (Options.MaxQuotaWait).
func Retried(failure *Error) bool {
	if slices.Contains(RetriedCodes, failure.Code) {
		return true
	}
	return (failure.Code == codes.Internal || failure.Code == codes.Unknown) && failure.Domain != Domain
}
