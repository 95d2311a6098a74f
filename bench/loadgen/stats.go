package main

// Latencies, measured with timestamps the load generator takes itself: a SubmitCommand from its send to its
// reply, and a commit's delivery to every other seat of the match, from the mover's reply (the moment the
// mover knows its move is durable) to each other seat's receipt of the watch message carrying it. A watcher may
// hear of a commit before the mover's reply arrives: that delivery is negative. The same delivery is also kept
// from the send (what a player waits, from a rival's click to seeing it).

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Recorder collects one measurement window's samples (milliseconds).
type Recorder struct {
	mu           sync.Mutex
	submit       []float64
	delivery     []float64
	fromSend     []float64
	errors       map[string]int
	conflicts    int
	missing      int
	messages     atomic.Int64
	watchResumes atomic.Int64
	finished     atomic.Int64
	started      atomic.Int64
}

func NewRecorder() *Recorder { return &Recorder{errors: map[string]int{}} }

func (r *Recorder) Submit(d time.Duration) {
	r.mu.Lock()
	r.submit = append(r.submit, ms(d))
	r.mu.Unlock()
}

func (r *Recorder) Delivery(fromReply, fromSend time.Duration) {
	r.mu.Lock()
	r.delivery = append(r.delivery, ms(fromReply))
	r.fromSend = append(r.fromSend, ms(fromSend))
	r.mu.Unlock()
}

func (r *Recorder) Error(kind string) {
	r.mu.Lock()
	r.errors[kind]++
	r.mu.Unlock()
}

func (r *Recorder) Conflict() {
	r.mu.Lock()
	r.conflicts++
	r.mu.Unlock()
}

// Missing counts a delivery that never came (its stream broke, or it was still due when the window closed).
func (r *Recorder) Missing(n int) {
	r.mu.Lock()
	r.missing += n
	r.mu.Unlock()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Quantile of “values“ (sorted in place): the nearest-rank “q“ quantile; NaN when empty.
func Quantile(values []float64, q float64) float64 {
	if len(values) == 0 {
		return math.NaN()
	}
	slices.Sort(values)
	rank := int(math.Ceil(q*float64(len(values)))) - 1
	return values[max(0, min(len(values)-1, rank))]
}

// Latency summarises one kind of sample.
type Latency struct {
	Count int     `json:"count"`
	P50   float64 `json:"p50_ms"`
	P99   float64 `json:"p99_ms"`
	Max   float64 `json:"max_ms"`
}

func summarise(values []float64) Latency {
	if len(values) == 0 {
		return Latency{}
	}
	return Latency{
		Count: len(values),
		P50:   round3(Quantile(values, 0.50)),
		P99:   round3(Quantile(values, 0.99)),
		Max:   round3(Quantile(values, 1)),
	}
}

func round3(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return math.Round(v*1000) / 1000
}

// --- Commits in flight -------------------------------------------------------------------------------------------

// commit is a move on its way: sent at version “expected“ by seat “mover“; the commit it makes is the first
// one past “expected“, so a watcher's message of any later version carries it.
type commit struct {
	expected int64
	mover    int32
	sent     time.Time
	replied  time.Time
	received []time.Time // by seat; zero until that seat's watch carried the commit
	recorder *Recorder   // the window the move was sent in (nil: outside every window)
}

// Tracker follows a match's moves until every other seat received them.
type Tracker struct {
	mu      sync.Mutex
	players int
	pending []*commit
}

func NewTracker(players int) *Tracker { return &Tracker{players: players} }

func (t *Tracker) Sent(expected int64, mover int32, at time.Time, recorder *Recorder) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pending = append(t.pending, &commit{
		expected: expected, mover: mover, sent: at, received: make([]time.Time, t.players), recorder: recorder,
	})
}

// Replied marks the mover's reply; ok false: the move failed and is forgotten.
func (t *Tracker) Replied(expected int64, mover int32, at time.Time, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, c := range t.pending {
		if c.expected == expected && c.mover == mover && c.replied.IsZero() {
			if !ok {
				t.pending = slices.Delete(t.pending, i, i+1)
				return
			}
			c.replied = at
			t.settle()
			return
		}
	}
}

// Received: seat “seat“'s watch carried the game up to “version“ at “at“.
func (t *Tracker) Received(seat int32, version int64, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range t.pending {
		if c.expected < version && c.mover != seat && int(seat) < len(c.received) && c.received[seat].IsZero() {
			c.received[seat] = at
		}
	}
	t.settle()
}

// settle records and drops the commits whose reply and deliveries are all in.
func (t *Tracker) settle() {
	t.pending = slices.DeleteFunc(t.pending, func(c *commit) bool {
		if c.replied.IsZero() {
			return false
		}
		for seat, at := range c.received {
			if int32(seat) != c.mover && at.IsZero() {
				return false
			}
		}
		if c.recorder != nil {
			for seat, at := range c.received {
				if int32(seat) != c.mover {
					c.recorder.Delivery(at.Sub(c.replied), at.Sub(c.sent))
				}
			}
		}
		return true
	})
}

// Abandon drops commits older than “age“ (a match torn down, a broken stream) and counts their deliveries
// that never came as missing, in the window each was sent in.
func (t *Tracker) Abandon(now time.Time, age time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pending = slices.DeleteFunc(t.pending, func(c *commit) bool {
		if now.Sub(c.sent) < age {
			return false
		}
		if c.recorder != nil && !c.replied.IsZero() {
			missing := 0
			for seat, at := range c.received {
				if int32(seat) != c.mover && at.IsZero() {
					missing++
				}
			}
			c.recorder.Missing(missing)
		}
		return true
	})
}
