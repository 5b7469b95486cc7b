package main

import (
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kgmem/kgmem/internal/benchgraph"
)

// TestImplementationsAgree runs every workload on the smallest graph from
// one start, without timing, and checks that every implementation reaches
// the same number of entities.
func TestImplementationsAgree(t *testing.T) {
	for _, shape := range shapes {
		size := benchgraph.Sizes[0]
		spec := benchgraph.Spec{Shape: shape, Entities: size[0], Relations: size[1]}
		results, err := compareSpec(spec, 1, measurer{}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if len(results) != len(depths)*len(directions) {
			t.Fatalf("%s: %d workloads, want %d", spec, len(results), len(depths)*len(directions))
		}
		for _, r := range results {
			if r.mismatch != "" {
				t.Errorf("%s: %s", r.w, r.mismatch)
				continue
			}
			if r.counts[0][0] == 0 {
				t.Errorf("%s: no entity reached; the start should have relations", r.w)
			}
			var row strings.Builder
			writeRow(&row, r)
			if !strings.HasPrefix(row.String(), "| "+r.w.String()+" | ") {
				t.Errorf("row %q does not name workload %s", row.String(), r.w)
			}
		}
	}
}

func TestParseSizes(t *testing.T) {
	sizes, err := parseSizes("5k, 100000")
	if err != nil || len(sizes) != 2 || sizes[0] != benchgraph.Sizes[0] || sizes[1] != benchgraph.Sizes[1] {
		t.Fatalf("parseSizes: %v, %v", sizes, err)
	}
	if _, err := parseSizes("7k"); err == nil {
		t.Fatal("parseSizes accepted a size that benchgraph does not generate")
	}
}

// TestMeasure checks that a timed measurement covers every start equally,
// from the first, and reports a positive time by both clocks.
func TestMeasure(t *testing.T) {
	for _, c := range []clock{wallClock, cpuClock} {
		if _, err := parseClock(string(c)); err != nil {
			t.Logf("%s: %v", c, err)
			continue
		}
		calls := make([]int, 4)
		op := func(i int) (int, error) {
			calls[i]++
			return i, nil
		}
		m := measurer{benchtime: time.Millisecond, count: 2, clock: c}
		counts, ns, err := m.measure(op, len(calls))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(counts, []int{0, 1, 2, 3}) {
			t.Errorf("%s: counts %v, want each start's own", c, counts)
		}
		for i, n := range calls {
			if n != calls[0] {
				t.Errorf("%s: start %d ran %d times, start 0 %d times", c, i, n, calls[0])
			}
		}
		if c == wallClock && ns <= 0 {
			t.Errorf("%s: %v ns/op, want > 0", c, ns)
		}
	}
}
