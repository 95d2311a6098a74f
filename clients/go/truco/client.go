// Package truco is the Go SDK of the Truco Uruguayo service: a thin layer over the generated gRPC stubs
// (package trucov1, made from proto/ by scripts/gen-sdks).
//
// One Client plays one seat: JoinGame keeps the seat token and sends it, as "authorization: Bearer <token>",
// on every later call. Every call has a deadline (Options.Timeout); UNAVAILABLE, DEADLINE_EXCEEDED and a
// CANCELLED the caller did not ask for are retried with backoff and jitter, and a retried write sends the same
// request id, which the server applies once. A call a quota refused (RESOURCE_EXHAUSTED with a google.rpc.RetryInfo)
// is sent again, the same request, after the delay the server asked for when it is at most Options.MaxQuotaWait.
// Failures are *Error values with the ErrorInfo reason. PlayTurn re-reads the view on ABORTED; Watch reopens a
// broken stream after the last version it delivered.
//
// Play opens a Session: a seat's whole match on one PlayGame stream (its commands in, the game's commits out),
// which resumes as Watch does and sends again the commands whose outcome a broken stream lost. It needs HTTP/2
// (native gRPC); browser transports use Submit and Watch.
//
// Every RPC of the service has one method here (Wrappers), with the helpers every SDK has: the turn helper
// (PlayTurn, IsMyTurn), resuming watches, legal-action pickers (PickAction, PlainBot), proof checks (VerifyProof)
// and the versions seen.
//
// A player: a client whose Options.PlayerToken holds the short-lived JWT an app's backend signed for one of its
// players sends it as "x-player-token" (PlayerHeader) on every call, so the seats it takes are that player's and
// its calls count against the player's quota. PlayerService's calls (quick match, ratings, rankings, history) are
// wrapped in players.go, and QuickMatch follows a ticket to its match.
//
// Every call about one game (all but CreateGame, ListGames and the rules calculator) names it in the metadata
// "x-truco-game: games/{id}" (GameHeader): a load balancer that hashes it keeps a game's calls on one replica,
// which then answers from memory.
//
// Reads (GetView, SeatView, LegalActions) send the newest version of the game the client has seen (in any reply,
// VERSION_CONFLICT or watched event; of at most MaxGamesSeen games, the least recently seen forgotten first) as
// min_version: the answer is never older than that, even from another replica than the one that took the client's
// move, and a replica that already holds it answers from memory.
package truco

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"iter"
	mrand "math/rand/v2"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	trucov1 "github.com/truco-uy/truco/clients/go/gen/truco/v1"
)

// Options say how a Client calls. The zero value of a field takes its default.
type Options struct {
	// Token is a seat token to act as that seat ("" : a spectator until JoinGame).
	Token string
	// APIKey is the app's API key (truco keys create), sent as x-api-key on every call; servers may require one.
	APIKey string
	// PlayerToken is a player token (the JWT the app's backend signed for this player), sent as x-player-token on
	// every call: the seats this client takes are the player's; FindMatch and CancelMatch need one.
	PlayerToken string
	// Timeout is the deadline of each attempt of a call (default 10s).
	Timeout time.Duration
	// Retries is how many times a retryable failure is retried (default 4; negative: none).
	Retries int
	// Backoff is the first retry's delay (default 100ms); each later one doubles, up to MaxBackoff.
	Backoff time.Duration
	// MaxBackoff is the longest delay between two attempts (default 3s). Each delay is jittered.
	MaxBackoff time.Duration
	// MaxQuotaWait: a call a quota refused is sent again after the server's RetryInfo delay when that delay is at
	// most this long (default 10s); a longer one is returned at once (ErrResourceExhausted).
	MaxQuotaWait time.Duration
}

// GameHeader is the metadata key naming the game a call is about (games/{id}), for load balancers' game affinity.
const GameHeader = "x-truco-game"

// Wrappers names the Client method that wraps each RPC of the service (a test checks none is missing).
var Wrappers = map[string]string{
	"truco.v1.GameService/CreateGame":          "CreateGame",
	"truco.v1.GameService/JoinGame":            "JoinGame",
	"truco.v1.GameService/GetGameView":         "GetView",
	"truco.v1.GameService/ListLegalActions":    "LegalActions",
	"truco.v1.GameService/SubmitCommand":       "Submit",
	"truco.v1.GameService/WatchGame":           "Watch",
	"truco.v1.GameService/ListGames":           "ListGames",
	"truco.v1.GameService/GetGame":             "GetGame",
	"truco.v1.GameService/LeaveGame":           "LeaveGame",
	"truco.v1.GameService/ResumeSeat":          "ResumeSeat",
	"truco.v1.GameService/Rematch":             "Rematch",
	"truco.v1.GameService/PlayGame":            "Play",
	"truco.v1.GameService/StartWithBots":       "StartWithBots",
	"truco.v1.RulesService/EvaluateHand":       "EvaluateHand",
	"truco.v1.RulesService/CompareCards":       "CompareCards",
	"truco.v1.PlayerService/FindMatch":         "FindMatch",
	"truco.v1.PlayerService/CancelMatch":       "CancelMatch",
	"truco.v1.PlayerService/GetPlayer":         "GetPlayer",
	"truco.v1.PlayerService/ListLeaderboard":   "ListLeaderboard",
	"truco.v1.PlayerService/ListPlayerMatches": "ListPlayerMatches",
}

// Client calls GameService, RulesService and PlayerService over one gRPC connection.
type Client struct {
	Games   trucov1.GameServiceClient
	Rules   trucov1.RulesServiceClient
	Players trucov1.PlayerServiceClient
	conn    grpc.ClientConnInterface
	closer  func() error
	options Options
	// seen is the newest version of each game seen, shared with the clients WithToken makes.
	seen *versionsSeen
}

// Dial opens a plaintext connection to address ("host:port") and a client on it; Close closes it. Pass
// grpc.WithTransportCredentials(...) in dialOptions for TLS.
func Dial(address string, options Options, dialOptions ...grpc.DialOption) (*Client, error) {
	dialOptions = append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, dialOptions...)
	conn, err := grpc.NewClient(address, dialOptions...)
	if err != nil {
		return nil, err
	}
	client := NewClient(conn, options)
	client.closer = conn.Close
	return client, nil
}

// NewClient makes a client on an existing connection (which the caller closes).
func NewClient(conn grpc.ClientConnInterface, options Options) *Client {
	if options.Timeout <= 0 {
		options.Timeout = 10 * time.Second
	}
	if options.Retries == 0 {
		options.Retries = 4
	} else if options.Retries < 0 {
		options.Retries = 0
	}
	if options.Backoff <= 0 {
		options.Backoff = 100 * time.Millisecond
	}
	if options.MaxBackoff <= 0 {
		options.MaxBackoff = 3 * time.Second
	}
	if options.MaxQuotaWait <= 0 {
		options.MaxQuotaWait = 10 * time.Second
	}
	return &Client{
		Games:   trucov1.NewGameServiceClient(conn),
		Rules:   trucov1.NewRulesServiceClient(conn),
		Players: trucov1.NewPlayerServiceClient(conn),
		conn:    conn,
		options: options,
		seen:    newVersionsSeen(MaxGamesSeen),
	}
}

// Close closes the connection Dial opened (nothing for NewClient or WithToken clients).
func (c *Client) Close() error {
	if c.closer == nil {
		return nil
	}
	return c.closer()
}

// Token is the seat token sent with every call, if any.
func (c *Client) Token() string { return c.options.Token }

// WithToken is another client on the same connection acting as the seat of token ("" : a spectator). Both share
// the versions seen: neither reads older than what either saw.
func (c *Client) WithToken(token string) *Client {
	options := c.options
	options.Token = token
	other := NewClient(c.conn, options)
	other.seen = c.seen
	return other
}

// GameName is the resource name games/{game}, from it or from the bare id.
func GameName(name string) string {
	if strings.HasPrefix(name, "games/") {
		return name
	}
	return "games/" + name
}

// NewRequestID is a fresh request id (a random UUID4).
func NewRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// IsOver reports whether the view's match is over.
func IsOver(view *trucov1.SeatView) bool {
	return view.GetPublic().GetPhase() == trucov1.Phase_PHASE_MATCH_OVER
}

// outgoing is ctx with the call's metadata: the API key, the player token, the seat token, and game (a resource name; "" : none),
// the game the call is about.
func (c *Client) outgoing(ctx context.Context, game string) context.Context {
	var pairs []string
	if c.options.APIKey != "" {
		pairs = append(pairs, "x-api-key", c.options.APIKey)
	}
	if c.options.PlayerToken != "" {
		pairs = append(pairs, PlayerHeader, c.options.PlayerToken)
	}
	if c.options.Token != "" {
		pairs = append(pairs, "authorization", "Bearer "+c.options.Token)
	}
	if game != "" {
		pairs = append(pairs, GameHeader, game)
	}
	if len(pairs) == 0 {
		return ctx
	}
	return metadata.AppendToOutgoingContext(ctx, pairs...)
}

func (c *Client) delay(attempt int) time.Duration {
	ceiling := c.options.Backoff << attempt
	if ceiling > c.options.MaxBackoff || ceiling <= 0 {
		ceiling = c.options.MaxBackoff
	}
	return ceiling/2 + time.Duration(mrand.Int64N(int64(ceiling/2)+1))
}

// resetBackoff lets the connection reconnect at once on the next attempt instead of after gRPC's own reconnect
// backoff (up to two minutes), so a retry reaches a server that has just come back.
func (c *Client) resetBackoff() {
	if conn, ok := c.conn.(interface{ ResetConnectBackoff() }); ok {
		conn.ResetConnectBackoff()
	}
}

// retryWait is how long to wait before sending again a call (or reopening a stream) that failed with failure on
// its attempt-th retry: the quota's RetryInfo delay, or the backoff; false when it must not be retried.
func (c *Client) retryWait(ctx context.Context, attempt int, failure *Error) (time.Duration, bool) {
	wait := c.quotaWait(ctx, failure)
	if (wait == 0 && !retryable(ctx, failure)) || attempt >= c.options.Retries {
		return 0, false
	}
	if wait == 0 {
		wait = c.delay(attempt)
		c.resetBackoff()
	}
	return wait, true
}

// retryable: errors.proto's retry policy (Retried), unless the caller's own context ended the call.
func retryable(ctx context.Context, failure *Error) bool {
	return ctx.Err() == nil && Retried(failure)
}

// quotaWait is how long to wait before sending again a call a quota refused; 0: do not (no RetryInfo, or longer
// than MaxQuotaWait).
func (c *Client) quotaWait(ctx context.Context, failure *Error) time.Duration {
	if ctx.Err() != nil || failure.Code != codes.ResourceExhausted || failure.RetryDelay <= 0 {
		return 0
	}
	if failure.RetryDelay > c.options.MaxQuotaWait {
		return 0
	}
	return failure.RetryDelay
}

// unary calls f with the deadline, the token and the game's name (game: "" for a call about no one game),
// retrying what retryable allows; the request is built once, so a retried write carries the same request id.
func unary[T any](c *Client, ctx context.Context, game string, f func(context.Context) (T, error)) (T, error) {
	for attempt := 0; ; attempt++ {
		callCtx, cancel := context.WithTimeout(c.outgoing(ctx, game), c.options.Timeout)
		result, err := f(callCtx)
		cancel()
		if err == nil {
			return result, nil
		}
		failure := FromError(err).(*Error)
		wait, again := c.retryWait(ctx, attempt, failure)
		if !again {
			var zero T
			return zero, failure
		}
		select {
		case <-ctx.Done():
			var zero T
			return zero, FromError(ctx.Err())
		case <-time.After(wait):
		}
	}
}

// --- GameService ---------------------------------------------------------------------------------------------

// CreateOptions describe a match to create.
type CreateOptions struct {
	// Rules; unset fields take the defaults (nil: all defaults).
	Rules *trucov1.RuleSet
	// Bots maps seats to the server bot that plays them.
	Bots map[int32]trucov1.BotKind
	// BotLevel is the playing strength of every bot seat; when set it chooses the bot (the kinds are ignored).
	BotLevel trucov1.BotLevel
	// Public lists the game to every caller in ListGames, not only to this client's API key.
	Public bool
	// Clock is the game's turn clocks (nil: the server's default; a zero Decision: none).
	Clock *trucov1.ClockSettings
	// FixedDeals are scripted first deals (accepted only by a server started with --allow-fixed-deals).
	FixedDeals []*trucov1.FixedDeal
	// RequestID is the idempotency key ("" : a fresh one): the same id returns the same game.
	RequestID string
}

// CreateGame creates a match.
func (c *Client) CreateGame(ctx context.Context, options CreateOptions) (*trucov1.Game, error) {
	request := &trucov1.CreateGameRequest{
		RequestId: options.RequestID, Rules: options.Rules, FixedDeals: options.FixedDeals, Public: options.Public,
		Clock: options.Clock,
	}
	if request.RequestId == "" {
		request.RequestId = NewRequestID()
	}
	for seat := int32(0); seat < 8; seat++ {
		if kind, ok := options.Bots[seat]; ok {
			request.Bots = append(request.Bots, &trucov1.BotSeat{Seat: seat, Kind: kind, Level: options.BotLevel})
		}
	}
	response, err := unary(c, ctx, "", func(ctx context.Context) (*trucov1.CreateGameResponse, error) {
		return c.Games.CreateGame(ctx, request)
	})
	if err != nil {
		return nil, err
	}
	c.seen.saw(GameName(response.GetGame().GetName()), response.GetGame().GetVersion())
	return response.GetGame(), nil
}

// JoinResult is a seat taken with JoinGame.
type JoinResult struct {
	Seat  int32
	Token string
	View  *trucov1.SeatView
}

// JoinGame takes a seat (seat < 0: the first open one) and makes this client act as that seat.
func (c *Client) JoinGame(ctx context.Context, name string, seat int32, playerName string) (*JoinResult, error) {
	return c.JoinGameWithID(ctx, name, seat, playerName, NewRequestID())
}

// JoinGameWithID is JoinGame with the caller's request id (NewRequestID): the same id sent again, by this
// process or by one restarted after it died, returns the same seat and token, so keep it as secret as the token.
func (c *Client) JoinGameWithID(ctx context.Context, name string, seat int32, playerName string, requestID string) (*JoinResult, error) {
	request := &trucov1.JoinGameRequest{Name: GameName(name), RequestId: requestID, PlayerName: playerName}
	if seat >= 0 {
		request.Seat = &seat
	}
	response, err := unary(c, ctx, request.Name, func(ctx context.Context) (*trucov1.JoinGameResponse, error) {
		return c.Games.JoinGame(ctx, request)
	})
	if err != nil {
		return nil, err
	}
	c.options.Token = response.GetSeatToken()
	c.seen.saw(request.Name, response.GetView().GetPublic().GetVersion())
	return &JoinResult{Seat: response.GetSeat(), Token: response.GetSeatToken(), View: response.GetView()}, nil
}

// GetView is the caller's view: Seat (unset for a spectator) and Public. It is never older than the newest
// version of the game this client has seen (sent as min_version).
func (c *Client) GetView(ctx context.Context, name string) (*trucov1.GetGameViewResponse, error) {
	name = GameName(name)
	request := &trucov1.GetGameViewRequest{Name: name, MinVersion: c.seen.of(name)}
	response, err := unary(c, ctx, name, func(ctx context.Context) (*trucov1.GetGameViewResponse, error) {
		return c.Games.GetGameView(ctx, request)
	})
	if err != nil {
		return nil, err
	}
	c.seen.saw(name, max(response.GetPublic().GetVersion(), response.GetSeat().GetPublic().GetVersion()))
	return response, nil
}

// SeatView is this seat's view (an error for a client without a seat token).
func (c *Client) SeatView(ctx context.Context, name string) (*trucov1.SeatView, error) {
	response, err := c.GetView(ctx, name)
	if err != nil {
		return nil, err
	}
	if response.GetSeat() == nil {
		return nil, errors.New("no seat view: this client has no seat token")
	}
	return response.GetSeat(), nil
}

// LegalActions are exactly the commands the server would accept from this seat now. They are never older than
// the newest version of the game this client has seen (sent as min_version).
func (c *Client) LegalActions(ctx context.Context, name string) (*trucov1.ListLegalActionsResponse, error) {
	name = GameName(name)
	request := &trucov1.ListLegalActionsRequest{Name: name, MinVersion: c.seen.of(name)}
	response, err := unary(c, ctx, name, func(ctx context.Context) (*trucov1.ListLegalActionsResponse, error) {
		return c.Games.ListLegalActions(ctx, request)
	})
	if err != nil {
		return nil, err
	}
	c.seen.saw(name, response.GetVersion())
	return response, nil
}

// Submit sends a command for this seat, chosen at expectedVersion (0 skips the check), with a fresh request id
// that every retry repeats. Errors: ErrIllegalMove (see the Reason), ErrVersionConflict, ErrUnauthenticated...
func (c *Client) Submit(ctx context.Context, name string, command *trucov1.Command, expectedVersion int64) (*trucov1.SubmitCommandResponse, error) {
	return c.SubmitWithID(ctx, name, command, expectedVersion, NewRequestID())
}

// SubmitWithID is Submit with the caller's request id (the same id sent again applies the command once). The
// version after the command, or the current one an ErrVersionConflict tells of, counts as seen.
func (c *Client) SubmitWithID(ctx context.Context, name string, command *trucov1.Command, expectedVersion int64, requestID string) (*trucov1.SubmitCommandResponse, error) {
	request := &trucov1.SubmitCommandRequest{Name: GameName(name), RequestId: requestID, ExpectedVersion: expectedVersion, Command: command}
	response, err := unary(c, ctx, request.Name, func(ctx context.Context) (*trucov1.SubmitCommandResponse, error) {
		return c.Games.SubmitCommand(ctx, request)
	})
	if err != nil {
		if version := conflictVersion(err); version > 0 {
			c.seen.saw(request.Name, version)
		}
		return nil, err
	}
	c.seen.saw(request.Name, response.GetVersion())
	return response, nil
}

// Turn is what PlayTurn did.
type Turn struct {
	Command  *trucov1.Command
	Response *trucov1.SubmitCommandResponse
	// Conflicts is how many times the game had moved on (ABORTED) and the view was read again first.
	Conflicts int
}

// PlayTurn chooses and submits one command at the version it was chosen at. When the game moved on first
// (ABORTED) it reads the view again and asks choose again (up to 10 times). view may be nil (read first).
// Returns nil, nil when choose returns nil (not this seat's turn, match over).
func (c *Client) PlayTurn(ctx context.Context, name string, view *trucov1.SeatView, choose func(*trucov1.SeatView) *trucov1.Command) (*Turn, error) {
	var err error
	if view == nil {
		if view, err = c.SeatView(ctx, name); err != nil {
			return nil, err
		}
	}
	for conflicts := 0; ; conflicts++ {
		command := choose(view)
		if command == nil {
			return nil, nil
		}
		response, err := c.Submit(ctx, name, command, view.GetPublic().GetVersion())
		if err == nil {
			return &Turn{Command: command, Response: response, Conflicts: conflicts}, nil
		}
		if !errors.Is(err, ErrVersionConflict) || conflicts >= 9 {
			return nil, err
		}
		if view, err = c.SeatView(ctx, name); err != nil {
			return nil, err
		}
	}
}

// WatchOptions tune Watch.
type WatchOptions struct {
	// OnResume is called each time a broken stream is reopened, with the version it resumes after.
	OnResume func(afterVersion int64, err error)
}

// Watch yields each new event of the game, in order, from afterVersion on: one WatchGameResponse per event. The
// stream underneath is WatchCommits (one message per commit): the caller's views after a commit go with its last
// event (Seat for a seat, Public for anyone); its earlier events carry no view. Act on the items that carry one.
//
// A stream broken by UNAVAILABLE (or a server-side CANCELLED: a restart, a dropped connection) is reopened after
// the last version delivered, up to Retries times in a row with backoff; a stream a quota refused (too many
// watches) is opened again after its RetryInfo delay. The sequence ends when the server ends the stream (right
// after the event that ends the match), ctx is done, or the loop breaks; a final error is yielded with a nil
// response. A watch has no deadline: cancel ctx to stop it. Each event's version counts as seen.
func (c *Client) Watch(ctx context.Context, name string, afterVersion int64, options WatchOptions) iter.Seq2[*trucov1.WatchGameResponse, error] {
	return perEvent(c.WatchCommits(ctx, name, afterVersion, options))
}

// WatchCommits yields each new commit of the game as one message (WatchGame with per_commit), from afterVersion
// on: a move with the bot moves and the deal it triggered arrives as one WatchGameResponse whose Events are all of
// them, in order, each with its version, with the caller's view after the last one (Seat for a seat, Public for a
// spectator). The first message holds every event after afterVersion, which may be in the middle of a commit.
// CommitEvents reads a message's events (also from a server older than per_commit, which sends one event per
// message). It resumes and ends as Watch does (which is this stream, one event at a time).
func (c *Client) WatchCommits(ctx context.Context, name string, afterVersion int64, options WatchOptions) iter.Seq2[*trucov1.WatchGameResponse, error] {
	name = GameName(name)
	return func(yield func(*trucov1.WatchGameResponse, error) bool) {
		last := afterVersion
		failures := 0
		for ctx.Err() == nil {
			streamCtx, cancel := context.WithCancel(c.outgoing(ctx, name))
			request := &trucov1.WatchGameRequest{Name: name, AfterVersion: last, PerCommit: true}
			stream, err := c.Games.WatchGame(streamCtx, request)
			for err == nil {
				var item *trucov1.WatchGameResponse
				if item, err = stream.Recv(); err != nil {
					break
				}
				failures = 0
				if events := CommitEvents(item); len(events) > 0 {
					last = max(last, events[len(events)-1].GetVersion())
				}
				c.seen.saw(name, CommitVersion(item))
				if !yield(item, nil) {
					cancel()
					return
				}
			}
			cancel()
			if errors.Is(err, errEOF()) || ctx.Err() != nil {
				return
			}
			failure := FromError(err).(*Error)
			wait, again := c.retryWait(ctx, failures, failure)
			if !again {
				yield(nil, failure)
				return
			}
			if options.OnResume != nil {
				options.OnResume(last, failure)
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			failures++
		}
	}
}

// ListGames yields every open game (a seat free, not over), newest first, page after page.
func (c *Client) ListGames(ctx context.Context, pageSize int32) iter.Seq2[*trucov1.Game, error] {
	return func(yield func(*trucov1.Game, error) bool) {
		token := ""
		for {
			request := &trucov1.ListGamesRequest{PageSize: pageSize, PageToken: token}
			response, err := unary(c, ctx, "", func(ctx context.Context) (*trucov1.ListGamesResponse, error) {
				return c.Games.ListGames(ctx, request)
			})
			if err != nil {
				yield(nil, err)
				return
			}
			for _, game := range response.GetGames() {
				if !yield(game, nil) {
					return
				}
			}
			if token = response.GetNextPageToken(); token == "" {
				return
			}
		}
	}
}

// GetGame is the game: seats (with presence and takeover), clock settings, phase, scores, rematch links.
func (c *Client) GetGame(ctx context.Context, name string) (*trucov1.Game, error) {
	request := &trucov1.GetGameRequest{Name: GameName(name)}
	response, err := unary(c, ctx, request.Name, func(ctx context.Context) (*trucov1.GetGameResponse, error) {
		return c.Games.GetGame(ctx, request)
	})
	if err != nil {
		return nil, err
	}
	c.seen.saw(request.Name, response.GetGame().GetVersion())
	return response.GetGame(), nil
}

// LeaveGame leaves this client's seat: a bot plays it until ResumeSeat. It returns the seat's view.
func (c *Client) LeaveGame(ctx context.Context, name string) (*trucov1.SeatView, error) {
	request := &trucov1.LeaveGameRequest{Name: GameName(name)}
	response, err := unary(c, ctx, request.Name, func(ctx context.Context) (*trucov1.LeaveGameResponse, error) {
		return c.Games.LeaveGame(ctx, request)
	})
	if err != nil {
		return nil, err
	}
	c.seen.saw(request.Name, response.GetView().GetPublic().GetVersion())
	return response.GetView(), nil
}

// ResumeSeat takes this client's seat back from the bot that played it (after its clock ran out, or a leave).
func (c *Client) ResumeSeat(ctx context.Context, name string) (*trucov1.SeatView, error) {
	request := &trucov1.ResumeSeatRequest{Name: GameName(name)}
	response, err := unary(c, ctx, request.Name, func(ctx context.Context) (*trucov1.ResumeSeatResponse, error) {
		return c.Games.ResumeSeat(ctx, request)
	})
	if err != nil {
		return nil, err
	}
	c.seen.saw(request.Name, response.GetView().GetPublic().GetVersion())
	return response.GetView(), nil
}

// StartWithBots deals a game waiting for friends now, the server's bots in its open seats at the game's level
// (Game: the seats after; View: this seat's view after the deal). Only the table's host may: the player who sat
// down first (ErrPermissionDenied NOT_TABLE_HOST otherwise). ErrIllegalMove GAME_ALREADY_STARTED once dealt.
func (c *Client) StartWithBots(ctx context.Context, name string) (*trucov1.StartWithBotsResponse, error) {
	request := &trucov1.StartWithBotsRequest{Name: GameName(name)}
	response, err := unary(c, ctx, request.Name, func(ctx context.Context) (*trucov1.StartWithBotsResponse, error) {
		return c.Games.StartWithBots(ctx, request)
	})
	if err != nil {
		return nil, err
	}
	c.seen.saw(request.Name, response.GetView().GetPublic().GetVersion())
	return response, nil
}

// Rematch is the next game of a finished one (Game, Seat): same seats, and this client's token holds its seat
// there too. Every seat asking gets the same game. ErrIllegalMove GAME_NOT_FINISHED for a game still in play.
func (c *Client) Rematch(ctx context.Context, name string) (*trucov1.RematchResponse, error) {
	request := &trucov1.RematchRequest{Name: GameName(name)}
	return unary(c, ctx, request.Name, func(ctx context.Context) (*trucov1.RematchResponse, error) {
		return c.Games.Rematch(ctx, request)
	})
}

// --- RulesService --------------------------------------------------------------------------------------------

// EvaluateHand is the envido, flor and card strengths of three cards under a muestra.
func (c *Client) EvaluateHand(ctx context.Context, muestra *trucov1.Card, cards []*trucov1.Card, withoutFlor bool) (*trucov1.EvaluateHandResponse, error) {
	request := &trucov1.EvaluateHandRequest{Muestra: muestra, Cards: cards, WithoutFlor: withoutFlor}
	return unary(c, ctx, "", func(ctx context.Context) (*trucov1.EvaluateHandResponse, error) {
		return c.Rules.EvaluateHand(ctx, request)
	})
}

// CompareCards says which card wins a round under a muestra: Result 1 (first), -1 (second) or 0 (parda).
func (c *Client) CompareCards(ctx context.Context, muestra, first, second *trucov1.Card) (*trucov1.CompareCardsResponse, error) {
	request := &trucov1.CompareCardsRequest{Muestra: muestra, First: first, Second: second}
	return unary(c, ctx, "", func(ctx context.Context) (*trucov1.CompareCardsResponse, error) {
		return c.Rules.CompareCards(ctx, request)
	})
}

func errEOF() error { return io.EOF }
