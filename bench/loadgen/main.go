// Command loadgen is the human-paced capacity benchmark's load: K concurrent matches of a Truco server, every
// seat a client with its own gRPC connection and WatchGame stream that waits a think time per decision. It holds
// K for a warm-up and a measured window, raises K step by step until the p99 of SubmitCommand or of watch
// delivery passes a limit, and reports per step the server's CPU per applied move (from /proc and
// truco_commands_applied_total; also split by thread: the event loop, gRPC's C core, the others), its memory per
// match, latencies and open streams. Progress goes to stderr, the
// report (JSON) to -out. bench/capacity_bench.py starts the servers and runs it; see bench/README.md.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"runtime/pprof"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

type groupFlags []Group

func (g *groupFlags) String() string { return fmt.Sprint(*g) }
func (g *groupFlags) Set(text string) error {
	group, err := ParseGroup(text)
	if err == nil {
		*g = append(*g, group)
	}
	return err
}

// Config is every setting of a run, as given on the command line.
type Config struct {
	Server           string        `json:"server"`
	Label            string        `json:"label"`
	Players          int           `json:"players"`
	Target           int           `json:"target"`
	Think            time.Duration `json:"-"`
	ThinkSeconds     float64       `json:"think_seconds"`
	Jitter           float64       `json:"think_jitter"`
	Steps            []int         `json:"steps"`
	Refine           int           `json:"refine"`
	Limit            time.Duration `json:"-"`
	LimitMs          float64       `json:"p99_limit_ms"`
	Warmup           time.Duration `json:"-"`
	WarmupSeconds    float64       `json:"warmup_seconds"`
	Measure          time.Duration `json:"-"`
	MeasureSeconds   float64       `json:"measure_seconds"`
	SpawnRate        float64       `json:"spawn_per_second"`
	Watch            []string      `json:"watch"`
	Rounds           int           `json:"rounds"`
	Fixed            bool          `json:"fixed"`
	Empty            time.Duration `json:"-"`
	EmptySeconds     float64       `json:"empty_seconds"`
	EmptyConcurrency int           `json:"empty_concurrency"`
	Idle             time.Duration `json:"-"`
	IdleSeconds      float64       `json:"idle_seconds"`
	Groups           []Group       `json:"groups"`
	Metrics          []string      `json:"metrics"`
}

func main() {
	config, out, err := parse(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(2)
	}
	if path := os.Getenv("LOADGEN_CPUPROFILE"); path != "" { // where the load generator's own CPU goes
		if file, err := os.Create(path); err == nil {
			_ = pprof.StartCPUProfile(file)
			defer pprof.StopCPUProfile()
		}
	}
	report := Run(context.Background(), config, progress(config.Label))
	data, _ := json.MarshalIndent(report, "", "  ")
	if out == "" || out == "-" {
		fmt.Println(string(data))
	} else if err := os.WriteFile(out, append(data, '\n'), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
	if report.Error != "" {
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func progress(label string) func(string, ...any) {
	start := time.Now()
	return func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "loadgen %6.0fs [%s] %s\n", time.Since(start).Seconds(), label, fmt.Sprintf(format, args...))
	}
}

func parse(args []string) (Config, string, error) {
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	var c Config
	var groups groupFlags
	var steps, watch, metrics, out string
	fs.StringVar(&c.Server, "server", "127.0.0.1:50051", "the server (or balancer) address")
	fs.StringVar(&c.Label, "label", "load", "a name for progress lines and the report")
	fs.IntVar(&c.Players, "players", 2, "seats per match: 2, 4 or 6")
	fs.IntVar(&c.Target, "target", 0, "points to win (0: the server's default)")
	fs.DurationVar(&c.Think, "think", 5*time.Second, "think time per decision")
	fs.Float64Var(&c.Jitter, "jitter", 0.5, "a think time is uniform in think × [1-jitter, 1+jitter]")
	fs.StringVar(&steps, "steps", "50:1.5:5000", "K, concurrent matches, per step: K1,K2,... or START:FACTOR:MAX")
	fs.IntVar(&c.Refine, "refine", 2, "bisections between the last K that held and the first that did not")
	fs.DurationVar(&c.Limit, "limit", 50*time.Millisecond, "the p99 (SubmitCommand or watch delivery) a step must hold")
	fs.DurationVar(&c.Warmup, "warmup", 15*time.Second, "time at K before measuring")
	fs.DurationVar(&c.Measure, "measure", 30*time.Second, "the measured window of each step")
	fs.Float64Var(&c.SpawnRate, "spawn-rate", 100, "new matches started per second while K grows")
	fs.StringVar(&watch, "watch", "commit", "watch shapes, each a run: commit (per_commit), event (the released per-event stream), session (PlayGame: commands and commits on one stream per seat)")
	fs.IntVar(&c.Rounds, "rounds", 1, "runs of every watch shape, alternating")
	fs.BoolVar(&c.Fixed, "fixed", false, "measure every step of -steps (no stop at the knee)")
	fs.DurationVar(&c.Empty, "empty", 0, "measure empty unary calls (health Check) this long before and after (0: not)")
	fs.IntVar(&c.EmptyConcurrency, "empty-concurrency", 16, "callers of the empty-call reference")
	fs.DurationVar(&c.Idle, "idle", 10*time.Second, "measure the servers' CPU with no load this long first (0: not)")
	fs.Var(&groups, "group", "NAME=PID[,PID]: processes (with their descendants) whose CPU is measured; 'server' is the one per move (repeatable)")
	fs.StringVar(&metrics, "metrics", "", "the servers' /metrics URLs, comma-separated")
	fs.StringVar(&out, "out", "-", "the JSON report's file (- : stdout)")
	if err := fs.Parse(args); err != nil {
		return c, "", err
	}
	var err error
	if c.Steps, err = ParseSteps(steps); err != nil {
		return c, "", err
	}
	for _, shape := range strings.Split(watch, ",") {
		if shape != "commit" && shape != "event" && shape != "session" {
			return c, "", fmt.Errorf("-watch %q: commit, event or session", shape)
		}
		c.Watch = append(c.Watch, shape)
	}
	if c.Players < 2 || c.Players > 6 || c.Players%2 != 0 {
		return c, "", fmt.Errorf("-players %d: 2, 4 or 6", c.Players)
	}
	if metrics == "" {
		return c, "", fmt.Errorf("-metrics: the server's /metrics URL is needed (moves applied)")
	}
	c.Metrics = strings.Split(metrics, ",")
	c.Groups = groups
	c.ThinkSeconds, c.LimitMs = c.Think.Seconds(), float64(c.Limit)/float64(time.Millisecond)
	c.WarmupSeconds, c.MeasureSeconds, c.EmptySeconds = c.Warmup.Seconds(), c.Measure.Seconds(), c.Empty.Seconds()
	c.IdleSeconds = c.Idle.Seconds()
	return c, out, nil
}

// --- The report ----------------------------------------------------------------------------------------------------

type Report struct {
	Config  Config             `json:"config"`
	Started string             `json:"started"`
	Seconds float64            `json:"seconds"`
	Empty   []Empty            `json:"empty,omitempty"`
	Idle    map[string]float64 `json:"idle_cores,omitempty"` // by group: the CPU its processes use with no load
	Runs    []RunResult        `json:"runs"`
	Error   string             `json:"error,omitempty"`
}

type RunResult struct {
	Watch  string `json:"watch"`
	Round  int    `json:"round"`
	Steps  []Step `json:"steps"`
	KneeK  int    `json:"knee_k"`
	Capped bool   `json:"knee_not_reached"` // every step held: the knee is above the largest K tried
}

// Empty is the reference: a unary call that does nothing, through the same server stack.
type Empty struct {
	Calls           int64   `json:"calls"`
	Seconds         float64 `json:"seconds"`
	ServerCPUMsCall float64 `json:"server_cpu_ms_per_call"`
	P50             float64 `json:"p50_ms"`
	LoadAverage     float64 `json:"load_average"`
}

type Step struct {
	K                int                `json:"k"`
	Seconds          float64            `json:"seconds"`
	Held             bool               `json:"held"`
	MovesApplied     float64            `json:"moves_applied"`
	MovesPerSecond   float64            `json:"moves_per_second"`
	Submit           Latency            `json:"submit"`
	Delivery         Latency            `json:"delivery"`
	DeliveryFromSend Latency            `json:"delivery_from_send"`
	Missing          int                `json:"deliveries_missing"`
	Conflicts        int                `json:"conflicts"`
	Errors           map[string]int     `json:"errors"`
	WatchResumes     int64              `json:"watch_resumes"`
	WatchMessages    int64              `json:"watch_messages"`
	MessagesPerMove  float64            `json:"watch_messages_per_move"`
	ServerCPUMsMove  float64            `json:"server_cpu_ms_per_move"`
	ServerCores      float64            `json:"server_cores"`
	ServerNetOfIdle  float64            `json:"server_cpu_ms_per_move_net_of_idle"`
	CPUMsMove        map[string]float64 `json:"cpu_ms_per_move"`                  // by group
	ServerByThread   map[string]float64 `json:"server_cpu_ms_per_move_by_thread"` // by ThreadKind
	ServerInEmpty    float64            `json:"server_cpu_per_move_in_empty_calls,omitempty"`
	ServerRSS        int64              `json:"server_rss_bytes"`
	RSSPerMatch      float64            `json:"server_rss_per_match_bytes"`
	StreamsClient    int64              `json:"open_streams_client"`
	StreamsServer    float64            `json:"open_streams_server"`
	ClientCPUMsMove  float64            `json:"client_cpu_ms_per_move"`
	ClientCores      float64            `json:"client_cores"`
	LoadAverage      float64            `json:"load_average"`
	MatchesStarted   int64              `json:"matches_started"`
	MatchesFinished  int64              `json:"matches_finished"`
}

// --- Running -------------------------------------------------------------------------------------------------------

// Pool holds the tables: K of them at a time.
type Pool struct {
	load   *Load
	tables []func() // each running table's stop
	wg     sync.WaitGroup
	seed   uint64
}

func (p *Pool) Size() int { return len(p.tables) }

// Resize starts tables at “rate“ per second up to k, or stops the newest down to k.
func (p *Pool) Resize(ctx context.Context, k int, rate float64) error {
	for len(p.tables) > k {
		last := len(p.tables) - 1
		p.tables[last]()
		p.tables = p.tables[:last]
	}
	interval := time.Duration(float64(time.Second) / rate)
	next := time.Now()
	for len(p.tables) < k {
		p.seed++
		table, err := p.load.NewTable(p.seed)
		if err != nil {
			return err
		}
		tableCtx, stop := context.WithCancel(ctx)
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer table.Close()
			table.Run(tableCtx)
		}()
		p.tables = append(p.tables, stop)
		next = next.Add(interval)
		if !sleep(ctx, time.Until(next)) {
			return ctx.Err()
		}
	}
	return nil
}

func (p *Pool) Stop() {
	_ = p.Resize(context.Background(), 0, 1)
	p.wg.Wait()
}

// Run is the whole benchmark: the empty-call reference, then each watch shape's ramp, round after round.
func Run(ctx context.Context, c Config, log func(string, ...any)) Report {
	report := Report{Config: c, Started: time.Now().UTC().Format(time.RFC3339)}
	began := time.Now()
	if err := waitServing(ctx, c.Server, time.Minute); err != nil {
		report.Error = err.Error()
		return report
	}
	server := groupNamed(c.Groups, "server")
	if c.Idle > 0 {
		report.Idle = idleCores(ctx, c, log)
	}
	if c.Empty > 0 {
		report.Empty = append(report.Empty, emptyCalls(ctx, c, server, log))
	}
	for round := 1; round <= c.Rounds; round++ {
		for _, shape := range c.Watch {
			result, err := ramp(ctx, c, shape, round, emptyReference(report.Empty), report.Idle["server"], log)
			report.Runs = append(report.Runs, result)
			if err != nil {
				report.Error = err.Error()
				return report
			}
		}
	}
	if c.Empty > 0 {
		report.Empty = append(report.Empty, emptyCalls(ctx, c, server, log))
		for r := range report.Runs {
			for s := range report.Runs[r].Steps {
				step := &report.Runs[r].Steps[s]
				if ref := emptyReference(report.Empty); ref > 0 {
					step.ServerInEmpty = round3(step.ServerCPUMsMove / ref)
				}
			}
		}
	}
	report.Seconds = round3(time.Since(began).Seconds())
	return report
}

// emptyReference is the empty call's server CPU (ms), averaged over its measurements.
func emptyReference(empty []Empty) float64 {
	total := 0.0
	for _, e := range empty {
		total += e.ServerCPUMsCall
	}
	if len(empty) == 0 {
		return 0
	}
	return total / float64(len(empty))
}

func groupNamed(groups []Group, name string) Group {
	for _, g := range groups {
		if g.Name == name {
			return g
		}
	}
	return Group{Name: name}
}

func ramp(ctx context.Context, c Config, shape string, round int, emptyMs, idle float64, log func(string, ...any)) (RunResult, error) {
	play := Play{
		Players: c.Players, Target: int32(c.Target), Think: c.Think, Jitter: c.Jitter,
		PerCommit: shape == "commit", Session: shape == "session", CallTimeout: 30 * time.Second,
	}
	load := NewLoad(c.Server, play)
	pool := &Pool{load: load, seed: uint64(round) << 32}
	defer pool.Stop()
	plan := Ramp{Steps: c.Steps, Refine: c.Refine, MinGap: 0.05}
	if c.Fixed {
		plan.Refine = 0
	}
	result := RunResult{Watch: shape, Round: round}
	baseline := groupNamed(c.Groups, "server").Read().RSS
	var outcomes []Outcome
	for {
		k, more := plan.Next(outcomes)
		if c.Fixed {
			more = len(result.Steps) < len(c.Steps)
			if more {
				k = c.Steps[len(result.Steps)]
			}
		}
		if !more {
			break
		}
		log("%s watch, K=%d: %d → %d matches (%d players, think %s)", shape, k, pool.Size(), k, c.Players, c.Think)
		if err := pool.Resize(ctx, k, c.SpawnRate); err != nil {
			return result, err
		}
		log("K=%d: warming up %s", k, c.Warmup)
		if !sleep(ctx, c.Warmup) {
			return result, ctx.Err()
		}
		step, err := measure(ctx, c, load, k, baseline, emptyMs, idle, log)
		if err != nil {
			return result, err
		}
		result.Steps = append(result.Steps, step)
		outcomes = append(outcomes, Outcome{K: k, Held: step.Held})
		log("K=%d: %s", k, describe(step))
	}
	result.KneeK = plan.Knee(outcomes)
	result.Capped = len(outcomes) > 0 && allHeld(outcomes)
	if c.Fixed {
		result.KneeK = 0
	} else if result.Capped {
		log("%s watch: every step held up to K=%d (the knee is higher)", shape, result.KneeK)
	} else {
		log("%s watch: knee K=%d (p99 ≤ %s)", shape, result.KneeK, c.Limit)
	}
	log("tearing down %d matches", pool.Size())
	return result, nil
}

func allHeld(outcomes []Outcome) bool {
	for _, o := range outcomes {
		if !o.Held {
			return false
		}
	}
	return true
}

func describe(s Step) string {
	return fmt.Sprintf("%.1f moves/s; submit p50 %.1f p99 %.1f ms; delivery p50 %.1f p99 %.1f ms; "+
		"server %.2f ms CPU/move (%.2f cores; loop %.2f, gRPC core %.2f, other threads %.2f), RSS %.0f KiB/match; "+
		"streams %d (server %.0f); client %.2f cores; load %.1f; %s", s.MovesPerSecond, s.Submit.P50, s.Submit.P99,
		s.Delivery.P50, s.Delivery.P99, s.ServerCPUMsMove, s.ServerCores, s.ServerByThread[ThreadLoop],
		s.ServerByThread[ThreadGRPC], s.ServerByThread[ThreadOther], s.RSSPerMatch/1024, s.StreamsClient,
		s.StreamsServer, s.ClientCores, s.LoadAverage, map[bool]string{true: "held", false: "BROKE the limit"}[s.Held])
}

// settleTime lets the moves sent near a window's end finish and reach every watcher before it is summed up.
const settleTime = 2 * time.Second

// lostAfter: a delivery not made this long after its move counts as missing.
const lostAfter = 5 * time.Second

func measure(ctx context.Context, c Config, load *Load, k int, baseline int64, emptyMs, idle float64, log func(string, ...any)) (Step, error) {
	before := map[string]Reading{}
	for _, g := range c.Groups {
		before[g.Name] = g.Read()
	}
	metricsBefore, err := ReadMetrics(c.Metrics)
	if err != nil {
		return Step{}, fmt.Errorf("metrics: %w", err)
	}
	selfBefore := SelfCPU()
	recorder := NewRecorder()
	start := time.Now()
	load.recorder.Store(recorder)
	log("K=%d: measuring for %s", k, c.Measure) // bench/capacity_bench.py --profile starts its profiler on this line
	for elapsed := time.Duration(0); elapsed < c.Measure; {
		wait := min(10*time.Second, c.Measure-elapsed)
		if !sleep(ctx, wait) {
			return Step{}, ctx.Err()
		}
		elapsed += wait
		if elapsed < c.Measure {
			log("K=%d: measuring, %.0f of %.0f s, %d watch messages so far", k, elapsed.Seconds(), c.Measure.Seconds(), recorder.messages.Load())
		}
	}
	load.recorder.Store(nil)
	seconds := time.Since(start).Seconds()
	after := map[string]Reading{}
	for _, g := range c.Groups {
		after[g.Name] = g.Read()
	}
	metricsAfter, err := ReadMetrics(c.Metrics)
	if err != nil {
		return Step{}, fmt.Errorf("metrics: %w", err)
	}
	selfUsed := SelfCPU() - selfBefore
	sleep(ctx, settleTime)
	// Deliveries still due this long after their move were lost (a stream that broke and did not resume).
	load.trackers.Range(func(key, _ any) bool {
		key.(*Tracker).Abandon(time.Now(), lostAfter)
		return true
	})
	recorder.mu.Lock()
	defer recorder.mu.Unlock()
	applied := metricsAfter.Applied - metricsBefore.Applied
	perMove := func(seconds float64) float64 {
		if applied <= 0 {
			return 0
		}
		return round3(seconds / applied * 1000)
	}
	step := Step{
		K:                k,
		Seconds:          round3(seconds),
		MovesApplied:     applied,
		MovesPerSecond:   round3(applied / seconds),
		Submit:           summarise(recorder.submit),
		Delivery:         summarise(recorder.delivery),
		DeliveryFromSend: summarise(recorder.fromSend),
		Missing:          recorder.missing,
		Conflicts:        recorder.conflicts,
		Errors:           maps.Clone(recorder.errors),
		WatchResumes:     recorder.watchResumes.Load(),
		WatchMessages:    recorder.messages.Load(),
		CPUMsMove:        map[string]float64{},
		StreamsClient:    load.streams.Load(),
		StreamsServer:    metricsAfter.Watchers,
		ClientCPUMsMove:  perMove(selfUsed),
		ClientCores:      round3(selfUsed / seconds),
		LoadAverage:      LoadAverage(),
		MatchesStarted:   recorder.started.Load(),
		MatchesFinished:  recorder.finished.Load(),
	}
	if applied > 0 {
		step.MessagesPerMove = round3(float64(step.WatchMessages) / applied)
	}
	for _, g := range c.Groups {
		used := CPUUsed(before[g.Name], after[g.Name])
		step.CPUMsMove[g.Name] = perMove(used)
		if g.Name == "server" {
			step.ServerCPUMsMove = perMove(used)
			step.ServerByThread = map[string]float64{}
			for kind, seconds := range CPUByThread(before[g.Name], after[g.Name]) {
				step.ServerByThread[kind] = perMove(seconds)
			}
			step.ServerCores = round3(used / seconds)
			step.ServerNetOfIdle = perMove(max(0, used-idle*seconds))
			step.ServerRSS = after[g.Name].RSS
			step.RSSPerMatch = round3(float64(after[g.Name].RSS-baseline) / float64(k))
		}
	}
	if emptyMs > 0 {
		step.ServerInEmpty = round3(step.ServerCPUMsMove / emptyMs)
	}
	limit := float64(c.Limit) / float64(time.Millisecond)
	step.Held = step.Submit.Count > 0 && step.Submit.P99 <= limit && step.Delivery.P99 <= limit && step.Missing == 0
	return step, nil
}

// waitServing polls the server's (or balancer's) health until the game service is SERVING.
func waitServing(ctx context.Context, address string, timeout time.Duration) error {
	conn, err := grpc.NewClient(address, NewLoad(address, Play{}).dialOpts...)
	if err != nil {
		return err
	}
	defer conn.Close()
	health := healthpb.NewHealthClient(conn)
	deadline := time.Now().Add(timeout)
	for {
		callCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
		reply, err := health.Check(callCtx, &healthpb.HealthCheckRequest{Service: "truco.v1.GameService"})
		cancel()
		if err == nil && reply.GetStatus() == healthpb.HealthCheckResponse_SERVING {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s is not SERVING after %s (%v, %v)", address, timeout, reply.GetStatus(), err)
		}
		if !sleep(ctx, 100*time.Millisecond) {
			return ctx.Err()
		}
	}
}

// idleCores is the CPU each group uses with no load: the servers' background work (store checks, LISTEN, timers),
// which a per-move figure at a low rate carries too.
func idleCores(ctx context.Context, c Config, log func(string, ...any)) map[string]float64 {
	before := map[string]Reading{}
	for _, g := range c.Groups {
		before[g.Name] = g.Read()
	}
	start := time.Now()
	sleep(ctx, c.Idle)
	seconds := time.Since(start).Seconds()
	idle := map[string]float64{}
	for _, g := range c.Groups {
		idle[g.Name] = round3(CPUUsed(before[g.Name], g.Read()) / seconds)
	}
	log("idle: %v cores with no load", idle)
	return idle
}

// emptyCalls measures the reference: health Checks in a closed loop, the server's CPU per call.
func emptyCalls(ctx context.Context, c Config, server Group, log func(string, ...any)) Empty {
	log("empty unary calls (grpc.health.v1 Check), %d callers, %s", c.EmptyConcurrency, c.Empty)
	conns := make([]*grpc.ClientConn, 4)
	for i := range conns {
		conns[i], _ = grpc.NewClient(c.Server, NewLoad(c.Server, Play{}).dialOpts...)
		defer conns[i].Close()
	}
	// A first call on each connection, so connecting is not measured.
	for _, conn := range conns {
		_, _ = healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
	}
	before := server.Read()
	start := time.Now()
	deadline := start.Add(c.Empty)
	var mu sync.Mutex
	var latencies []float64
	var wg sync.WaitGroup
	for i := range c.EmptyConcurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := healthpb.NewHealthClient(conns[i%len(conns)])
			var mine []float64
			for time.Now().Before(deadline) {
				sent := time.Now()
				if _, err := client.Check(ctx, &healthpb.HealthCheckRequest{}); err != nil {
					continue
				}
				mine = append(mine, ms(time.Since(sent)))
			}
			mu.Lock()
			latencies = append(latencies, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	seconds := time.Since(start).Seconds()
	used := CPUUsed(before, server.Read())
	result := Empty{
		Calls:       int64(len(latencies)),
		Seconds:     round3(seconds),
		P50:         round3(Quantile(latencies, 0.5)),
		LoadAverage: LoadAverage(),
	}
	if len(latencies) > 0 {
		result.ServerCPUMsCall = round3(used / float64(len(latencies)) * 1000)
	}
	log("empty call: %.3f ms of server CPU per call (%d calls, p50 %.2f ms)", result.ServerCPUMsCall, result.Calls, result.P50)
	return result
}
