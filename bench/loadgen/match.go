package main

// One table of the load: its seats, each a client with its own gRPC connection and WatchGame stream, playing
// match after match at a human pace: a seat whose turn it is waits a think time, then submits its move. With
// Play.Session each seat plays on one PlayGame stream instead: its commands and the game's commits on one call.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	trucov1 "github.com/truco-uy/truco/clients/go/gen/truco/v1"
	"github.com/truco-uy/truco/clients/go/truco"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// AffinityHeader carries the game's name on every call of a game, for a balancer that hashes on it.
const AffinityHeader = "x-truco-game"

// Play is how the tables play.
type Play struct {
	Players     int
	Target      int32
	Think       time.Duration
	Jitter      float64 // a think time is uniform in Think × [1-Jitter, 1+Jitter]
	PerCommit   bool
	Session     bool // each seat on one PlayGame stream instead of SubmitCommand + WatchGame
	CallTimeout time.Duration
}

// Load is what every table shares: the server's address, the window being measured, the count of open streams.
type Load struct {
	Address  string
	Play     Play
	recorder atomic.Pointer[Recorder] // the window being measured; nil between windows
	streams  atomic.Int64
	trackers sync.Map // the matches in play (*Tracker)
	dialOpts []grpc.DialOption
}

func NewLoad(address string, play Play) *Load {
	return &Load{
		Address: address,
		Play:    play,
		dialOpts: []grpc.DialOption{
			grpc.WithTransportCredentials(insecure.NewCredentials()),
			// Small buffers: thousands of connections in one process; messages are a few KiB.
			grpc.WithReadBufferSize(16 << 10),
			grpc.WithWriteBufferSize(16 << 10),
		},
	}
}

func (l *Load) window() *Recorder { return l.recorder.Load() }

// Table is a slot of the load: Players seats with a connection each, playing matches one after another.
type Table struct {
	load  *Load
	conns []*grpc.ClientConn
	rng   *rand.Rand // the table's own: seeds each match's seats
}

func (l *Load) NewTable(seed uint64) (*Table, error) {
	table := &Table{load: l, rng: rand.New(rand.NewPCG(seed, 0x7275636f))}
	for range l.Play.Players {
		conn, err := grpc.NewClient(l.Address, l.dialOpts...)
		if err != nil {
			table.Close()
			return nil, err
		}
		table.conns = append(table.conns, conn)
	}
	return table, nil
}

func (t *Table) Close() {
	for _, conn := range t.conns {
		conn.Close()
	}
}

// Run plays matches until ctx ends.
func (t *Table) Run(ctx context.Context) {
	for ctx.Err() == nil {
		if err := t.playMatch(ctx); err != nil && ctx.Err() == nil {
			if w := t.load.window(); w != nil {
				w.Error("match: " + errorKind(err))
			}
			sleep(ctx, time.Second) // a failing server is not hammered
		}
	}
}

func errorKind(err error) string {
	if s, ok := status.FromError(err); ok {
		return s.Code().String()
	}
	return "other"
}

func sleep(ctx context.Context, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}

// seat is one player of a match: the latest view it knows of (from its replies and its watch) and a signal
// that the view changed.
type seat struct {
	number  int32
	rng     *rand.Rand // the seat's own: its acting goroutine alone uses it
	client  trucov1.GameServiceClient
	md      metadata.MD
	mu      sync.Mutex
	view    *trucov1.SeatView
	changed chan struct{}

	// With Play.Session: the seat's open PlayGame stream (nil while it reopens), the request id of the command
	// waiting for its outcome, and where the reader hands that outcome.
	session  grpc.BidiStreamingClient[trucov1.PlayGameRequest, trucov1.PlayGameResponse]
	waiting  string
	outcomes chan *trucov1.PlayGameOutcome
}

func (s *seat) latest() *trucov1.SeatView {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.view
}

// update keeps the newer of the known view and “view“, and signals.
func (s *seat) update(view *trucov1.SeatView) {
	if view == nil {
		return
	}
	s.mu.Lock()
	if s.view == nil || view.GetPublic().GetVersion() >= s.view.GetPublic().GetVersion() {
		s.view = view
	}
	s.mu.Unlock()
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

func (t *Table) call(ctx context.Context, md metadata.MD) (context.Context, context.CancelFunc) {
	ctx = metadata.NewOutgoingContext(ctx, md)
	return context.WithTimeout(ctx, t.load.Play.CallTimeout)
}

func (t *Table) playMatch(parent context.Context) error {
	play := t.load.Play
	creator := trucov1.NewGameServiceClient(t.conns[0])
	ctx, cancel := t.call(parent, metadata.MD{})
	created, err := creator.CreateGame(ctx, &trucov1.CreateGameRequest{
		RequestId: truco.NewRequestID(),
		Rules:     &trucov1.RuleSet{Players: int32(play.Players), Target: play.Target},
	})
	cancel()
	if err != nil {
		return fmt.Errorf("CreateGame: %w", err)
	}
	if w := t.load.window(); w != nil {
		w.started.Add(1)
	}
	name := created.GetGame().GetName()
	tracker := NewTracker(play.Players)
	t.load.trackers.Store(tracker, nil)
	defer t.load.trackers.Delete(tracker)
	seats := make([]*seat, play.Players)
	for i := range seats {
		client := trucov1.NewGameServiceClient(t.conns[i])
		md := metadata.Pairs(AffinityHeader, name)
		ctx, cancel := t.call(parent, md)
		joined, err := client.JoinGame(ctx, &trucov1.JoinGameRequest{
			Name: name, Seat: ptr(int32(i)), RequestId: truco.NewRequestID(), PlayerName: fmt.Sprintf("p%d", i),
		})
		cancel()
		if err != nil {
			return fmt.Errorf("JoinGame: %w", err)
		}
		seats[i] = &seat{
			number:   joined.GetSeat(),
			rng:      rand.New(rand.NewPCG(t.rng.Uint64(), t.rng.Uint64())),
			client:   client,
			md:       metadata.Pairs(AffinityHeader, name, "authorization", "Bearer "+joined.GetSeatToken()),
			view:     joined.GetView(),
			changed:  make(chan struct{}, 1),
			outcomes: make(chan *trucov1.PlayGameOutcome, 1),
		}
	}
	matchCtx, stop := context.WithCancel(parent)
	defer stop()
	var wg sync.WaitGroup
	over := make(chan struct{}, play.Players)
	for _, s := range seats {
		wg.Add(2)
		if play.Session {
			go func() { defer wg.Done(); t.session(matchCtx, name, s, tracker) }()
		} else {
			go func() { defer wg.Done(); t.watch(matchCtx, name, s, tracker) }()
		}
		go func() { defer wg.Done(); t.act(matchCtx, name, s, tracker); over <- struct{}{} }()
	}
	// The match is over when every seat's player has seen it end (or the load is torn down).
	for range seats {
		select {
		case <-over:
		case <-parent.Done():
		}
	}
	stop()
	wg.Wait()
	tracker.Abandon(time.Now().Add(time.Hour), 0)
	if w := t.load.window(); w != nil && parent.Err() == nil {
		w.finished.Add(1)
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// watch keeps the seat's WatchGame stream open, resuming from the last version it carried, until the match
// ends or ctx does.
func (t *Table) watch(ctx context.Context, name string, s *seat, tracker *Tracker) {
	t.keepOpen(ctx, "watch", s.latest().GetPublic().GetVersion(), func(after int64) (int64, error) {
		stream, err := s.client.WatchGame(metadata.NewOutgoingContext(ctx, s.md), &trucov1.WatchGameRequest{
			Name: name, AfterVersion: after, PerCommit: t.load.Play.PerCommit,
		})
		if err != nil {
			return after, err
		}
		t.load.streams.Add(1)
		defer t.load.streams.Add(-1)
		for {
			message, err := stream.Recv()
			if err != nil {
				return after, endOf(err)
			}
			after = t.received(s, tracker, after, message, time.Now())
		}
	})
}

// keepOpen runs one stream of a seat after another, each from the last version the one before carried, until
// one ends with OK (the match ended) or ctx ends; a broken one is counted as a resume.
func (t *Table) keepOpen(ctx context.Context, what string, after int64, stream func(after int64) (int64, error)) {
	for ctx.Err() == nil {
		var err error
		if after, err = stream(after); err == nil || ctx.Err() != nil {
			return // the stream ends with OK after the match's last event
		}
		if w := t.load.window(); w != nil {
			w.watchResumes.Add(1)
			w.Error(what + ": " + errorKind(err))
		}
		sleep(ctx, 200*time.Millisecond)
	}
}

// endOf is nil for a stream's normal end (io.EOF: the server ended it with OK), else the error.
func endOf(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// received takes one watch message (a commit, or an event of the released stream) that arrived at now: it counts
// it, times its delivery, and hands the seat its view. It returns the newest version seen.
func (t *Table) received(s *seat, tracker *Tracker, after int64, message *trucov1.WatchGameResponse, now time.Time) int64 {
	version := message.GetEvent().GetVersion()
	for _, event := range message.GetEvents() {
		version = max(version, event.GetVersion())
	}
	if w := t.load.window(); w != nil {
		w.messages.Add(1)
	}
	if version > after {
		after = version
		tracker.Received(s.number, version, now)
	}
	s.update(message.GetSeat())
	return after
}

// session keeps the seat's PlayGame stream open, resuming from the last version it carried, until the match
// ends or ctx does: it hands commits to the seat's view and the outcome of its command to act. A command whose
// stream broke before its outcome is not sent again: act gives up on it at its timeout and chooses again.
func (t *Table) session(ctx context.Context, name string, s *seat, tracker *Tracker) {
	t.keepOpen(ctx, "session", s.latest().GetPublic().GetVersion(), func(after int64) (int64, error) {
		stream, err := s.client.PlayGame(metadata.NewOutgoingContext(ctx, s.md))
		if err == nil {
			start := &trucov1.PlayGameStart{Name: name, AfterVersion: after}
			err = stream.Send(&trucov1.PlayGameRequest{Kind: &trucov1.PlayGameRequest_Start{Start: start}})
		}
		if err != nil {
			return after, err
		}
		s.mu.Lock()
		s.session = stream
		s.mu.Unlock()
		t.load.streams.Add(1)
		defer func() {
			t.load.streams.Add(-1)
			s.mu.Lock()
			s.session = nil
			s.mu.Unlock()
		}()
		for {
			message, err := stream.Recv()
			if err != nil {
				return after, endOf(err)
			}
			if outcome := message.GetOutcome(); outcome != nil {
				s.mu.Lock()
				mine := outcome.GetRequestId() == s.waiting
				s.mu.Unlock()
				if mine {
					select {
					case s.outcomes <- outcome:
					default:
					}
				}
				continue
			}
			after = t.received(s, tracker, after, message.GetCommit(), time.Now())
		}
	})
}

// submitOnSession sends the command on the seat's stream and waits for its outcome (or the call timeout).
func (t *Table) submitOnSession(ctx context.Context, s *seat, version int64, command *trucov1.Command) error {
	id := truco.NewRequestID()
	s.mu.Lock()
	stream := s.session
	s.waiting = id
	s.mu.Unlock()
	if stream == nil {
		return status.Error(codes.Unavailable, "the session is reopening")
	}
	message := &trucov1.PlayGameCommand{RequestId: id, ExpectedVersion: version, Command: command}
	if err := stream.Send(&trucov1.PlayGameRequest{Kind: &trucov1.PlayGameRequest_Command{Command: message}}); err != nil {
		return status.Error(codes.Unavailable, err.Error())
	}
	timer := time.NewTimer(t.load.Play.CallTimeout)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			return status.Error(codes.DeadlineExceeded, "no outcome")
		case outcome := <-s.outcomes:
			if outcome.GetRequestId() != id {
				continue // a late outcome of a command given up on
			}
			if refused := outcome.GetError(); refused != nil {
				return status.Error(codes.Code(refused.GetCode()), refused.GetReason())
			}
			return nil
		}
	}
}

// act plays the seat: on its turn it thinks, then submits a move at the version it chose it at.
func (t *Table) act(ctx context.Context, name string, s *seat, tracker *Tracker) {
	acted := int64(-1)
	for ctx.Err() == nil {
		view := s.latest()
		if truco.IsOver(view) {
			return
		}
		version := view.GetPublic().GetVersion()
		if !truco.IsMyTurn(view) || version == acted {
			select {
			case <-ctx.Done():
				return
			case <-s.changed:
			}
			continue
		}
		if !sleep(ctx, t.thinkTime(s.rng)) {
			return
		}
		if s.latest().GetPublic().GetVersion() != version {
			continue // the game moved while the player thought: look again
		}
		acted = version
		command := choose(view, s.rng)
		if command == nil {
			continue
		}
		window := t.load.window()
		sent := time.Now()
		tracker.Sent(version, s.number, sent, window)
		var reply *trucov1.SubmitCommandResponse
		var err error
		if t.load.Play.Session {
			err = t.submitOnSession(ctx, s, version, command) // the commit brings the view
		} else {
			callCtx, cancel := t.call(ctx, s.md)
			reply, err = s.client.SubmitCommand(callCtx, &trucov1.SubmitCommandRequest{
				Name: name, RequestId: truco.NewRequestID(), ExpectedVersion: version, Command: command,
			})
			cancel()
		}
		replied := time.Now()
		tracker.Replied(version, s.number, replied, err == nil)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if window != nil {
				if status.Code(err) == codes.Aborted || status.Code(err) == codes.FailedPrecondition {
					window.Conflict() // a teammate answered first, or the game moved: the next view decides
				} else {
					window.Error("submit: " + errorKind(err))
				}
			}
			continue
		}
		if window != nil {
			window.Submit(replied.Sub(sent))
		}
		s.update(reply.GetView())
	}
}

func (t *Table) thinkTime(rng *rand.Rand) time.Duration {
	jitter := t.load.Play.Jitter
	factor := 1 - jitter + 2*jitter*rng.Float64()
	return time.Duration(float64(t.load.Play.Think) * factor)
}

var (
	calls   = []truco.Preference{truco.PreferCall, truco.PreferAnswer}
	decline = []truco.Preference{truco.PreferNoQuiero}
)

// choose is a plain player's move: it declines the calls that can end the match at once, sometimes calls or
// answers as it likes, and otherwise plays a card or accepts (never the mazo unless nothing else is legal,
// never a seña).
func choose(view *trucov1.SeatView, rng *rand.Rand) *trucov1.Command {
	pending := view.GetPublic().GetHand().GetPending().GetCall()
	if pending == trucov1.CallKind_CALL_KIND_FALTA_ENVIDO || pending == trucov1.CallKind_CALL_KIND_CONTRA_FLOR_AL_RESTO {
		if no := truco.PickAction(view, decline, nil); no.GetAnswer() != nil && !no.GetAnswer().GetAccept() {
			return no
		}
	}
	if rng.Float64() < 0.2 && (truco.HasLegal(view, truco.PreferCall) || truco.HasLegal(view, truco.PreferAnswer)) {
		return truco.PickAction(view, calls, rng)
	}
	return truco.PickAction(view, truco.PlainBotPreferences, rng)
}
