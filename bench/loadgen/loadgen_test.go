package main

import (
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestRampClimbsThePlannedStepsWhileTheyHold(t *testing.T) {
	r := Ramp{Steps: []int{100, 200, 400}, Refine: 2, MinGap: 0.05}
	var done []Outcome
	for _, want := range []int{100, 200, 400} {
		k, ok := r.Next(done)
		if !ok || k != want {
			t.Fatalf("after %v: got %d %v, want %d", done, k, ok, want)
		}
		done = append(done, Outcome{K: k, Held: true})
	}
	if k, ok := r.Next(done); ok {
		t.Fatalf("every step held: the ramp should end, got %d", k)
	}
	if knee := r.Knee(done); knee != 400 {
		t.Fatalf("knee %d, want 400 (the largest K tried)", knee)
	}
}

func TestRampBisectsBetweenTheLastHeldAndTheFirstBroken(t *testing.T) {
	r := Ramp{Steps: []int{100, 200, 400, 800}, Refine: 2, MinGap: 0.05}
	done := []Outcome{{100, true}, {200, true}, {400, false}}
	if k, ok := r.Next(done); !ok || k != 300 {
		t.Fatalf("first bisection: got %d %v, want 300", k, ok)
	}
	done = append(done, Outcome{300, true})
	if k, ok := r.Next(done); !ok || k != 350 {
		t.Fatalf("second bisection: got %d %v, want 350", k, ok)
	}
	done = append(done, Outcome{350, false})
	if k, ok := r.Next(done); ok {
		t.Fatalf("two bisections done: the ramp should end, got %d", k)
	}
	if knee := r.Knee(done); knee != 300 {
		t.Fatalf("knee %d, want 300", knee)
	}
}

func TestRampStopsBisectingWhenTheBoundsAreClose(t *testing.T) {
	r := Ramp{Steps: []int{100, 104}, Refine: 5, MinGap: 0.05}
	done := []Outcome{{100, true}, {104, false}}
	if k, ok := r.Next(done); ok {
		t.Fatalf("100 and 104 are within 5%%: got %d", k)
	}
}

func TestAKneeBelowTheFirstStepIsZero(t *testing.T) {
	r := Ramp{Steps: []int{100, 200}, Refine: 0}
	done := []Outcome{{100, false}}
	if _, ok := r.Next(done); ok {
		t.Fatal("no refinement asked: the ramp should end")
	}
	if knee := r.Knee(done); knee != 0 {
		t.Fatalf("knee %d, want 0", knee)
	}
}

func TestParseSteps(t *testing.T) {
	got, err := ParseSteps("100:1.6:1000")
	if err != nil || !slices.Equal(got, []int{100, 160, 256, 410, 655}) {
		t.Fatalf("geometric: %v %v", got, err)
	}
	got, err = ParseSteps("4, 8,16")
	if err != nil || !slices.Equal(got, []int{4, 8, 16}) {
		t.Fatalf("list: %v %v", got, err)
	}
	for _, bad := range []string{"8,4", "0", "x", "10:1:100", "10:2:5"} {
		if _, err := ParseSteps(bad); err == nil {
			t.Errorf("%q should not parse", bad)
		}
	}
}

func TestQuantileIsTheNearestRank(t *testing.T) {
	values := make([]float64, 100)
	for i := range values {
		values[i] = float64(100 - i) // 100..1, unsorted
	}
	if q := Quantile(values, 0.99); q != 99 {
		t.Fatalf("p99 of 1..100: %v", q)
	}
	if q := Quantile(values, 0.5); q != 50 {
		t.Fatalf("p50 of 1..100: %v", q)
	}
	if !math.IsNaN(Quantile(nil, 0.5)) {
		t.Fatal("empty: NaN")
	}
}

func TestParseStatCPUCountsFieldsAfterTheName(t *testing.T) {
	// The name may hold spaces and parentheses; utime and stime are fields 14 and 15.
	stat := "4242 (truco serve (w)) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 3 0 1000 0 0"
	got, err := ParseStatCPU(stat)
	if err != nil || got != 3.0 {
		t.Fatalf("got %v %v, want 3 s (300 ticks)", got, err)
	}
}

func TestThreadKindsSplitTheLoopGRPCCoreAndTheRest(t *testing.T) {
	stat := "4243 (event_engine) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 3 0 1000 0 0"
	if comm := ParseStatComm(stat); comm != "event_engine" {
		t.Fatalf("comm %q", comm)
	}
	cases := []struct {
		tid  int
		comm string
		want string
	}{
		{4242, "truco", ThreadLoop}, {4243, "event_engine", ThreadGRPC}, {4244, "grpc_global_tim", ThreadGRPC},
		{4245, "lifeguard", ThreadGRPC}, {4246, "truco", ThreadOther}, {4247, "python3", ThreadOther},
	}
	for _, c := range cases {
		if got := ThreadKind(4242, c.tid, c.comm); got != c.want {
			t.Errorf("thread %d %q: %s, want %s", c.tid, c.comm, got, c.want)
		}
	}
}

func TestCPUByThreadAddsUpToTheProcessAndCountsNewThreadsFromZero(t *testing.T) {
	before := Reading{Threads: map[int]threadSample{1: {ThreadLoop, 2.0}, 2: {ThreadGRPC, 1.0}, 3: {ThreadOther, 5.0}}}
	after := Reading{Threads: map[int]threadSample{
		1: {ThreadLoop, 3.5}, 2: {ThreadGRPC, 1.25}, 3: {ThreadOther, 5.0}, 4: {ThreadOther, 0.5},
	}}
	got := CPUByThread(before, after)
	if got[ThreadLoop] != 1.5 || got[ThreadGRPC] != 0.25 || got[ThreadOther] != 0.5 {
		t.Fatalf("got %v", got)
	}
	// This test's own process: its threads' CPU is read, the main thread's as the loop.
	own := Group{Name: "self", Roots: []int{os.Getpid()}}.Read()
	kinds := map[string]bool{}
	for _, sample := range own.Threads {
		kinds[sample.kind] = true
	}
	if !kinds[ThreadLoop] || len(own.Threads) < 2 {
		t.Fatalf("own threads: %v", own.Threads)
	}
}

func TestParseMetricsSumsEveryLabelSet(t *testing.T) {
	text := `# HELP truco_commands_applied_total Commands applied.
# TYPE truco_commands_applied_total counter
truco_commands_applied_total{by="seat"} 120.0
truco_commands_applied_total{by="bot"} 30.0
truco_commands_applied_created{by="seat"} 1.7e9
truco_watchers 8.0
truco_watchers_other 99
`
	m, err := ParseMetrics(strings.NewReader(text))
	if err != nil || m.Applied != 150 || m.Watchers != 8 {
		t.Fatalf("got %+v %v", m, err)
	}
}

func TestParseGroup(t *testing.T) {
	g, err := ParseGroup("server=12,34")
	if err != nil || g.Name != "server" || !slices.Equal(g.Roots, []int{12, 34}) {
		t.Fatalf("got %+v %v", g, err)
	}
	for _, bad := range []string{"server", "=1", "db=x", "db=-1"} {
		if _, err := ParseGroup(bad); err == nil {
			t.Errorf("%q should not parse", bad)
		}
	}
}

func TestTrackerDeliversACommitToEveryOtherSeatFromTheMoversReply(t *testing.T) {
	recorder := NewRecorder()
	tracker := NewTracker(4)
	t0 := time.Unix(1000, 0)
	tracker.Sent(10, 1, t0, recorder)
	// A watcher may hear of the commit before the mover's reply arrives (negative delivery).
	tracker.Received(0, 11, t0.Add(3*time.Millisecond))
	tracker.Received(1, 11, t0.Add(4*time.Millisecond)) // the mover's own watch: not a delivery
	tracker.Replied(10, 1, t0.Add(5*time.Millisecond), true)
	tracker.Received(2, 12, t0.Add(9*time.Millisecond)) // a later version carries it too
	if len(recorder.delivery) != 0 {
		t.Fatalf("seat 3 has not received it yet: %v", recorder.delivery)
	}
	tracker.Received(3, 11, t0.Add(15*time.Millisecond))
	slices.Sort(recorder.delivery)
	if !slices.Equal(recorder.delivery, []float64{-2, 4, 10}) {
		t.Fatalf("deliveries from the reply: %v", recorder.delivery)
	}
	if len(tracker.pending) != 0 {
		t.Fatalf("settled commits are dropped: %d left", len(tracker.pending))
	}
}

func TestTrackerForgetsFailedMovesAndCountsLostDeliveries(t *testing.T) {
	recorder := NewRecorder()
	tracker := NewTracker(2)
	t0 := time.Unix(1000, 0)
	tracker.Sent(5, 0, t0, recorder)
	tracker.Replied(5, 0, t0.Add(time.Millisecond), false)
	tracker.Sent(5, 1, t0, recorder)
	tracker.Replied(5, 1, t0.Add(time.Millisecond), true)
	tracker.Received(0, 5, t0.Add(2*time.Millisecond)) // version 5 does not carry the commit made past 5
	tracker.Abandon(t0.Add(time.Second), 5*time.Second)
	if recorder.missing != 0 || len(tracker.pending) != 1 {
		t.Fatalf("too young to be lost: missing %d, pending %d", recorder.missing, len(tracker.pending))
	}
	tracker.Abandon(t0.Add(10*time.Second), 5*time.Second)
	if recorder.missing != 1 || len(tracker.pending) != 0 {
		t.Fatalf("lost: missing %d, pending %d", recorder.missing, len(tracker.pending))
	}
}
