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

// Reading is the CPU time of every process of a group at one moment, by pid, and their resident memory.
type Reading struct {
	CPU map[int]float64
	RSS int64
}

func (g Group) Read() Reading {
	reading := Reading{CPU: map[int]float64{}}
	for _, root := range g.Roots {
		for _, pid := range Tree(root) {
			reading.CPU[pid] = cpuOf(pid)
			reading.RSS += rssOf(pid)
		}
	}
	return reading
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
