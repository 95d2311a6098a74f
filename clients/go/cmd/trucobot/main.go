// Command trucobot is the Go SDK's example bot: it creates a match against the server's heuristic bots, plays
// its seats to the end, and tries one illegal card (one not in its hand) on its first turn to show the typed
// error. It prints one JSON line:
//
//	{"sdk": "go", "over": true, "scores": [a, b], "illegal_reason": "CARD_NOT_IN_HAND", ...}
//
// and exits 0 only if the match ended and the illegal card was refused with CARD_NOT_IN_HAND.
//
//	trucobot ADDRESS                      2 players: this bot in seat 0, a server bot in seat 1
//	trucobot --players 4 --watch ADDRESS  4 players (or 6): this bot plays the even seats (a client each), server
//	                                      bots the odd ones; each seat waits for its turn on a WatchGame stream
//	                                      that resumes by itself
//	trucobot --players 4 --session ADDRESS  the same, each seat playing its whole match from one PlayGame session
//	                                      (Client.Play: its commands in, the commits out; it resumes by itself)
//	--target N (points to win), --think-ms N (a pause before each move), --bot-level LEVEL (the server bots')
//	--quick: a quick match instead (PlayerService's FindMatch, with the player token in $TRUCO_PLAYER_TOKEN): the
//	  bot waits for rivals at a table of --players, the server's bots filling the seats still free after
//	  --bots-after S seconds (default 5), and plays its one seat (by polling, --watch or --session)
//
// It runs against a server with its default settings (quotas on): the SDK waits out a quota's RetryInfo itself.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"iter"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	trucov1 "github.com/truco-uy/truco/clients/go/gen/truco/v1"
	"github.com/truco-uy/truco/clients/go/truco"
)

// pollInterval is how often a polling seat reads its view while it waits (5 reads a second, well inside a
// player's quota).
const pollInterval = 200 * time.Millisecond

type state struct {
	mu            sync.Mutex
	illegalReason string
	moves         atomic.Int64
	resumes       atomic.Int64
	// watched are the versions of the events seat 0's watch (or session) delivered, in order (señas aside: they
	// keep the version of the event before them).
	watched []int64
}

func logf(format string, args ...any) { fmt.Fprintf(os.Stderr, "bot(go): "+format+"\n", args...) }

// submitter sends one command for a seat at a version: Client.Submit, or a session's Submit.
type submitter func(ctx context.Context, command *trucov1.Command, expectedVersion int64) error

// tryIllegalCard plays a card of the deck that is not in the hand: the server must refuse it (CARD_NOT_IN_HAND).
func tryIllegalCard(ctx context.Context, submit submitter, view *trucov1.SeatView) (string, error) {
	held := map[string]bool{}
	for _, card := range view.GetCards() {
		held[truco.CardText(card)] = true
	}
	for _, card := range truco.Deck() {
		if held[truco.CardText(card)] {
			continue
		}
		err := submit(ctx, truco.Play(card), view.GetPublic().GetVersion())
		if err == nil {
			return "ACCEPTED", nil
		}
		if errors.Is(err, truco.ErrIllegalMove) {
			logf("illegal %s refused: %v", truco.CardText(card), err)
			return truco.Reason(err), nil
		}
		return "", err
	}
	return "", errors.New("every card is in hand?")
}

func (s *state) maybeIllegal(ctx context.Context, submit submitter, view *trucov1.SeatView) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.illegalReason != "" || !truco.HasLegal(view, truco.PreferPlayCard) {
		return nil
	}
	reason, err := tryIllegalCard(ctx, submit, view)
	s.illegalReason = reason
	return err
}

func (s *state) act(ctx context.Context, client *truco.Client, name string, view *trucov1.SeatView, think time.Duration) (*trucov1.SeatView, error) {
	if !truco.IsMyTurn(view) {
		return view, nil
	}
	submit := func(ctx context.Context, command *trucov1.Command, expectedVersion int64) error {
		_, err := client.Submit(ctx, name, command, expectedVersion)
		return err
	}
	if err := s.maybeIllegal(ctx, submit, view); err != nil {
		return nil, err
	}
	time.Sleep(think)
	// PlayTurn re-reads the view when the game moved on (ABORTED) and chooses again.
	turn, err := client.PlayTurn(ctx, name, view, truco.PlainBot)
	if err != nil || turn == nil {
		return view, err
	}
	s.moves.Add(1)
	return turn.Response.GetView(), nil
}

// playByPolling plays one seat by reading its view after each move (the server's bots answer before the reply).
func (s *state) playByPolling(ctx context.Context, client *truco.Client, name string, view *trucov1.SeatView, think time.Duration) error {
	for !truco.IsOver(view) {
		if !truco.IsMyTurn(view) {
			time.Sleep(pollInterval)
			var err error
			if view, err = client.SeatView(ctx, name); err != nil {
				return err
			}
			continue
		}
		next, err := s.act(ctx, client, name, view, think)
		if err != nil {
			return err
		}
		if next == nil || next == view {
			if next, err = client.SeatView(ctx, name); err != nil {
				return err
			}
		}
		view = next
	}
	return nil
}

// playByWatching plays one seat from a WatchGame stream: a move each time the stream shows it legal actions.
func (s *state) playByWatching(ctx context.Context, client *truco.Client, name string, view *trucov1.SeatView, think time.Duration) error {
	if _, err := s.act(ctx, client, name, view, think); err != nil {
		return err
	}
	onResume := func(after int64, err error) {
		s.resumes.Add(1)
		logf("seat %d: watch broken (%v), resuming after version %d", view.GetSeat(), err, after)
	}
	items := client.Watch(ctx, name, view.GetPublic().GetVersion(), truco.WatchOptions{OnResume: onResume})
	return s.follow(items, view.GetSeat(), func(view *trucov1.SeatView) error {
		_, err := s.act(ctx, client, name, view, think)
		return err
	})
}

// follow takes a seat's events as Watch and Session.Events hand them (each event of a commit in order, the seat's
// view after the commit with its last one): seat 0 records their versions, and the seat acts on each view until
// the match is over.
func (s *state) follow(items iter.Seq2[*trucov1.WatchGameResponse, error], seat int32, act func(*trucov1.SeatView) error) error {
	for item, err := range items {
		if err != nil {
			return err
		}
		if seat == 0 && item.GetEvent().GetSenaSent() == nil {
			s.watched = append(s.watched, item.GetEvent().GetVersion())
		}
		if item.GetSeat() == nil {
			continue
		}
		if truco.IsOver(item.GetSeat()) {
			return nil
		}
		if err := act(item.GetSeat()); err != nil {
			return err
		}
	}
	return nil
}

// playBySession plays one seat from a PlayGame session: its moves go in on the session, and it moves each time a
// commit shows it legal actions. A move the game had moved past waits for the next commit: VERSION_CONFLICT, or
// MATCH_OVER when the move that ended the match was a teammate's (both may answer a call), made first.
func (s *state) playBySession(ctx context.Context, client *truco.Client, name string, view *trucov1.SeatView, think time.Duration) error {
	onResume := func(after int64, err error) {
		s.resumes.Add(1)
		logf("seat %d: session broken (%v), resuming after version %d", view.GetSeat(), err, after)
	}
	session, err := client.Play(ctx, name, view.GetPublic().GetVersion(), truco.PlayOptions{OnResume: onResume})
	if err != nil {
		return err
	}
	defer session.Close()
	submit := func(ctx context.Context, command *trucov1.Command, expectedVersion int64) error {
		_, err := session.Submit(ctx, command, expectedVersion)
		return err
	}
	act := func(view *trucov1.SeatView) error {
		if !truco.IsMyTurn(view) {
			return nil
		}
		if err := s.maybeIllegal(ctx, submit, view); err != nil {
			return err
		}
		time.Sleep(think)
		err := submit(ctx, truco.PlainBot(view), view.GetPublic().GetVersion())
		if errors.Is(err, truco.ErrVersionConflict) || truco.Reason(err) == "MATCH_OVER" {
			return nil // the commit that moved the game on is on its way, with a view to choose from again
		}
		if err == nil {
			s.moves.Add(1)
		}
		return err
	}
	if err := act(view); err != nil {
		return err
	}
	return s.follow(session.Events(), view.GetSeat(), act)
}

// seated is one seat this bot plays: its client and its first view.
type seated struct {
	client *truco.Client
	view   *trucov1.SeatView
}

// createTable makes a game against the server's bots: they take the odd seats (the rival team), this bot every
// even one, each with a client of its own.
func createTable(ctx context.Context, creator *truco.Client, rules *trucov1.RuleSet, level trucov1.BotLevel) (string, []seated, error) {
	bots := map[int32]trucov1.BotKind{}
	for seat := int32(1); seat < rules.GetPlayers(); seat += 2 {
		bots[seat] = trucov1.BotKind_BOT_KIND_HEURISTIC
	}
	game, err := creator.CreateGame(ctx, truco.CreateOptions{Rules: rules, Bots: bots, BotLevel: level})
	if err != nil {
		return "", nil, err
	}
	logf("game %s", game.GetName())
	var seats []seated
	for seat := int32(0); seat < rules.GetPlayers(); seat += 2 {
		client := creator.WithToken("")
		joined, err := client.JoinGame(ctx, game.GetName(), seat, fmt.Sprintf("go bot %d", seat))
		if err != nil {
			return "", nil, err
		}
		seats = append(seats, seated{client, joined.View})
	}
	return game.GetName(), seats, nil
}

// quickTable is a quick match: a ticket followed until the server seats this player (with rivals, or with its
// bots after botsAfter).
func quickTable(ctx context.Context, player *truco.Client, rules *trucov1.RuleSet, level trucov1.BotLevel, botsAfter time.Duration) (string, []seated, error) {
	options := truco.FindMatchOptions{
		Rules: rules, BotsAfter: botsAfter, BotLevel: level,
		OnTicket: func(ticket *trucov1.MatchTicket) { logf("ticket %s %s", ticket.GetName(), ticket.GetState()) },
	}
	match, err := player.QuickMatch(ctx, options)
	if err != nil {
		return "", nil, err
	}
	logf("game %s (seat %d)", match.Game, match.Seat)
	view, err := match.Client.SeatView(ctx, match.Game)
	if err != nil {
		return "", nil, err
	}
	return match.Game, []seated{{match.Client, view}}, nil
}

func run() (int, error) {
	players := flag.Int("players", 2, "2, 4 or 6 players")
	botLevel := flag.String("bot-level", "", "the server bots' level: beginner, intermediate or expert")
	watch := flag.Bool("watch", false, "wait for turns on a WatchGame stream")
	session := flag.Bool("session", false, "play each seat's match from one PlayGame session")
	target := flag.Int("target", 0, "points to win (0: the server's default)")
	thinkMs := flag.Int("think-ms", 0, "a pause before each move, in milliseconds")
	quick := flag.Bool("quick", false, "a quick match (FindMatch) with the player token in $TRUCO_PLAYER_TOKEN")
	botsAfter := flag.Int("bots-after", 5, "with --quick: seconds before the server's bots may fill the free seats")
	flag.Parse()
	level, known := trucov1.BotLevel_value["BOT_LEVEL_"+strings.ToUpper(*botLevel)]
	if flag.NArg() != 1 || (*players != 2 && *players != 4 && *players != 6) || (*botLevel != "" && !known) || (*watch && *session) {
		return 2, errors.New("usage: trucobot [--players 2|4|6] [--watch | --session] [--target N] [--think-ms N] [--bot-level L] [--quick [--bots-after S]] ADDRESS")
	}
	options := truco.Options{}
	if *watch || *session {
		options = truco.Options{Retries: 60, MaxBackoff: time.Second}
	}
	options.APIKey = os.Getenv("TRUCO_API_KEY")
	options.PlayerToken = os.Getenv("TRUCO_PLAYER_TOKEN")
	if *quick && options.PlayerToken == "" {
		return 2, errors.New("--quick needs a player token in $TRUCO_PLAYER_TOKEN")
	}
	creator, err := truco.Dial(flag.Arg(0), options)
	if err != nil {
		return 2, err
	}
	defer creator.Close()
	ctx := context.Background()
	rules := &trucov1.RuleSet{Players: int32(*players), Target: int32(*target)}
	var name string
	var seats []seated
	if *quick {
		name, seats, err = quickTable(ctx, creator, rules, trucov1.BotLevel(level), time.Duration(*botsAfter)*time.Second)
	} else {
		name, seats, err = createTable(ctx, creator, rules, trucov1.BotLevel(level))
	}
	if err != nil {
		return 2, err
	}
	s := &state{watched: []int64{}}
	think := time.Duration(*thinkMs) * time.Millisecond
	errs := make(chan error, len(seats))
	for _, seat := range seats {
		go func() {
			switch {
			case *session:
				errs <- s.playBySession(ctx, seat.client, name, seat.view, think)
			case *watch:
				errs <- s.playByWatching(ctx, seat.client, name, seat.view, think)
			default:
				errs <- s.playByPolling(ctx, seat.client, name, seat.view, think)
			}
		}()
	}
	for range seats {
		if err := <-errs; err != nil {
			return 2, err
		}
	}
	first := seats[0].client
	final, err := first.SeatView(ctx, name)
	if err != nil {
		return 2, err
	}
	scores := []int32{0, 0}
	for _, score := range final.GetPublic().GetScores() {
		scores[score.GetTeam()] = score.GetPoints()
	}
	result := struct {
		SDK           string  `json:"sdk"`
		Over          bool    `json:"over"`
		Scores        []int32 `json:"scores"`
		IllegalReason string  `json:"illegal_reason"`
		Game          string  `json:"game"`
		Quick         bool    `json:"quick"`
		Seats         []int32 `json:"seats"`
		Players       int     `json:"players"`
		Moves         int64   `json:"moves"`
		Resumes       int64   `json:"resumes"`
		Watched       []int64 `json:"watched"`
	}{"go", truco.IsOver(final), scores, s.illegalReason, name, *quick, seatsOf(seats), *players, s.moves.Load(), s.resumes.Load(), s.watched}
	line, _ := json.Marshal(result)
	fmt.Println(string(line))
	if truco.IsOver(final) && s.illegalReason == "CARD_NOT_IN_HAND" {
		return 0, nil
	}
	return 1, nil
}

func seatsOf(seats []seated) []int32 {
	numbers := make([]int32, len(seats))
	for i, seat := range seats {
		numbers[i] = seat.view.GetSeat()
	}
	return numbers
}

func main() {
	code, err := run()
	if err != nil {
		logf("%v", err)
	}
	os.Exit(code)
}
