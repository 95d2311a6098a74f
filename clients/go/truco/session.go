package truco

import (
	"context"
	"errors"
	"io"
	"iter"
	"sync"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"

	trucov1 "github.com/truco-uy/truco/clients/go/gen/truco/v1"
)

// ErrSessionClosed is what a Session's Submit returns once Close was called (or was waiting when it was).
var ErrSessionClosed = errors.New("truco: the session is closed")

// PlayOptions tune Play.
type PlayOptions struct {
	// OnResume is called each time a broken stream is reopened, with the version it resumes after and the
	// failure that broke it (as WatchOptions.OnResume). It runs on the session's receiving goroutine: keep it
	// short, and do not call the session's Submit from it.
	OnResume func(afterVersion int64, err error)
}

// playStream is one PlayGame call.
type playStream = grpc.BidiStreamingClient[trucov1.PlayGameRequest, trucov1.PlayGameResponse]

// pendingCommand is a command sent (or to be sent) on the session, waiting for its outcome.
type pendingCommand struct {
	command *trucov1.PlayGameCommand
	outcome chan *trucov1.PlayGameOutcome // buffered: the receiving goroutine never blocks on it
}

// Session is a seat's match on one PlayGame stream (Client.Play): commands go in with Submit, the game's commits
// come out of Commits (or Events, one event at a time), and the stream is reopened by itself when it breaks. It
// replaces the pair of Submit and WatchCommits and costs the server less per move (no call per command).
//
// It needs HTTP/2 end to end (native gRPC, as Dial makes): a browser transport (Connect or gRPC-Web over
// HTTP/1.1) has no full-duplex streams, so there use Submit and Watch.
//
// A Session is safe for concurrent use: Submit may be called from any goroutine, including from inside the
// Commits loop (the session keeps receiving, and queueing commits, while the loop body runs). Commits and
// Events hand each commit once: iterate one of them, from one goroutine. Close it when done.
type Session struct {
	client  *Client
	name    string
	options PlayOptions
	ctx     context.Context
	cancel  context.CancelFunc

	// sendMu orders the messages sent: a command and the resending of the pending ones after a reopen never
	// interleave, so the server applies commands in the order Submit sent them.
	sendMu sync.Mutex

	mu      sync.Mutex
	stream  playStream // the open stream; nil while it is being reopened
	pending []*pendingCommand
	commits []*trucov1.WatchGameResponse // received, not yet handed on
	last    int64                        // the version of the last event received
	ended   bool
	closed  bool
	// failure is what ended the session, yielded by Commits: nil when the match ended, Close or ctx.
	failure error
	// refusal is what a Submit waiting (or sent later) fails with once the session ended.
	refusal error
	wake    chan struct{} // a commit was queued (capacity 1)
	done    chan struct{} // closed when the session ends
}

// Play opens a PlayGame stream for the game name and sends its start: the commits after afterVersion (0: from the
// start; usually the version of the view the seat last saw), then every new one. The seat is this client's (its
// token); a client without one is a spectator, whose commands are refused (ErrUnauthenticated TOKEN_MISSING).
//
// Opening is retried as a unary call's attempt is (UNAVAILABLE with backoff, up to Options.Retries times);
// Play fails when the stream cannot be opened, and the errors the server sends on it (NOT_FOUND...) come
// from Commits. Once open, the session lives until the server ends the stream after the commit that ends the
// match, ctx is cancelled, Close is called, or the stream breaks beyond the client's retries.
//
// A stream broken by UNAVAILABLE (the server's SERVER_SHUTTING_DOWN, a restart, a dropped connection, a
// proxy's RST_STREAM) or a CANCELLED the caller did not ask for is reopened, as Watch reopens its stream, after
// the version of the last event received, up to Options.Retries times in a row with backoff (a stream a quota
// refused, after its RetryInfo delay), and every command still waiting for its outcome is sent again with its
// request id (the server applies a request id once). options.OnResume is called before each reopening.
func (c *Client) Play(ctx context.Context, name string, afterVersion int64, options PlayOptions) (*Session, error) {
	sessionCtx, cancel := context.WithCancel(ctx)
	s := &Session{
		client:  c,
		name:    GameName(name),
		options: options,
		ctx:     sessionCtx,
		cancel:  cancel,
		last:    afterVersion,
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	var stream playStream
	for attempt := 0; ; attempt++ {
		var err error
		if stream, err = s.open(); err == nil {
			break
		}
		failure := FromError(err).(*Error)
		wait, again := c.retryWait(ctx, attempt, failure)
		if !again {
			cancel()
			return nil, failure
		}
		select {
		case <-ctx.Done():
			cancel()
			return nil, FromError(ctx.Err())
		case <-time.After(wait):
		}
	}
	go s.run(stream)
	return s, nil
}

// Name is the game the session plays (games/{id}).
func (s *Session) Name() string { return s.name }

// Done is closed when the session has ended (match over, Close, ctx, or a failure Commits yields).
func (s *Session) Done() <-chan struct{} { return s.done }

// Submit sends a command for the session's seat, chosen at expectedVersion (0 skips the check), with a fresh
// request id, and returns the game's version after it (which counts as seen, as with Client.Submit).
//
// A refused command is the *Error Client.Submit would return (ErrIllegalMove with its Reason,
// ErrVersionConflict, ...); it ends nothing: the session goes on. A command a quota refused is sent again by
// the session, with the same request id, after the server's RetryInfo delay when it is at most
// Options.MaxQuotaWait (up to Options.Retries times). While the stream is being reopened the command waits, and
// is sent again on the new stream. Submit waits until the outcome arrives, the session ends (a command whose
// outcome never came when the match ended fails with ErrIllegalMove MATCH_OVER; after Close, ErrSessionClosed)
// or ctx is done: the session gives it no deadline of its own.
func (s *Session) Submit(ctx context.Context, command *trucov1.Command, expectedVersion int64) (int64, error) {
	return s.SubmitWithID(ctx, command, expectedVersion, NewRequestID())
}

// SubmitWithID is Submit with the caller's request id (the same id sent again, on this stream or any other or
// to SubmitCommand, applies the command once and answers the same outcome).
func (s *Session) SubmitWithID(ctx context.Context, command *trucov1.Command, expectedVersion int64, requestID string) (int64, error) {
	request := &trucov1.PlayGameCommand{RequestId: requestID, ExpectedVersion: expectedVersion, Command: command}
	for attempt := 0; ; attempt++ {
		outcome, err := s.exchange(ctx, request)
		if err != nil {
			return 0, err
		}
		if outcome.GetError() == nil {
			s.client.seen.saw(s.name, outcome.GetVersion())
			return outcome.GetVersion(), nil
		}
		failure := commandError(outcome.GetError())
		if version := conflictVersion(failure); version > 0 {
			s.client.seen.saw(s.name, version)
		}
		wait := s.client.quotaWait(ctx, failure)
		if wait == 0 || attempt >= s.client.options.Retries {
			return 0, failure
		}
		select {
		case <-ctx.Done():
			return 0, FromError(ctx.Err())
		case <-s.done:
			return 0, s.ending()
		case <-time.After(wait):
		}
	}
}

// exchange sends one command (or leaves it for the stream being reopened to send) and waits for its outcome.
func (s *Session) exchange(ctx context.Context, command *trucov1.PlayGameCommand) (*trucov1.PlayGameOutcome, error) {
	waiting := &pendingCommand{command: command, outcome: make(chan *trucov1.PlayGameOutcome, 1)}
	s.sendMu.Lock()
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		s.sendMu.Unlock()
		return nil, s.ending()
	}
	s.pending = append(s.pending, waiting)
	stream := s.stream
	s.mu.Unlock()
	if stream != nil {
		// A failed send means the stream broke: its receiver reopens it and sends the pending commands again.
		_ = stream.Send(&trucov1.PlayGameRequest{Kind: &trucov1.PlayGameRequest_Command{Command: command}})
	}
	s.sendMu.Unlock()
	select {
	case outcome := <-waiting.outcome:
		return outcome, nil
	case <-s.done:
		select {
		case outcome := <-waiting.outcome:
			return outcome, nil
		default:
			return nil, s.ending()
		}
	case <-ctx.Done():
		s.forget(waiting)
		return nil, FromError(ctx.Err())
	}
}

// forget drops a command nobody waits for any more from the ones sent again after a reopen.
func (s *Session) forget(waiting *pendingCommand) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, other := range s.pending {
		if other == waiting {
			s.pending = append(s.pending[:i], s.pending[i+1:]...)
			return
		}
	}
}

// ending is what a command fails with once the session has ended.
func (s *Session) ending() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refusal
}

// Commits yields each commit of the game, in order, as one message (exactly a per-commit WatchCommits message):
// its events (CommitEvents), each with its version, and the caller's view after the last one (Seat for a seat,
// Public for a spectator). The first message holds every event after Play's afterVersion. The sequence ends when
// the session ends: after the commit that ends the match, or on Close or ctx; a failure that ended it (a
// stream broken beyond the retries, an error the server ended the stream with) is yielded last with a nil
// message. Breaking out of the loop leaves the session open: call Close to end it. Each commit's version counts
// as seen.
func (s *Session) Commits() iter.Seq2[*trucov1.WatchGameResponse, error] {
	return func(yield func(*trucov1.WatchGameResponse, error) bool) {
		for {
			s.mu.Lock()
			if len(s.commits) > 0 {
				commit := s.commits[0]
				s.commits[0] = nil
				s.commits = s.commits[1:]
				s.mu.Unlock()
				if !yield(commit, nil) {
					return
				}
				continue
			}
			ended, failure := s.ended, s.failure
			s.mu.Unlock()
			if ended {
				if failure != nil {
					yield(nil, failure)
				}
				return
			}
			select {
			case <-s.wake:
			case <-s.done:
			}
		}
	}
}

// Events yields each event of the game, in order, as Watch does: one WatchGameResponse per event of Commits, the
// views after a commit with its last event (Seat for a seat, Public for anyone), the events before it without.
// It ends as Commits does.
func (s *Session) Events() iter.Seq2[*trucov1.WatchGameResponse, error] {
	return perEvent(s.Commits())
}

// Close half-closes the stream and cancels it: Commits ends, and a Submit still waiting fails with
// ErrSessionClosed. Closing a session that has ended does nothing. It always returns nil.
func (s *Session) Close() error {
	s.sendMu.Lock()
	s.mu.Lock()
	if !s.ended {
		s.closed = true
	}
	stream := s.stream
	s.mu.Unlock()
	if stream != nil {
		_ = stream.CloseSend()
	}
	s.sendMu.Unlock()
	s.cancel()
	s.finish(nil, ErrSessionClosed)
	return nil
}

// open opens a new stream, sends its start after the last version received, and sends again every command
// still waiting for its outcome, in the order they were first sent.
func (s *Session) open() (playStream, error) {
	s.mu.Lock()
	after := s.last
	s.mu.Unlock()
	stream, err := s.client.Games.PlayGame(s.client.outgoing(s.ctx, s.name))
	if err != nil {
		return nil, err
	}
	start := &trucov1.PlayGameStart{Name: s.name, AfterVersion: after}
	// A failed send means the stream broke already: its first Recv says why.
	_ = stream.Send(&trucov1.PlayGameRequest{Kind: &trucov1.PlayGameRequest_Start{Start: start}})
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	s.mu.Lock()
	s.stream = stream
	resend := make([]*trucov1.PlayGameCommand, len(s.pending))
	for i, waiting := range s.pending {
		resend[i] = waiting.command
	}
	s.mu.Unlock()
	for _, command := range resend {
		_ = stream.Send(&trucov1.PlayGameRequest{Kind: &trucov1.PlayGameRequest_Command{Command: command}})
	}
	return stream, nil
}

// run receives the stream's messages until the session ends, reopening the stream when it breaks.
func (s *Session) run(stream playStream) {
	c := s.client
	failures := 0
	for {
		err := s.receive(stream, &failures)
		s.mu.Lock()
		s.stream = nil
		s.mu.Unlock()
		if errors.Is(err, io.EOF) {
			s.finish(nil, &Error{
				Code: codes.FailedPrecondition, Reason: "MATCH_OVER", Domain: Domain, Metadata: map[string]string{},
				Message: "the match is over: the session ended before this command's outcome arrived",
			})
			return
		}
		for {
			if s.ctx.Err() != nil {
				s.finish(nil, FromError(s.ctx.Err()))
				return
			}
			failure := FromError(err).(*Error)
			wait, again := c.retryWait(s.ctx, failures, failure)
			if !again {
				s.finish(failure, failure)
				return
			}
			if s.options.OnResume != nil {
				s.mu.Lock()
				after := s.last
				s.mu.Unlock()
				s.options.OnResume(after, failure)
			}
			failures++
			select {
			case <-s.ctx.Done():
				continue
			case <-time.After(wait):
			}
			if stream, err = s.open(); err == nil {
				break
			}
		}
	}
}

// receive hands on the stream's messages until it ends (io.EOF: ended OK) or breaks.
func (s *Session) receive(stream playStream, failures *int) error {
	for {
		message, err := stream.Recv()
		if err != nil {
			return err
		}
		*failures = 0
		if outcome := message.GetOutcome(); outcome != nil {
			s.resolve(outcome)
			continue
		}
		commit := message.GetCommit()
		if commit == nil {
			continue // a kind of message newer than this SDK
		}
		s.client.seen.saw(s.name, CommitVersion(commit))
		s.mu.Lock()
		if events := CommitEvents(commit); len(events) > 0 {
			s.last = max(s.last, events[len(events)-1].GetVersion())
		}
		s.commits = append(s.commits, commit)
		s.mu.Unlock()
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

// resolve hands an outcome to the Submit waiting for it (an outcome of a command nobody waits for, such as a
// second answer to a command sent again, is dropped).
func (s *Session) resolve(outcome *trucov1.PlayGameOutcome) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, waiting := range s.pending {
		if waiting.command.GetRequestId() == outcome.GetRequestId() {
			s.pending = append(s.pending[:i], s.pending[i+1:]...)
			waiting.outcome <- outcome
			return
		}
	}
}

// finish ends the session (once): Commits yields failure (when not nil) after the commits received, and every
// Submit waiting, or sent later, fails with refusal (ErrSessionClosed after Close).
func (s *Session) finish(failure, refusal error) {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended = true
	if s.closed {
		failure, refusal = nil, ErrSessionClosed
	}
	s.failure, s.refusal = failure, refusal
	s.pending = nil
	s.mu.Unlock()
	s.cancel()
	close(s.done)
}

// commandError is the *Error of a refused command, built as FromError builds it from a unary call's status: the
// same code, reason (domain truco.v1), message, metadata and retry delay.
func commandError(refused *trucov1.CommandError) *Error {
	st := status.New(codes.Code(refused.GetCode()), refused.GetMessage())
	var details []protoadapt.MessageV1
	if refused.GetReason() != "" || len(refused.GetMetadata()) > 0 {
		info := &errdetails.ErrorInfo{Reason: refused.GetReason(), Domain: Domain, Metadata: refused.GetMetadata()}
		details = append(details, info)
	}
	if refused.GetRetryDelay() != nil {
		details = append(details, &errdetails.RetryInfo{RetryDelay: refused.GetRetryDelay()})
	}
	if withDetails, err := st.WithDetails(details...); err == nil {
		st = withDetails
	}
	return FromError(st.Err()).(*Error)
}
