package truco

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
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

	trucov1 "github.com/truco-uy/truco/clients/go/gen/truco/v1"
)

// read is one read the fake server was sent.
type read struct {
	rpc        string
	name       string
	minVersion int64
}

// fakeGames is a GameService whose replies carry the versions the test sets: version for views, legal actions
// and submits; conflictAt (when set) makes submits fail with ABORTED VERSION_CONFLICT at that version; WatchGame
// streams events after the request's version: with per_commit (unless the fake plays a released server) in
// commits of up to two events, each with the seat's view after its last one, else one event per message; a watch
// with breakAfter set ends with UNAVAILABLE after its events up to that version (once). It records every read,
// every watch request, and the x-truco-game metadata of every call (calls, by method name).
type fakeGames struct {
	trucov1.UnimplementedGameServiceServer
	mu         sync.Mutex
	reads      []read
	version    int64
	conflictAt int64
	events     []int64
	released   bool
	breakAfter int64
	watches    []*trucov1.WatchGameRequest
	calls      []string
}

func (f *fakeGames) set(change func(*fakeGames)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change(f)
}

func (f *fakeGames) current() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.version
}

func (f *fakeGames) record(rpc, name string, minVersion int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads = append(f.reads, read{rpc, name, minVersion})
}

// lastRead is the last read sent.
func (f *fakeGames) lastRead(t *testing.T) read {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.reads) == 0 {
		t.Fatal("no read was sent")
	}
	return f.reads[len(f.reads)-1]
}

func matchView(version int64) *trucov1.MatchView { return &trucov1.MatchView{Version: version} }

func (f *fakeGames) CreateGame(context.Context, *trucov1.CreateGameRequest) (*trucov1.CreateGameResponse, error) {
	return &trucov1.CreateGameResponse{Game: &trucov1.Game{Name: "games/created", Version: f.current()}}, nil
}

func (f *fakeGames) JoinGame(context.Context, *trucov1.JoinGameRequest) (*trucov1.JoinGameResponse, error) {
	view := &trucov1.SeatView{Public: matchView(f.current())}
	return &trucov1.JoinGameResponse{SeatToken: "token", View: view}, nil
}

func (f *fakeGames) GetGameView(_ context.Context, request *trucov1.GetGameViewRequest) (*trucov1.GetGameViewResponse, error) {
	f.record("GetGameView", request.GetName(), request.GetMinVersion())
	version := f.current()
	return &trucov1.GetGameViewResponse{Seat: &trucov1.SeatView{Public: matchView(version)}, Public: matchView(version)}, nil
}

func (f *fakeGames) ListLegalActions(_ context.Context, request *trucov1.ListLegalActionsRequest) (*trucov1.ListLegalActionsResponse, error) {
	f.record("ListLegalActions", request.GetName(), request.GetMinVersion())
	return &trucov1.ListLegalActionsResponse{Version: f.current()}, nil
}

func (f *fakeGames) SubmitCommand(context.Context, *trucov1.SubmitCommandRequest) (*trucov1.SubmitCommandResponse, error) {
	f.mu.Lock()
	conflictAt, version := f.conflictAt, f.version
	f.mu.Unlock()
	if conflictAt > 0 {
		info := &errdetails.ErrorInfo{Reason: "VERSION_CONFLICT", Domain: Domain, Metadata: map[string]string{"version": strconv.FormatInt(conflictAt, 10)}}
		st, err := status.New(codes.Aborted, "the game moved on").WithDetails(info)
		if err != nil {
			return nil, err
		}
		return nil, st.Err()
	}
	return &trucov1.SubmitCommandResponse{Version: version}, nil
}

func (f *fakeGames) WatchGame(request *trucov1.WatchGameRequest, stream grpc.ServerStreamingServer[trucov1.WatchGameResponse]) error {
	f.mu.Lock()
	f.watches = append(f.watches, request)
	breakAfter, released := f.breakAfter, f.released
	f.breakAfter = 0
	var versions []int64
	for _, version := range f.events {
		if version > request.GetAfterVersion() && (breakAfter == 0 || version <= breakAfter) {
			versions = append(versions, version)
		}
	}
	f.mu.Unlock()
	var messages []*trucov1.WatchGameResponse
	if request.GetPerCommit() && !released {
		for start := 0; start < len(versions); start += 2 {
			commit := versions[start:min(start+2, len(versions))]
			message := &trucov1.WatchGameResponse{Seat: &trucov1.SeatView{Public: matchView(commit[len(commit)-1])}}
			for _, version := range commit {
				message.Events = append(message.Events, &trucov1.Event{Version: version})
			}
			messages = append(messages, message)
		}
	} else {
		for _, version := range versions {
			messages = append(messages, &trucov1.WatchGameResponse{Event: &trucov1.Event{Version: version}, Public: matchView(version)})
		}
	}
	for _, message := range messages {
		if err := stream.Send(message); err != nil {
			return err
		}
	}
	if breakAfter != 0 {
		return status.Error(codes.Unavailable, "going away")
	}
	return nil
}

// heard records the x-truco-game metadata of a call: "Method games/g1", or "Method -" without one.
func (f *fakeGames) heard(ctx context.Context, method string) {
	game := "-"
	if values := metadata.ValueFromIncomingContext(ctx, GameHeader); len(values) == 1 {
		game = values[0]
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, method[strings.LastIndex(method, "/")+1:]+" "+game)
}

// serve starts fake on an in-memory listener and returns a client of it (no retries).
func serve(t *testing.T, fake *fakeGames) *Client {
	t.Helper()
	return serveWith(t, fake, Options{Retries: -1, Timeout: 5 * time.Second})
}

// serveWith starts fake (and an unimplemented RulesService) on an in-memory listener, recording every call's
// x-truco-game metadata, and returns a client of it with options.
func serveWith(t *testing.T, fake *fakeGames, options Options) *Client {
	t.Helper()
	listener := bufconn.Listen(1 << 20)
	unary := func(ctx context.Context, request any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		fake.heard(ctx, info.FullMethod)
		return handler(ctx, request)
	}
	stream := func(server any, stream grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		fake.heard(stream.Context(), info.FullMethod)
		return handler(server, stream)
	}
	server := grpc.NewServer(grpc.UnaryInterceptor(unary), grpc.StreamInterceptor(stream))
	trucov1.RegisterGameServiceServer(server, fake)
	trucov1.RegisterRulesServiceServer(server, trucov1.UnimplementedRulesServiceServer{})
	go func() { _ = server.Serve(listener) }()
	t.Cleanup(server.Stop)
	dialer := func(ctx context.Context, _ string) (net.Conn, error) { return listener.DialContext(ctx) }
	conn, err := grpc.NewClient("passthrough:///bufnet", grpc.WithContextDialer(dialer),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return NewClient(conn, options)
}

// needing is a check that a call succeeded: need(client.GetView(ctx, name)).
func needing(t *testing.T) func(any, error) {
	return func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
}

func expectMinVersion(t *testing.T, fake *fakeGames, want int64, why string) {
	t.Helper()
	if got := fake.lastRead(t).minVersion; got != want {
		t.Errorf("min_version %d, want %d (%s)", got, want, why)
	}
}

func TestReadsSendZeroForAnUnseenGame(t *testing.T) {
	fake := &fakeGames{version: 4}
	client := serve(t, fake)
	ctx := context.Background()
	need := needing(t)
	need(client.GetView(ctx, "g1"))
	need(client.LegalActions(ctx, "games/g2"))
	want := []read{{"GetGameView", "games/g1", 0}, {"ListLegalActions", "games/g2", 0}}
	if fmt.Sprint(fake.reads) != fmt.Sprint(want) {
		t.Errorf("reads %v, want %v", fake.reads, want)
	}
}

func TestReadsSendTheNewestVersionSeen(t *testing.T) {
	fake := &fakeGames{}
	client := serve(t, fake)
	ctx := context.Background()
	need := needing(t)

	fake.set(func(f *fakeGames) { f.version = 3 })
	need(client.JoinGame(ctx, "g1", 0, "ana"))
	need(client.LegalActions(ctx, "g1"))
	expectMinVersion(t, fake, 3, "the joined view's version")

	fake.set(func(f *fakeGames) { f.version = 7 })
	need(client.Submit(ctx, "g1", Play(MustCard("1e")), 0))
	fake.set(func(f *fakeGames) { f.version = 5 }) // an older reply does not lower what was seen
	need(client.GetView(ctx, "games/g1"))
	expectMinVersion(t, fake, 7, "the submit's version")
	need(client.LegalActions(ctx, "g1"))
	expectMinVersion(t, fake, 7, "still the highest seen")

	fake.set(func(f *fakeGames) { f.events = []int64{8, 9} })
	for item, err := range client.Watch(ctx, "g1", 7, WatchOptions{}) {
		if err != nil || item.GetEvent() == nil {
			t.Fatalf("watch: %v, %v", item, err)
		}
	}
	need(client.SeatView(ctx, "g1"))
	expectMinVersion(t, fake, 9, "the last watched event's version")

	fake.set(func(f *fakeGames) { f.conflictAt = 12 })
	if _, err := client.Submit(ctx, "g1", Play(MustCard("1e")), 9); Reason(err) != "VERSION_CONFLICT" {
		t.Fatalf("submit: %v, want VERSION_CONFLICT", err)
	}
	need(client.GetView(ctx, "g1"))
	expectMinVersion(t, fake, 12, "the version a VERSION_CONFLICT tells of")

	fake.set(func(f *fakeGames) { f.version = 15 })
	need(client.GetView(ctx, "g1"))
	need(client.LegalActions(ctx, "g1"))
	expectMinVersion(t, fake, 15, "the last view's version")

	need(client.GetView(ctx, "g2"))
	expectMinVersion(t, fake, 0, "another game has its own version")

	fake.set(func(f *fakeGames) { f.version = 2 })
	game, err := client.CreateGame(ctx, CreateOptions{})
	need(game, err)
	need(client.GetView(ctx, game.GetName()))
	expectMinVersion(t, fake, 2, "the created game's version")
}

func TestWithTokenSharesTheVersionsSeen(t *testing.T) {
	fake := &fakeGames{version: 6}
	creator := serve(t, fake)
	ctx := context.Background()
	need := needing(t)
	need(creator.WithToken("other").Submit(ctx, "g1", Play(MustCard("1e")), 0))
	need(creator.LegalActions(ctx, "g1"))
	expectMinVersion(t, fake, 6, "the other seat's submit")
}

func TestVersionsSeenKeepsTheHighestNeverZero(t *testing.T) {
	seen := newVersionsSeen(MaxGamesSeen)
	seen.saw("games/a", 0)
	if seen.len() != 0 {
		t.Fatalf("a zero version was remembered")
	}
	seen.saw("games/a", 5)
	seen.saw("games/a", 3)
	seen.saw("games/a", 0)
	if got := seen.of("games/a"); got != 5 {
		t.Errorf("of(a) = %d, want 5", got)
	}
	if got := seen.of("games/b"); got != 0 {
		t.Errorf("of(b) = %d, want 0", got)
	}
}

func TestVersionsSeenForgetsTheLeastRecentlySeen(t *testing.T) {
	seen := newVersionsSeen(3)
	seen.saw("games/a", 1)
	seen.saw("games/b", 2)
	seen.saw("games/c", 3)
	seen.saw("games/a", 1) // seen again: now the most recent
	seen.saw("games/d", 4)
	got := []int64{seen.of("games/a"), seen.of("games/b"), seen.of("games/c"), seen.of("games/d")}
	if fmt.Sprint(got) != "[1 0 3 4]" || seen.len() != 3 {
		t.Errorf("versions of a, b, c, d: %v (%d games), want [1 0 3 4] (3 games)", got, seen.len())
	}

	seen = newVersionsSeen(MaxGamesSeen)
	for game := range MaxGamesSeen + 1 {
		seen.saw(fmt.Sprintf("games/%d", game), int64(game+1))
	}
	if seen.len() != MaxGamesSeen || seen.of("games/0") != 0 || seen.of(fmt.Sprintf("games/%d", MaxGamesSeen)) != MaxGamesSeen+1 {
		t.Errorf("after %d games: %d remembered, games/0 at %d", MaxGamesSeen+1, seen.len(), seen.of("games/0"))
	}
}

func TestVersionsSeenIsSafeForConcurrentUse(t *testing.T) {
	seen := newVersionsSeen(8)
	var wg sync.WaitGroup
	for worker := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for version := range int64(1000) {
				seen.saw(fmt.Sprintf("games/%d", (int(version)+worker)%10), version+1)
				seen.of("games/0")
			}
		}()
	}
	wg.Wait()
	if seen.len() != 8 {
		t.Errorf("%d games remembered, want 8", seen.len())
	}
}
