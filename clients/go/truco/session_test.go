package truco

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/types/known/durationpb"

	trucov1 "github.com/truco-uy/truco/clients/go/gen/truco/v1"
)

// playCall is one PlayGame call the fake was sent: its start (its first message) and metadata.
type playCall struct {
	t        *testing.T
	stream   grpc.BidiStreamingServer[trucov1.PlayGameRequest, trucov1.PlayGameResponse]
	start    *trucov1.PlayGameStart
	metadata metadata.MD
}

// command is the call's next message, which must be a command.
func (c *playCall) command() *trucov1.PlayGameCommand {
	c.t.Helper()
	request, err := c.stream.Recv()
	if err != nil {
		if c.stream.Context().Err() == nil { // else the test is over (it failed first), or the client went away
			c.t.Errorf("waiting for a command: %v", err)
		}
		return &trucov1.PlayGameCommand{}
	}
	if request.GetCommand() == nil {
		c.t.Errorf("got %v, want a command", request)
	}
	return request.GetCommand()
}

// commit sends a commit of events of versions, with the seat's view after the last one.
func (c *playCall) commit(versions ...int64) {
	message := &trucov1.WatchGameResponse{Seat: &trucov1.SeatView{Public: matchView(versions[len(versions)-1])}}
	for _, version := range versions {
		message.Events = append(message.Events, &trucov1.Event{Version: version})
	}
	c.send(&trucov1.PlayGameResponse{Kind: &trucov1.PlayGameResponse_Commit{Commit: message}})
}

// outcome answers the command of requestID: accepted at version, or refused (refused not nil).
func (c *playCall) outcome(requestID string, version int64, refused *trucov1.CommandError) {
	outcome := &trucov1.PlayGameOutcome{RequestId: requestID, Version: version, Error: refused}
	c.send(&trucov1.PlayGameResponse{Kind: &trucov1.PlayGameResponse_Outcome{Outcome: outcome}})
}

func (c *playCall) send(message *trucov1.PlayGameResponse) {
	if err := c.stream.Send(message); err != nil && c.stream.Context().Err() == nil {
		c.t.Errorf("send: %v", err)
	}
}

// playGames is a GameService whose PlayGame calls each run the test's next script (past the scripts: wait for
// the client to go away) after reading their start, and end with what it returns. It records every call.
type playGames struct {
	trucov1.UnimplementedGameServiceServer
	t       *testing.T
	mu      sync.Mutex
	scripts []func(*playCall) error
	calls   []*playCall
}

func (f *playGames) PlayGame(stream grpc.BidiStreamingServer[trucov1.PlayGameRequest, trucov1.PlayGameResponse]) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	if first.GetStart() == nil {
		f.t.Errorf("the first message is %v, not a start", first)
		return status.Error(codes.InvalidArgument, "start first")
	}
	md, _ := metadata.FromIncomingContext(stream.Context())
	call := &playCall{t: f.t, stream: stream, start: first.GetStart(), metadata: md}
	f.mu.Lock()
	f.calls = append(f.calls, call)
	var script func(*playCall) error
	if len(f.calls) <= len(f.scripts) {
		script = f.scripts[len(f.calls)-1]
	}
	f.mu.Unlock()
	if script == nil {
		<-stream.Context().Done()
		return stream.Context().Err()
	}
	return script(call)
}

// starts are the starts of the calls so far: "games/g1 after 7" each.
func (f *playGames) starts() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, call := range f.calls {
		out = append(out, fmt.Sprintf("%s after %d", call.start.GetName(), call.start.GetAfterVersion()))
	}
	return out
}

// servePlay starts a PlayGame server running scripts on an in-memory listener and returns a client of it.
func servePlay(t *testing.T, options Options, scripts ...func(*playCall) error) (*Client, *playGames) {
	t.Helper()
	fake := &playGames{t: t, scripts: scripts}
	listener := bufconn.Listen(1 << 20)
	server := grpc.NewServer()
	trucov1.RegisterGameServiceServer(server, fake)
	go func() { _ = server.Serve(listener) }()
	t.Cleanup(server.Stop)
	dialer := func(ctx context.Context, _ string) (net.Conn, error) { return listener.DialContext(ctx) }
	conn, err := grpc.NewClient("passthrough:///bufnet", grpc.WithContextDialer(dialer),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	if options.Timeout == 0 {
		options.Timeout = 5 * time.Second
	}
	return NewClient(conn, options), fake
}

// play opens a session and closes it when the test ends.
func play(t *testing.T, client *Client, afterVersion int64, options PlayOptions) *Session {
	t.Helper()
	session, err := client.Play(context.Background(), "g1", afterVersion, options)
	if err != nil {
		t.Fatalf("play: %v", err)
	}
	t.Cleanup(func() { _ = session.Close() })
	return session
}

// commitVersions are the event versions of each commit the session hands on, to its end; failure is what it
// ended with (nil: ended OK).
func commitVersions(session *Session) (commits [][]int64, failure error) {
	for commit, err := range session.Commits() {
		if err != nil {
			return commits, err
		}
		var versions []int64
		for _, event := range CommitEvents(commit) {
			versions = append(versions, event.GetVersion())
		}
		commits = append(commits, versions)
	}
	return commits, nil
}

func TestPlaySendsItsStartFirstWithTheGameTheVersionAndTheSeatsMetadata(t *testing.T) {
	client, fake := servePlay(t, Options{Token: "tok", APIKey: "key"}, func(call *playCall) error {
		call.commit(8, 9)
		call.commit(10)
		return nil
	})
	session := play(t, client, 7, PlayOptions{})
	commits, err := commitVersions(session)
	if err != nil || fmt.Sprint(commits) != "[[8 9] [10]]" {
		t.Errorf("commits %v, %v: want [[8 9] [10]] and the end", commits, err)
	}
	if starts := fake.starts(); fmt.Sprint(starts) != "[games/g1 after 7]" {
		t.Errorf("starts %v", starts)
	}
	md := fake.calls[0].metadata
	if fmt.Sprint(md.Get("authorization"), md.Get("x-api-key"), md.Get(GameHeader)) != "[Bearer tok] [key] [games/g1]" {
		t.Errorf("metadata %v: want the token, the API key and the game", md)
	}
	if seen := client.seen.of("games/g1"); seen != 10 {
		t.Errorf("versions seen: %d, want 10", seen)
	}
}

func TestASessionCommandsOutcomeResolvesItsSubmit(t *testing.T) {
	sent := make(chan *trucov1.PlayGameCommand, 1)
	client, _ := servePlay(t, Options{}, func(call *playCall) error {
		command := call.command()
		sent <- command
		call.commit(12)
		call.outcome(command.GetRequestId(), 12, nil)
		<-call.stream.Context().Done()
		return nil
	})
	session := play(t, client, 11, PlayOptions{})
	version, err := session.Submit(context.Background(), Mazo(), 11)
	if err != nil || version != 12 {
		t.Fatalf("submit: %d, %v; want 12", version, err)
	}
	command := <-sent
	if command.GetRequestId() == "" || command.GetExpectedVersion() != 11 || command.GetCommand().GetGoToMazo() == nil {
		t.Errorf("command sent %v: want a mazo at 11 with a request id", command)
	}
	if seen := client.seen.of("games/g1"); seen != 12 {
		t.Errorf("versions seen: %d, want 12", seen)
	}
}

func TestARefusedOutcomeIsTheTypedErrorAndTheSessionGoesOn(t *testing.T) {
	client, _ := servePlay(t, Options{}, func(call *playCall) error {
		call.outcome(call.command().GetRequestId(), 0, &trucov1.CommandError{
			Code: int32(codes.FailedPrecondition), Reason: "CARD_NOT_IN_HAND", Message: "not in your hand",
			Metadata: map[string]string{"card": "1e"},
		})
		call.outcome(call.command().GetRequestId(), 0, &trucov1.CommandError{
			Code: int32(codes.Aborted), Reason: "VERSION_CONFLICT", Message: "the game moved on",
			Metadata: map[string]string{"version": "20"},
		})
		call.outcome(call.command().GetRequestId(), 21, nil)
		return nil
	})
	session := play(t, client, 0, PlayOptions{})
	ctx := context.Background()
	_, err := session.Submit(ctx, Play(MustCard("1e")), 0)
	var failure *Error
	if !errors.Is(err, ErrIllegalMove) || !errors.As(err, &failure) {
		t.Fatalf("got %v, want ErrIllegalMove", err)
	}
	if failure.Reason != "CARD_NOT_IN_HAND" || failure.Domain != Domain || failure.Message != "not in your hand" ||
		failure.Metadata["card"] != "1e" || Reason(err) != "CARD_NOT_IN_HAND" {
		t.Errorf("error %#v: want CARD_NOT_IN_HAND with its message and metadata", failure)
	}
	_, err = session.Submit(ctx, Mazo(), 3)
	if !errors.Is(err, ErrVersionConflict) || Reason(err) != "VERSION_CONFLICT" {
		t.Errorf("got %v, want ErrVersionConflict", err)
	}
	if seen := client.seen.of("games/g1"); seen != 20 {
		t.Errorf("versions seen: %d, want the conflict's 20", seen)
	}
	if version, err := session.Submit(ctx, Mazo(), 20); err != nil || version != 21 {
		t.Errorf("the next submit: %d, %v; want 21", version, err)
	}
}

func quotaRefusal(delay time.Duration) *trucov1.CommandError {
	return &trucov1.CommandError{
		Code: int32(codes.ResourceExhausted), Reason: "QUOTA_EXCEEDED", Message: "slow down",
		Metadata: map[string]string{"quota": "player"}, RetryDelay: durationpb.New(delay),
	}
}

func TestAQuotaOutcomeIsSentAgainAfterItsDelayWithTheSameRequestID(t *testing.T) {
	ids := make(chan string, 2)
	client, _ := servePlay(t, Options{Retries: 2}, func(call *playCall) error {
		first := call.command()
		ids <- first.GetRequestId()
		call.outcome(first.GetRequestId(), 0, quotaRefusal(300*time.Millisecond))
		again := call.command()
		ids <- again.GetRequestId()
		call.outcome(again.GetRequestId(), 4, nil)
		<-call.stream.Context().Done()
		return nil
	})
	session := play(t, client, 0, PlayOptions{})
	started := time.Now()
	if version, err := session.Submit(context.Background(), Mazo(), 3); err != nil || version != 4 {
		t.Fatalf("submit: %d, %v; want 4", version, err)
	}
	if waited := time.Since(started); waited < 300*time.Millisecond {
		t.Errorf("sent again after %v, before the 300ms the server asked for", waited)
	}
	if first, again := <-ids, <-ids; first != again {
		t.Errorf("request ids %s and %s: want the same one twice", first, again)
	}
}

func TestAQuotaOutcomeLongerThanMaxQuotaWaitIsReturnedAtOnce(t *testing.T) {
	client, _ := servePlay(t, Options{Retries: 2, MaxQuotaWait: time.Second}, func(call *playCall) error {
		call.outcome(call.command().GetRequestId(), 0, quotaRefusal(30*time.Second))
		<-call.stream.Context().Done()
		return nil
	})
	session := play(t, client, 0, PlayOptions{})
	_, err := session.Submit(context.Background(), Mazo(), 3)
	var failure *Error
	if !errors.Is(err, ErrResourceExhausted) || !errors.As(err, &failure) {
		t.Fatalf("got %v, want ErrResourceExhausted", err)
	}
	if failure.Reason != "QUOTA_EXCEEDED" || failure.RetryDelay != 30*time.Second ||
		failure.Metadata["quota"] != "player" {
		t.Errorf("error %#v: want QUOTA_EXCEEDED with its delay and metadata", failure)
	}
}

func TestABrokenStreamIsReopenedAfterTheLastVersionAndThePendingCommandSentAgain(t *testing.T) {
	ids := make(chan string, 2)
	shuttingDown := func() error {
		info := &errdetails.ErrorInfo{Reason: "SERVER_SHUTTING_DOWN", Domain: Domain,
			Metadata: map[string]string{"version": "2"}}
		st, err := status.New(codes.Unavailable, "the server is stopping").WithDetails(info)
		if err != nil {
			return err
		}
		return st.Err()
	}
	client, fake := servePlay(t, Options{Retries: 2, Backoff: time.Millisecond},
		func(call *playCall) error {
			call.commit(1, 2)
			ids <- call.command().GetRequestId() // never answered: the server stops
			return shuttingDown()
		},
		func(call *playCall) error {
			again := call.command()
			ids <- again.GetRequestId()
			call.commit(3)
			call.outcome(again.GetRequestId(), 3, nil)
			return nil
		})
	var resumed []string
	session := play(t, client, 0, PlayOptions{OnResume: func(after int64, err error) {
		resumed = append(resumed, fmt.Sprintf("%d %s", after, Reason(err)))
	}})
	if version, err := session.Submit(context.Background(), Mazo(), 0); err != nil || version != 3 {
		t.Fatalf("submit: %d, %v; want 3", version, err)
	}
	commits, err := commitVersions(session)
	if err != nil || fmt.Sprint(commits) != "[[1 2] [3]]" {
		t.Errorf("commits %v, %v: want [[1 2] [3]] and the end", commits, err)
	}
	if fmt.Sprint(resumed) != "[2 SERVER_SHUTTING_DOWN]" {
		t.Errorf("resumed %v: want once after 2", resumed)
	}
	if starts := fake.starts(); fmt.Sprint(starts) != "[games/g1 after 0 games/g1 after 2]" {
		t.Errorf("starts %v: the second must resume after 2", starts)
	}
	if first, again := <-ids, <-ids; first != again {
		t.Errorf("request ids %s and %s: want the same one sent again", first, again)
	}
}

func TestAStreamAQuotaRefusedIsOpenedAgainAfterItsRetryInfoDelay(t *testing.T) {
	refused := func(*playCall) error {
		info := &errdetails.ErrorInfo{Reason: "QUOTA_EXCEEDED", Domain: Domain,
			Metadata: map[string]string{"quota": "watches"}}
		st, err := status.New(codes.ResourceExhausted, "too many watches").WithDetails(info,
			&errdetails.RetryInfo{RetryDelay: durationpb.New(200 * time.Millisecond)})
		if err != nil {
			return err
		}
		return st.Err()
	}
	client, fake := servePlay(t, Options{Retries: 1, Backoff: time.Hour}, refused, func(call *playCall) error {
		call.commit(6)
		return nil
	})
	var resumed []string
	session := play(t, client, 5, PlayOptions{OnResume: func(after int64, err error) {
		resumed = append(resumed, fmt.Sprintf("%d %s", after, Reason(err)))
	}})
	started := time.Now()
	if commits, err := commitVersions(session); err != nil || fmt.Sprint(commits) != "[[6]]" {
		t.Errorf("commits %v, %v: want [[6]] and the end", commits, err)
	}
	if waited := time.Since(started); waited < 200*time.Millisecond || waited > 10*time.Second {
		t.Errorf("opened again after %v: want the 200ms the server asked for, not the backoff", waited)
	}
	starts := fake.starts()
	if fmt.Sprint(resumed) != "[5 QUOTA_EXCEEDED]" || fmt.Sprint(starts) != "[games/g1 after 5 games/g1 after 5]" {
		t.Errorf("resumed %v, starts %v: want one reopening after 5", resumed, starts)
	}
}

func TestTheMatchsEndEndsTheCommitsAndFailsTheSubmitStillWaiting(t *testing.T) {
	client, _ := servePlay(t, Options{}, func(call *playCall) error {
		call.command() // the match ends before it is applied
		call.commit(5)
		return nil
	})
	session := play(t, client, 4, PlayOptions{})
	_, err := session.Submit(context.Background(), Mazo(), 4)
	if !errors.Is(err, ErrIllegalMove) || Reason(err) != "MATCH_OVER" {
		t.Errorf("the submit waiting: %v, want ErrIllegalMove MATCH_OVER", err)
	}
	if commits, err := commitVersions(session); err != nil || fmt.Sprint(commits) != "[[5]]" {
		t.Errorf("commits %v, %v: want [[5]] and the end", commits, err)
	}
	if _, err := session.Submit(context.Background(), Mazo(), 5); Reason(err) != "MATCH_OVER" {
		t.Errorf("a submit after the end: %v, want MATCH_OVER", err)
	}
}

func TestSessionEventsYieldsEachEventWithTheViewOnTheLast(t *testing.T) {
	client, _ := servePlay(t, Options{}, func(call *playCall) error {
		call.commit(1, 2, 3)
		return nil
	})
	session := play(t, client, 0, PlayOptions{})
	if got := watched(t, session.Events()); fmt.Sprint(got) != "[[1 0 0] [2 0 0] [3 3 3]]" {
		t.Errorf("events %v: want each event, the views with the last", got)
	}
}

func TestAFailureBeyondTheRetriesEndsTheSessionWithIt(t *testing.T) {
	client, _ := servePlay(t, Options{}, func(call *playCall) error {
		call.command()
		return status.Error(codes.NotFound, "no such game")
	})
	session := play(t, client, 0, PlayOptions{})
	if _, err := session.Submit(context.Background(), Mazo(), 0); !errors.Is(err, ErrNotFound) {
		t.Errorf("the submit waiting: %v, want ErrNotFound", err)
	}
	if _, err := commitVersions(session); !errors.Is(err, ErrNotFound) {
		t.Errorf("commits ended with %v, want ErrNotFound", err)
	}
}

func TestCloseHalfClosesAndFailsTheSubmitStillWaiting(t *testing.T) {
	halfClosed := make(chan error, 1)
	client, _ := servePlay(t, Options{}, func(call *playCall) error {
		call.command()
		_, err := call.stream.Recv()
		halfClosed <- err
		return nil
	})
	session := play(t, client, 0, PlayOptions{})
	submitted := make(chan error, 1)
	go func() {
		_, err := session.Submit(context.Background(), Mazo(), 0)
		submitted <- err
	}()
	time.Sleep(50 * time.Millisecond) // the command is on its way
	if err := session.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-submitted; !errors.Is(err, ErrSessionClosed) {
		t.Errorf("the submit waiting: %v, want ErrSessionClosed", err)
	}
	if commits, err := commitVersions(session); err != nil || len(commits) != 0 {
		t.Errorf("commits %v, %v: want none and no error", commits, err)
	}
	if err := <-halfClosed; err != io.EOF && status.Code(err) != codes.Canceled {
		t.Errorf("the server read %v after the command, want the half-close (or the cancel)", err)
	}
}
