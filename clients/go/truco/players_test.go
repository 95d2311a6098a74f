package truco

import (
	"context"
	"errors"
	"net"
	"reflect"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"

	trucov1 "github.com/truco-uy/truco/clients/go/gen/truco/v1"
)

// fakePlayers is a PlayerService whose FindMatch sends a ticket through states (MATCHED with games/g9, seat 1 and
// the seat token "seat-token"), then holds the stream until the client closes it; with breakFirst the first
// stream breaks (UNAVAILABLE) after its first message. It records the requests and the player tokens it got,
// and its GameService the authorization of each GetGameView.
type fakePlayers struct {
	trucov1.UnimplementedPlayerServiceServer
	trucov1.UnimplementedGameServiceServer
	mu         sync.Mutex
	states     []trucov1.TicketState
	breakFirst bool
	finds      []*trucov1.FindMatchRequest
	tokens     []string
	calls      []string
	cancels    []string
	viewAuth   []string
}

func (f *fakePlayers) heard(ctx context.Context, rpc string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, rpc)
	f.tokens = append(f.tokens, firstOf(ctx, PlayerHeader))
}

func firstOf(ctx context.Context, key string) string {
	md, _ := metadata.FromIncomingContext(ctx)
	if values := md.Get(key); len(values) > 0 {
		return values[0]
	}
	return ""
}

func (f *fakePlayers) FindMatch(request *trucov1.FindMatchRequest, stream grpc.ServerStreamingServer[trucov1.FindMatchResponse]) error {
	f.heard(stream.Context(), "FindMatch")
	f.mu.Lock()
	f.finds = append(f.finds, request)
	breaking := f.breakFirst
	f.breakFirst = false
	states := f.states
	f.mu.Unlock()
	for _, state := range states {
		response := &trucov1.FindMatchResponse{Ticket: &trucov1.MatchTicket{Name: "tickets/t1", State: state}}
		if state == trucov1.TicketState_TICKET_STATE_MATCHED {
			response.Game, response.Seat, response.SeatToken = "games/g9", 1, "seat-token"
		}
		if err := stream.Send(response); err != nil {
			return err
		}
		if breaking {
			return status.Error(codes.Unavailable, "going away")
		}
	}
	<-stream.Context().Done()
	return nil
}

func (f *fakePlayers) CancelMatch(ctx context.Context, request *trucov1.CancelMatchRequest) (*trucov1.CancelMatchResponse, error) {
	f.heard(ctx, "CancelMatch")
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancels = append(f.cancels, request.GetName())
	return &trucov1.CancelMatchResponse{Ticket: &trucov1.MatchTicket{Name: request.GetName(), State: trucov1.TicketState_TICKET_STATE_CANCELLED}}, nil
}

func (f *fakePlayers) GetPlayer(ctx context.Context, request *trucov1.GetPlayerRequest) (*trucov1.GetPlayerResponse, error) {
	f.heard(ctx, "GetPlayer "+request.GetName())
	return &trucov1.GetPlayerResponse{Player: &trucov1.Player{Name: request.GetName(), DisplayName: "Ana"}}, nil
}

func (f *fakePlayers) ListLeaderboard(ctx context.Context, request *trucov1.ListLeaderboardRequest) (*trucov1.ListLeaderboardResponse, error) {
	f.heard(ctx, "ListLeaderboard "+request.GetAroundPlayer())
	return &trucov1.ListLeaderboardResponse{Total: request.GetPlayers()}, nil
}

func (f *fakePlayers) ListPlayerMatches(ctx context.Context, request *trucov1.ListPlayerMatchesRequest) (*trucov1.ListPlayerMatchesResponse, error) {
	f.heard(ctx, "ListPlayerMatches "+request.GetName()+" "+request.GetPageToken())
	return &trucov1.ListPlayerMatchesResponse{}, nil
}

func (f *fakePlayers) GetGameView(ctx context.Context, _ *trucov1.GetGameViewRequest) (*trucov1.GetGameViewResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.viewAuth = append(f.viewAuth, firstOf(ctx, "authorization"))
	return &trucov1.GetGameViewResponse{Seat: &trucov1.SeatView{Seat: 1}}, nil
}

func servePlayers(t *testing.T, fake *fakePlayers, options Options) *Client {
	t.Helper()
	listener := bufconn.Listen(1 << 20)
	server := grpc.NewServer()
	trucov1.RegisterPlayerServiceServer(server, fake)
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
	return NewClient(conn, options)
}

var waitingThenMatched = []trucov1.TicketState{trucov1.TicketState_TICKET_STATE_WAITING, trucov1.TicketState_TICKET_STATE_MATCHED}

func TestQuickMatchFollowsTheTicketAndActsAsTheSeat(t *testing.T) {
	fake := &fakePlayers{states: waitingThenMatched}
	client := servePlayers(t, fake, Options{PlayerToken: "jwt"})
	var seen []trucov1.TicketState
	options := FindMatchOptions{
		Rules: &trucov1.RuleSet{Players: 4}, Party: []string{"bea"}, MaxWait: 30500 * time.Millisecond,
		BotsAfter: 10 * time.Second, BotLevel: trucov1.BotLevel_BOT_LEVEL_EXPERT,
		OnTicket: func(ticket *trucov1.MatchTicket) { seen = append(seen, ticket.GetState()) },
	}
	match, err := client.QuickMatch(context.Background(), options)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(seen, waitingThenMatched) || match.Game != "games/g9" || match.Seat != 1 {
		t.Errorf("states %v, game %q, seat %d", seen, match.Game, match.Seat)
	}
	request := fake.finds[0]
	if fake.tokens[0] != "jwt" || request.GetRules().GetPlayers() != 4 || !reflect.DeepEqual(request.GetParty(), []string{"bea"}) ||
		request.GetMaxWait().AsDuration() != 30500*time.Millisecond || request.GetBotsAfter().AsDuration() != 10*time.Second ||
		request.GetBotLevel() != trucov1.BotLevel_BOT_LEVEL_EXPERT || len(request.GetRequestId()) < 32 {
		t.Errorf("token %q, request %v", fake.tokens[0], request)
	}
	if _, err := match.Client.SeatView(context.Background(), match.Game); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fake.viewAuth, []string{"Bearer seat-token"}) || match.Client.options.PlayerToken != "jwt" {
		t.Errorf("the seat's client sent %v", fake.viewAuth)
	}
}

func TestFindMatchReopensABrokenStreamWithTheSameRequestID(t *testing.T) {
	fake := &fakePlayers{states: waitingThenMatched, breakFirst: true}
	client := servePlayers(t, fake, Options{PlayerToken: "jwt", Backoff: time.Millisecond})
	resumes := 0
	match, err := client.QuickMatch(context.Background(), FindMatchOptions{RequestID: "r-1", OnResume: func(error) { resumes++ }})
	if err != nil {
		t.Fatal(err)
	}
	if match.Game != "games/g9" || resumes != 1 || len(fake.finds) != 2 ||
		fake.finds[0].GetRequestId() != "r-1" || fake.finds[1].GetRequestId() != "r-1" {
		t.Errorf("game %q, %d resumes, finds %v", match.Game, resumes, fake.finds)
	}
}

func TestQuickMatchReturnsNoMatchWhenTheTicketExpires(t *testing.T) {
	fake := &fakePlayers{states: []trucov1.TicketState{trucov1.TicketState_TICKET_STATE_WAITING, trucov1.TicketState_TICKET_STATE_EXPIRED}}
	client := servePlayers(t, fake, Options{PlayerToken: "jwt"})
	_, err := client.QuickMatch(context.Background(), FindMatchOptions{})
	var failure *NoMatchError
	if !errors.Is(err, ErrNoMatch) || !errors.As(err, &failure) || failure.Ticket.GetState() != trucov1.TicketState_TICKET_STATE_EXPIRED {
		t.Errorf("got %v, want a NoMatchError EXPIRED", err)
	}
}

func TestAnAbandonedQuickMatchCancelsItsTicket(t *testing.T) {
	fake := &fakePlayers{states: []trucov1.TicketState{trucov1.TicketState_TICKET_STATE_WAITING}}
	client := servePlayers(t, fake, Options{PlayerToken: "jwt"})
	ctx, cancel := context.WithCancel(context.Background())
	_, err := client.QuickMatch(ctx, FindMatchOptions{OnTicket: func(*trucov1.MatchTicket) { cancel() }})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	if !reflect.DeepEqual(fake.cancels, []string{"tickets/t1"}) {
		t.Errorf("cancelled %v, want tickets/t1", fake.cancels)
	}
}

func TestPlayerCallsNamePlayersAndSendThePlayerToken(t *testing.T) {
	fake := &fakePlayers{}
	client := servePlayers(t, fake, Options{PlayerToken: "jwt"})
	ctx := context.Background()
	if player, err := client.GetPlayer(ctx, "me"); err != nil || player.GetDisplayName() != "Ana" {
		t.Fatal(player, err)
	}
	if board, err := client.ListLeaderboard(ctx, 4, LeaderboardOptions{AroundPlayer: "me"}); err != nil || board.GetTotal() != 4 {
		t.Fatal(board, err)
	}
	if _, err := client.ListPlayerMatches(ctx, "ana", 10, "p2"); err != nil {
		t.Fatal(err)
	}
	anonymous := client.WithToken("seat")
	anonymous.options.PlayerToken = ""
	if _, err := anonymous.ListLeaderboard(ctx, 2, LeaderboardOptions{}); err != nil {
		t.Fatal(err)
	}
	wantCalls := []string{"GetPlayer players/me", "ListLeaderboard players/me", "ListPlayerMatches players/ana p2", "ListLeaderboard "}
	if !reflect.DeepEqual(fake.calls, wantCalls) || !reflect.DeepEqual(fake.tokens, []string{"jwt", "jwt", "jwt", ""}) {
		t.Errorf("calls %v with tokens %v", fake.calls, fake.tokens)
	}
}
