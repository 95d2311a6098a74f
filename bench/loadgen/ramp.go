package main

// The ramp: which number of concurrent matches (K) to hold next, given the steps measured so far. K goes up
// the planned steps while both p99s stay within the limit; past the first step that breaks it, it bisects
// between the last K that held and the first that did not, ``Refine`` times (while they are more than
// ``MinGap`` apart, as a fraction). The knee is the largest K that held.

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

type Ramp struct {
	Steps  []int
	Refine int
	MinGap float64
}

// Outcome of one step: its K and whether both p99s stayed within the limit.
type Outcome struct {
	K    int
	Held bool
}

// Next is the K to measure after “done“; false when the ramp is over.
func (r Ramp) Next(done []Outcome) (int, bool) {
	held, broke := r.bounds(done)
	if broke == 0 { // nothing broke yet: the next planned step above every K measured
		for _, k := range r.Steps {
			if k > held {
				return k, true
			}
		}
		return 0, false
	}
	firstBreak := slices.IndexFunc(done, func(o Outcome) bool { return !o.Held })
	if refined := len(done) - 1 - firstBreak; refined >= r.Refine {
		return 0, false
	}
	if float64(broke-held) <= r.MinGap*float64(broke) || broke-held < 2 {
		return 0, false
	}
	return (held + broke) / 2, true
}

// Knee is the largest K that held below every K that broke (0: none held).
func (r Ramp) Knee(done []Outcome) int {
	held, _ := r.bounds(done)
	return held
}

// bounds: the largest K that held below the smallest that broke (0 if none broke).
func (r Ramp) bounds(done []Outcome) (held, broke int) {
	for _, o := range done {
		if !o.Held && (broke == 0 || o.K < broke) {
			broke = o.K
		}
	}
	for _, o := range done {
		if o.Held && o.K > held && (broke == 0 || o.K < broke) {
			held = o.K
		}
	}
	return held, broke
}

// ParseSteps reads "50,100,200" or a geometric "start:factor:max" ("100:1.5:4000").
func ParseSteps(text string) ([]int, error) {
	if parts := strings.Split(text, ":"); len(parts) == 3 {
		start, err1 := strconv.Atoi(parts[0])
		factor, err2 := strconv.ParseFloat(parts[1], 64)
		limit, err3 := strconv.Atoi(parts[2])
		if err1 != nil || err2 != nil || err3 != nil || start < 1 || factor <= 1 || limit < start {
			return nil, fmt.Errorf("steps %q: want START:FACTOR:MAX with FACTOR > 1", text)
		}
		var steps []int
		for k := float64(start); int(math.Round(k)) <= limit; k *= factor {
			next := int(math.Round(k))
			if len(steps) == 0 || next > steps[len(steps)-1] {
				steps = append(steps, next)
			}
		}
		return steps, nil
	}
	var steps []int
	for _, field := range strings.Split(text, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(field))
		if err != nil || k < 1 {
			return nil, fmt.Errorf("steps %q: %q is not a positive number", text, field)
		}
		if len(steps) > 0 && k <= steps[len(steps)-1] {
			return nil, fmt.Errorf("steps %q: not increasing", text)
		}
		steps = append(steps, k)
	}
	return steps, nil
}
