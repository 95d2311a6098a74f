package truco

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"

	trucov1 "github.com/truco-uy/truco/clients/go/gen/truco/v1"
)

// PlayerHeader is the metadata key carrying a player token (a JWT an app's backend signed for one of its players).
const PlayerHeader = "x-player-token"

// ErrNoMatch is what QuickMatch returns (as a *NoMatchError) when its ticket ends without a match.
var ErrNoMatch = errors.New("no match")

// NoMatchError is a quick match that found no game: its ticket EXPIRED (its wait ran out) or was CANCELLED (by
// CancelMatch from elsewhere). errors.Is(err, ErrNoMatch) holds for it.
type NoMatchError struct {
	// Ticket is how the ticket ended (nil when its stream ended before its first message).
	Ticket *trucov1.MatchTicket
}

func (e *NoMatchError) Error() string {
	return fmt.Sprintf("no match: the ticket ended %s", e.Ticket.GetState())
}

// Is matches ErrNoMatch.
func (e *NoMatchError) Is(target error) bool { return target == ErrNoMatch }

// PlayerName is the resource name players/{sub}, from it or from the bare sub ("me": the caller's own player).
func PlayerName(name string) string {
	if strings.HasPrefix(name, "players/") {
		return name
	}
	return "players/" + name
}

// FindMatchOptions are the ticket FindMatch and QuickMatch ask for. The zero value of a field takes the server's
// default.
type FindMatchOptions struct {
	// Rules wanted; Players is the table size (2, 4 or 6).
	Rules *trucov1.RuleSet
	// Party are the subs of the party's other players, who sit on this player's team (each opens its own ticket).
	Party []string
	// MaxWait is how long to wait for a match (5s to 10 minutes; 0: the server's default, 2 minutes).
	MaxWait time.Duration
	// BotsAfter: after waiting this long the server's bots may fill the free seats (the match is then unrated);
	// 0: only players.
	BotsAfter time.Duration
	// BotLevel is the strength of the bots that fill seats.
	BotLevel trucov1.BotLevel
	// RequestID is the ticket's idempotency key ("" : a fresh one), sent again when a broken stream is reopened.
	RequestID string
	// OnResume is called each time a broken stream is reopened (it follows the same ticket).
	OnResume func(err error)
	// OnTicket (QuickMatch only) is called with each state the ticket passes through.
	OnTicket func(ticket *trucov1.MatchTicket)
}

func (o FindMatchOptions) request() *trucov1.FindMatchRequest {
	request := &trucov1.FindMatchRequest{
		RequestId: o.RequestID, Rules: o.Rules, Party: o.Party, BotLevel: o.BotLevel,
	}
	if request.RequestId == "" {
		request.RequestId = NewRequestID()
	}
	if o.MaxWait > 0 {
		request.MaxWait = durationpb.New(o.MaxWait)
	}
	if o.BotsAfter > 0 {
		request.BotsAfter = durationpb.New(o.BotsAfter)
	}
	return request
}

// finalTicket reports whether a ticket's state is one its stream sends nothing after.
func finalTicket(ticket *trucov1.MatchTicket) bool {
	switch ticket.GetState() {
	case trucov1.TicketState_TICKET_STATE_MATCHED, trucov1.TicketState_TICKET_STATE_EXPIRED,
		trucov1.TicketState_TICKET_STATE_CANCELLED:
		return true
	default:
		return false
	}
}

// FindMatch opens a quick-match ticket and yields each FindMatchResponse the server sends: the ticket WAITING,
// its window widening, ... then MATCHED (with the game, the seat and the seat token), EXPIRED or CANCELLED, after
// which the sequence ends. It needs a player token. A stream broken by UNAVAILABLE (or a server-side CANCELLED)
// is reopened with the same request id, which follows the same ticket (a matched one answers MATCHED again), up
// to Retries times in a row with backoff; a stream a quota refused is opened again after its RetryInfo delay. A
// final error is yielded with a nil response. Cancelling ctx (or breaking the loop) closes the stream, which
// cancels a ticket not yet matched. QuickMatch does all of it and hands back the seat.
func (c *Client) FindMatch(ctx context.Context, options FindMatchOptions) iter.Seq2[*trucov1.FindMatchResponse, error] {
	request := options.request()
	return func(yield func(*trucov1.FindMatchResponse, error) bool) {
		failures := 0
		for ctx.Err() == nil {
			streamCtx, cancel := context.WithCancel(c.outgoing(ctx, ""))
			stream, err := c.Players.FindMatch(streamCtx, request)
			for err == nil {
				var item *trucov1.FindMatchResponse
				if item, err = stream.Recv(); err != nil {
					break
				}
				failures = 0
				if !yield(item, nil) || finalTicket(item.GetTicket()) {
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
				options.OnResume(failure)
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

// QuickMatchResult is what QuickMatch found.
type QuickMatchResult struct {
	// Game is the game (games/{id}), created with every seat taken.
	Game string
	// Seat is this player's seat in it.
	Seat int32
	// Client acts as that seat: its seat token, this client's player token and API key.
	Client *Client
	// Ticket is the ticket, MATCHED.
	Ticket *trucov1.MatchTicket
}

// cancelTimeout bounds the CancelMatch an abandoned QuickMatch sends after its own context is done.
const cancelTimeout = 5 * time.Second

// QuickMatch finds a match and sits in it: it opens a ticket (FindMatch), calls options.OnTicket with each state
// it passes through, and returns when it is MATCHED: the game, the seat and a client acting as the seat. A
// ticket that EXPIRES or is CANCELLED returns a *NoMatchError (errors.Is ErrNoMatch). Cancelling ctx abandons
// it: the stream closes, the ticket is cancelled (CancelMatch, in case the server has not yet seen the stream
// go) and an error wrapping ctx's (errors.Is context.Canceled) is returned.
func (c *Client) QuickMatch(ctx context.Context, options FindMatchOptions) (*QuickMatchResult, error) {
	var ticket *trucov1.MatchTicket
	for item, err := range c.FindMatch(ctx, options) {
		if err != nil {
			return nil, err
		}
		if item.GetTicket() == nil {
			continue
		}
		ticket = item.GetTicket()
		if options.OnTicket != nil {
			options.OnTicket(ticket)
		}
		switch ticket.GetState() {
		case trucov1.TicketState_TICKET_STATE_MATCHED:
			game := GameName(item.GetGame())
			return &QuickMatchResult{Game: game, Seat: item.GetSeat(), Client: c.WithToken(item.GetSeatToken()), Ticket: ticket}, nil
		case trucov1.TicketState_TICKET_STATE_EXPIRED, trucov1.TicketState_TICKET_STATE_CANCELLED:
			return nil, &NoMatchError{Ticket: ticket}
		default:
		}
	}
	if ctx.Err() != nil {
		if ticket != nil {
			// The closed stream cancels the ticket; this says so at once, and a ticket matched meanwhile stays so.
			cancelCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelTimeout)
			_, _ = c.CancelMatch(cancelCtx, ticket.GetName())
			cancel()
		}
		return nil, fmt.Errorf("quick match abandoned: %w", ctx.Err())
	}
	return nil, &NoMatchError{Ticket: ticket}
}

// CancelMatch cancels this player's open ticket (name, or "" : its only one) and returns the ticket as it ends
// (CANCELLED, or as it was when already over). A matched ticket is not cancelled: ErrIllegalMove
// TICKET_ALREADY_MATCHED.
func (c *Client) CancelMatch(ctx context.Context, name string) (*trucov1.MatchTicket, error) {
	request := &trucov1.CancelMatchRequest{Name: name}
	response, err := unary(c, ctx, "", func(ctx context.Context) (*trucov1.CancelMatchResponse, error) {
		return c.Players.CancelMatch(ctx, request)
	})
	if err != nil {
		return nil, err
	}
	return response.GetTicket(), nil
}

// GetPlayer is a player of this app (players/{sub}, a bare sub, or "me": the player of this client's token)
// with its ratings.
func (c *Client) GetPlayer(ctx context.Context, name string) (*trucov1.Player, error) {
	request := &trucov1.GetPlayerRequest{Name: PlayerName(name)}
	response, err := unary(c, ctx, "", func(ctx context.Context) (*trucov1.GetPlayerResponse, error) {
		return c.Players.GetPlayer(ctx, request)
	})
	if err != nil {
		return nil, err
	}
	return response.GetPlayer(), nil
}

// LeaderboardOptions choose a page of a ranking.
type LeaderboardOptions struct {
	// PageSize is the most entries (0: the server's default, 20).
	PageSize int32
	// PageToken is a previous page's NextPageToken, for the page after it.
	PageToken string
	// AroundPlayer (players/{sub}, a bare sub, or "me"): the page with that player in its middle, not the top.
	AroundPlayer string
}

// ListLeaderboard is one page of the app's ranking at a table size (2, 4 or 6), best first.
func (c *Client) ListLeaderboard(ctx context.Context, players int32, options LeaderboardOptions) (*trucov1.ListLeaderboardResponse, error) {
	request := &trucov1.ListLeaderboardRequest{Players: players, PageSize: options.PageSize, PageToken: options.PageToken}
	if options.AroundPlayer != "" {
		request.AroundPlayer = PlayerName(options.AroundPlayer)
	}
	return unary(c, ctx, "", func(ctx context.Context) (*trucov1.ListLeaderboardResponse, error) {
		return c.Players.ListLeaderboard(ctx, request)
	})
}

// ListPlayerMatches is one page of a player's finished games, newest first (each replayable with Watch from 0).
func (c *Client) ListPlayerMatches(ctx context.Context, name string, pageSize int32, pageToken string) (*trucov1.ListPlayerMatchesResponse, error) {
	request := &trucov1.ListPlayerMatchesRequest{Name: PlayerName(name), PageSize: pageSize, PageToken: pageToken}
	return unary(c, ctx, "", func(ctx context.Context) (*trucov1.ListPlayerMatchesResponse, error) {
		return c.Players.ListPlayerMatches(ctx, request)
	})
}
