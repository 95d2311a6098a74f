package main

// What the load generator reads of the processes it measures: CPU time and resident memory from /proc (of a
// process and all its descendants: a server's workers and its thinking pool), and counters from a server's
// Prometheus /metrics.

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

const clockTicks = 100 // USER_HZ: the unit of /proc/PID/stat's utime and stime on Linux

var pageSize = int64(os.Getpagesize())

// Group is a named set of process trees whose CPU is measured together ("server", "db", "proxy").
type Group struct {
	Name  string
	Roots []int
}

// ParseGroup reads NAME=PID[,PID...].
func ParseGroup(text string) (Group, error) {
	name, pids, ok := strings.Cut(text, "=")
	if !ok || name == "" || pids == "" {
		return Group{}, fmt.Errorf("%q: want NAME=PID[,PID...]", text)
	}
	group := Group{Name: name}
	for _, field := range strings.Split(pids, ",") {
		pid, err := strconv.Atoi(strings.TrimSpace(field))
		if err != nil || pid <= 0 {
			return Group{}, fmt.Errorf("%q: %q is not a pid", text, field)
		}
		group.Roots = append(group.Roots, pid)
	}
	return group, nil
}

// Tree is “root“ and every process descended from it.
func Tree(root int) []int {
	found := []int{}
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		found = append(found, pid)
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
		for _, task := range tasks {
			data, err := os.ReadFile(task)
			if err != nil {
				continue
			}
			for _, child := range strings.Fields(string(data)) {
				if n, err := strconv.Atoi(child); err == nil {
					queue = append(queue, n)
				}
			}
		}
	}
	return found
}

// ParseStatCPU is the CPU time (user + system) in /proc/PID/stat's text.
func ParseStatCPU(stat string) (float64, error) {
	// The command name (field 2) is in parentheses and may hold spaces: count fields after the last ')'.
	end := strings.LastIndexByte(stat, ')')
	if end < 0 {
		return 0, fmt.Errorf("no ')' in stat")
	}
	fields := strings.Fields(stat[end+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("stat has %d fields after the name", len(fields))
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("stat: bad utime/stime")
	}
	return float64(utime+stime) / clockTicks, nil
}

func cpuOf(pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	seconds, err := ParseStatCPU(string(data))
	if err != nil {
		return 0
	}
	return seconds
}

func rssOf(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", pid))
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(data))
	if len(fields) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(fields[1], 10, 64)
	return pages * pageSize
}

// The kinds of thread a server's CPU is split into: where a move's cost lies, and so what could lower it.
const (
	ThreadLoop  = "loop"      // a process's main thread: a server's asyncio event loop (our Python, grpc.aio's)
	ThreadGRPC  = "grpc_core" // gRPC's C-core threads: its event engine's I/O, timers and their lifeguard
	ThreadOther = "other"     // every other thread: the store's worker threads, grpc.aio's poller, /metrics
)

// ThreadKind classifies thread “tid“ of process “pid“ by its name (“comm“ in /proc/PID/task/TID/stat).
func ThreadKind(pid, tid int, comm string) string {
	switch {
	case tid == pid:
		return ThreadLoop
	case strings.HasPrefix(comm, "event_engine"), strings.HasPrefix(comm, "grpc_"), comm == "lifeguard":
		return ThreadGRPC
	default:
		return ThreadOther
	}
}

// ParseStatComm is the command name in /proc/PID/stat's (or a task's) text, without its parentheses.
func ParseStatComm(stat string) string {
	start, end := strings.IndexByte(stat, '('), strings.LastIndexByte(stat, ')')
	if start < 0 || end < start {
		return ""
	}
	return stat[start+1 : end]
}

// threadSample is one thread's kind and CPU time so far.
type threadSample struct {
	kind string
	cpu  float64
}

// Reading is the CPU time of every process of a group at one moment, by pid, the same by thread (keyed by tid,
// which Linux does not reuse while any process is alive that could confuse them in one window), and their
// resident memory.
type Reading struct {
	CPU     map[int]float64
	Threads map[int]threadSample
	RSS     int64
}

func (g Group) Read() Reading {
	reading := Reading{CPU: map[int]float64{}, Threads: map[int]threadSample{}}
	for _, root := range g.Roots {
		for _, pid := range Tree(root) {
			reading.CPU[pid] = cpuOf(pid)
			reading.RSS += rssOf(pid)
			readThreads(pid, reading.Threads)
		}
	}
	return reading
}

func readThreads(pid int, into map[int]threadSample) {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	for _, task := range tasks {
		tid, err := strconv.Atoi(filepath.Base(filepath.Dir(task)))
		if err != nil {
			continue
		}
		data, err := os.ReadFile(task)
		if err != nil {
			continue // the thread ended
		}
		seconds, err := ParseStatCPU(string(data))
		if err != nil {
			continue
		}
		into[tid] = threadSample{ThreadKind(pid, tid, ParseStatComm(string(data))), seconds}
	}
}

// CPUByThread is the CPU time used between two readings by each kind of thread (ThreadKind); a thread that
// appeared in between counts from zero, one that ended in between is not counted.
func CPUByThread(before, after Reading) map[string]float64 {
	used := map[string]float64{}
	for tid, sample := range after.Threads {
		used[sample.kind] += sample.cpu - before.Threads[tid].cpu
	}
	return used
}

// CPUUsed between two readings; a process that appeared in between counts from zero.
func CPUUsed(before, after Reading) float64 {
	total := 0.0
	for pid, seconds := range after.CPU {
		total += seconds - before.CPU[pid]
	}
	return total
}

// SelfCPU is this process's own CPU time.
func SelfCPU() float64 { return cpuOf(os.Getpid()) }

// LoadAverage is the machine's 1-minute load average.
func LoadAverage() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	value, _ := strconv.ParseFloat(strings.Fields(string(data))[0], 64)
	return value
}

// Metrics are the server counters the benchmark reads, summed over every /metrics endpoint given.
type Metrics struct {
	Applied  float64 // truco_commands_applied_total: moves applied (seats' and bots')
	Watchers float64 // truco_watchers: open WatchGame streams
}

// ParseMetrics sums the samples of the two metrics in a Prometheus text exposition.
func ParseMetrics(r io.Reader) (Metrics, error) {
	var m Metrics
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 64<<10), 1<<20)
	for scanner.Scan() {
		line := scanner.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		name := line
		if i := strings.IndexAny(line, "{ "); i >= 0 {
			name = line[:i]
		}
		var target *float64
		switch name {
		case "truco_commands_applied_total":
			target = &m.Applied
		case "truco_watchers":
			target = &m.Watchers
		default:
			continue
		}
		rest := line[len(name):]
		if strings.HasPrefix(rest, "{") {
			rest = rest[strings.LastIndexByte(rest, '}')+1:]
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			continue
		}
		value, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			return m, fmt.Errorf("metrics: %q: %w", line, err)
		}
		*target += value
	}
	return m, scanner.Err()
}

var metricsClient = &http.Client{Timeout: 10 * time.Second}

// ReadMetrics scrapes every URL and adds them up.
func ReadMetrics(urls []string) (Metrics, error) {
	var total Metrics
	for _, url := range urls {
		response, err := metricsClient.Get(url)
		if err != nil {
			return total, err
		}
		m, err := ParseMetrics(response.Body)
		response.Body.Close()
		if err != nil {
			return total, err
		}
		total.Applied += m.Applied
		total.Watchers += m.Watchers
	}
	return total, nil
}
