package main

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"time"
)

// clock says what a timed run measures.
type clock string

const (
	// wallClock is elapsed real time, what go test -bench reports. Other
	// processes competing for the CPUs inflate it.
	wallClock clock = "wall"
	// cpuClock is the CPU time of the thread that runs the traversals (the
	// measuring goroutine is locked to it): the traversal's own work and the
	// garbage collection it assists with, but neither the collector's
	// background workers, which run on other cores, nor time spent waiting
	// for a CPU. On a busy machine it approximates what the wall clock
	// shows on an idle one.
	cpuClock clock = "cpu"
)

func parseClock(s string) (clock, error) {
	switch c := clock(s); c {
	case wallClock:
		return c, nil
	case cpuClock:
		if _, err := threadCPUTime(); err != nil {
			return "", err
		}
		return c, nil
	}
	return "", fmt.Errorf("unknown clock %q: want wall or cpu", s)
}

// measurer runs an implementation's traversal over every start and times
// it. The zero measurer only counts.
type measurer struct {
	benchtime time.Duration // length of one timed run; 0: do not time
	count     int           // timed runs, the fastest kept
	clock     clock
}

// measure runs op, one traversal from start i that returns how many
// entities it reached, once from each of the starts in order, which also
// warms up, and returns the counts. Unless m only counts, it then times
// runs of op that each cover every start the same number of times, from the
// first, as many passes as fill benchtime (at least one). It makes up to
// count runs, stopping early once they have taken count×benchtime in all,
// and returns the fastest, since other processes only ever add time. When
// the first pass alone took count×benchtime, it is the measurement.
func (m measurer) measure(op func(i int) (int, error), starts int) (counts []int, nsPerOp float64, err error) {
	if m.clock == cpuClock {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	counts = make([]int, starts)
	runtime.GC()
	first, err := m.run(func(i int) error {
		n, err := op(i)
		counts[i] = n
		return err
	}, starts)
	if err != nil || m.benchtime <= 0 {
		return counts, 0, err
	}
	budget := time.Duration(m.count) * m.benchtime
	if first.wall >= budget {
		return counts, first.perOp(m.clock, starts), nil
	}
	passes := max(1, int(math.Ceil(float64(m.benchtime)/float64(max(first.wall, 1)))))
	iters := passes * starts
	timed := func(i int) error {
		_, err := op(i % starts)
		return err
	}
	best := math.Inf(1)
	var spent time.Duration
	for run := 0; run < m.count && (run == 0 || spent < budget); run++ {
		runtime.GC()
		t, err := m.run(timed, iters)
		if err != nil {
			return counts, 0, err
		}
		spent += t.wall
		best = min(best, t.perOp(m.clock, iters))
	}
	return counts, best, nil
}

// elapsed is how long a run took by each clock.
type elapsed struct{ wall, cpu time.Duration }

func (e elapsed) perOp(c clock, ops int) float64 {
	d := e.wall
	if c == cpuClock {
		d = e.cpu
	}
	return float64(d.Nanoseconds()) / float64(ops)
}

// run calls op(0) to op(n-1) and returns how long that took.
func (m measurer) run(op func(i int) error, n int) (elapsed, error) {
	cpu0, err := readClock(m.clock)
	if err != nil {
		return elapsed{}, err
	}
	wall0 := time.Now()
	for i := range n {
		if err := op(i); err != nil {
			return elapsed{}, err
		}
	}
	wall := time.Since(wall0)
	cpu1, err := readClock(m.clock)
	if err != nil {
		return elapsed{}, err
	}
	return elapsed{wall: wall, cpu: cpu1 - cpu0}, nil
}

// readClock returns the thread's CPU time for cpuClock and 0 otherwise.
func readClock(c clock) (time.Duration, error) {
	if c != cpuClock {
		return 0, nil
	}
	return threadCPUTime()
}

// loadAverage returns the one-minute load average from /proc/loadavg, or
// -1 when it cannot be read.
func loadAverage() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	var l float64
	if _, err := fmt.Sscan(strings.TrimSpace(string(data)), &l); err != nil {
		return -1
	}
	return l
}
