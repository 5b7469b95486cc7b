package kgmem

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The crash test runs a child process, this test binary again, that writes
// to a durable graph and reports on its standard output each write before
// making it ("op <json>") and after it returned ("ack", or "err" for a write
// refused as not fitting the graph). The parent kills the child with
// SIGKILL at a random moment, reads everything the child wrote, opens the
// graph and checks it against a plain graph that replays the acknowledged
// writes: the durable graph must equal it, or equal it plus the one write
// in flight when the child died. Then it starts the next child on the same
// files, so each child also recovers from the previous crash.

const (
	crashChildEnv = "KGMEM_CRASH_CHILD" // directory of the child's graph; set only in the child
	crashSeedEnv  = "KGMEM_CRASH_SEED"  // the child's write sequence; in the parent, the first of them
	crashSyncEnv  = "KGMEM_CRASH_SYNC"
	crashKillsEnv = "KGMEM_CRASH_KILLS" // kills the parent makes; default 50
)

// TestCrashChild is the child of TestCrash; it does nothing unless
// KGMEM_CRASH_CHILD is set.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashChildEnv)
	if dir == "" {
		t.Skip("runs only as the child of TestCrash")
	}
	seed, _ := strconv.ParseUint(os.Getenv(crashSeedEnv), 10, 64)
	policy, _ := strconv.Atoi(os.Getenv(crashSyncEnv))
	opts := []Option{WithSync(SyncPolicy(policy)), WithCompactThreshold(16 << 10)}
	if SyncPolicy(policy) == SyncInterval {
		opts = append(opts, WithSyncInterval(time.Millisecond))
	}
	g, err := Open(filepath.Join(dir, "memory.kg"), opts...)
	if err != nil {
		fmt.Fprintf(os.Stdout, "fail open: %v\n", err)
		os.Exit(2)
	}
	say := func(s string) {
		if _, err := os.Stdout.WriteString(s + "\n"); err != nil {
			os.Exit(3)
		}
	}
	say(fmt.Sprintf("open %d %d", g.Recovery().TornBytes, g.Recovery().Skipped))
	rng := rand.New(rand.NewPCG(seed, 11))
	for _, op := range randomGraphOps(rng, 60, 5000) {
		b, err := json.Marshal(op)
		if err != nil {
			say("fail " + err.Error())
			os.Exit(2)
		}
		say("op " + string(b))
		switch err := op.apply(g); {
		case err == nil:
			say("ack")
		case errors.Is(err, ErrNotFound):
			say("err")
		default:
			say("fail " + strings.ReplaceAll(err.Error(), "\n", " "))
			os.Exit(2)
		}
	}
	if err := g.Close(); err != nil {
		say("fail close: " + err.Error())
		os.Exit(2)
	}
	say("done")
	os.Exit(0)
}

// cloneGraph returns a plain copy of g built through the public API.
func cloneGraph(t testing.TB, g *InMemoryGraph) *InMemoryGraph {
	t.Helper()
	ctx := context.Background()
	ents, err := g.Entities(ctx)
	require.NoError(t, err)
	rels, err := g.Relations(ctx)
	require.NoError(t, err)
	c := NewInMemoryGraph()
	require.NoError(t, c.AddBatch(ctx, ents, rels))
	return c
}

// sameContents reports whether two graphs hold the same entities and
// relations.
func sameContents(t testing.TB, a, b *InMemoryGraph) bool {
	t.Helper()
	ctx := context.Background()
	ae, err := a.Entities(ctx)
	require.NoError(t, err)
	be, err := b.Entities(ctx)
	require.NoError(t, err)
	ar, err := a.Relations(ctx)
	require.NoError(t, err)
	br, err := b.Relations(ctx)
	require.NoError(t, err)
	return fmt.Sprint(ae) == fmt.Sprint(be) && fmt.Sprint(ar) == fmt.Sprint(br)
}

func TestCrash(t *testing.T) {
	switch runtime.GOOS {
	case "windows", "plan9", "js", "wasip1":
		t.Skip("needs SIGKILL")
	}
	if os.Getenv(crashChildEnv) != "" {
		t.Skip("this is the child")
	}
	kills := 50
	if s := os.Getenv(crashKillsEnv); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err, crashKillsEnv)
		kills = n
	}
	maxLines := 600 // the child is killed after reading at most this many lines
	if testing.Short() || raceEnabled() {
		maxLines = 200
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "memory.kg")
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	seedBase := rng.Uint64()
	if s := os.Getenv(crashSeedEnv); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		require.NoError(t, err, crashSeedEnv)
		seedBase = n
	}
	t.Logf("write sequences from %s=%d", crashSeedEnv, seedBase)
	model := NewInMemoryGraph()
	start := time.Now()
	var (
		killed, rounds, acked, inFlightApplied, torn, skipped, compacted int
		lastSnapSeq                                                      uint64
	)
	policies := []SyncPolicy{SyncNone, SyncAlways, SyncInterval}
	for killed < kills {
		rounds++
		require.Less(t, rounds, 2*kills+10, "the children keep finishing before being killed")
		policy := policies[rounds%len(policies)]
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(),
			crashChildEnv+"="+dir,
			crashSeedEnv+"="+strconv.FormatUint(seedBase+uint64(rounds), 10),
			crashSyncEnv+"="+strconv.Itoa(int(policy)),
			"GORACE=atexit_sleep_ms=0")
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		cmd.Stderr = os.Stderr
		require.NoError(t, cmd.Start())
		killAt := 1 + rng.IntN(maxLines)
		var (
			lines     int
			pending   *graphOp // written by "op", not yet answered
			done      bool
			wasKilled bool
		)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			lines++
			if lines == killAt {
				time.Sleep(time.Duration(rng.IntN(500)) * time.Microsecond)
				require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
				wasKilled = true
			}
			switch {
			case strings.HasPrefix(line, "op "):
				require.Nil(t, pending, "round %d: two ops in flight", rounds)
				pending = new(graphOp)
				require.NoError(t, json.Unmarshal([]byte(line[3:]), pending))
			case line == "ack" || line == "err":
				require.NotNil(t, pending, "round %d: %s without op", rounds, line)
				err := pending.apply(model)
				if line == "ack" {
					require.NoError(t, err, "round %d: an acknowledged write fails on the model", rounds)
					acked++
				} else {
					require.ErrorIs(t, err, ErrNotFound, "round %d: a write refused by the child succeeds on the model", rounds)
				}
				pending = nil
			case strings.HasPrefix(line, "open "):
				var tb, sk int
				fmt.Sscanf(line, "open %d %d", &tb, &sk)
				if tb > 0 {
					torn++
				}
				skipped += sk
			case line == "done":
				done = true
			case strings.HasPrefix(line, "fail"):
				t.Fatalf("round %d: child: %s", rounds, line)
			}
		}
		require.NoError(t, sc.Err())
		err = cmd.Wait()
		if done {
			require.NoError(t, err)
		} else {
			require.True(t, wasKilled, "round %d: the child died by itself: %v", rounds, err)
			killed++
		}

		g, err := Open(path, WithSync(SyncNone), WithCompactThreshold(-1))
		require.NoError(t, err, "round %d: reopening after the crash", rounds)
		require.NoError(t, g.checkInvariants(), "round %d", rounds)
		if seq := g.JournalStats().SnapshotSeq; seq != lastSnapSeq {
			compacted++
			lastSnapSeq = seq
		}
		if !sameContents(t, model, g) {
			require.NotNil(t, pending, "round %d: the graph differs from the acknowledged writes and no write was in flight", rounds)
			withOp := cloneGraph(t, model)
			require.NoError(t, pending.apply(withOp), "round %d: the write in flight", rounds)
			require.True(t, sameContents(t, withOp, g),
				"round %d: the graph is neither the acknowledged writes nor them plus the write in flight (%+v)", rounds, *pending)
			model = withOp
			inFlightApplied++
		}
		require.NoError(t, g.Close())
	}
	elapsed := time.Since(start)
	t.Logf("%d kills in %d rounds, %.1fs: %d acknowledged writes, %d writes in flight found after a crash, %d torn tails discarded, %d rounds compacted, %d records skipped after interrupted compactions",
		killed, rounds, elapsed.Seconds(), acked, inFlightApplied, torn, compacted, skipped)
	require.Greater(t, acked, 0)
}

// copyDir copies the regular files of src, except the lock file, into a
// new directory and returns it.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	require.NoError(t, err)
	for _, e := range entries {
		if !e.Type().IsRegular() || strings.HasSuffix(e.Name(), ".lock") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dst, e.Name()), b, 0o600))
	}
	return dst
}

// TestCompactCrashPoints stops the world at each step of a compaction,
// copies the files as a crash at that point would leave them, and opens
// every copy: each must hold every write, none of them twice. Writes made
// while the snapshot is being written must survive too.
func TestCompactCrashPoints(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "memory.kg")
	g, err := Open(path, WithSync(SyncNone), WithCompactThreshold(-1))
	require.NoError(t, err)
	defer g.Close()
	model := NewInMemoryGraph()
	both := func(f func(h *InMemoryGraph) error) {
		require.NoError(t, f(g))
		require.NoError(t, f(model))
	}
	// Writes of which some would fail if applied twice: each round removes
	// an entity the round before added.
	writes := func(round, n int) {
		both(func(h *InMemoryGraph) error { return h.AddEntity(ctx, Entity{ID: fmt.Sprintf("extra-%d", round)}) })
		if round > 0 && round < 100 {
			both(func(h *InMemoryGraph) error { return h.RemoveEntity(ctx, fmt.Sprintf("extra-%d", round-1)) })
		}
		for i := range n {
			id := fmt.Sprintf("r%d-%d", round, i)
			both(func(h *InMemoryGraph) error { return h.AddEntity(ctx, Entity{ID: id, Name: id}) })
			both(func(h *InMemoryGraph) error { return h.AddEntity(ctx, Entity{ID: id + "-gone"}) })
			both(func(h *InMemoryGraph) error { return h.RemoveEntity(ctx, id+"-gone") })
			if i > 0 {
				prev := fmt.Sprintf("r%d-%d", round, i-1)
				both(func(h *InMemoryGraph) error {
					return h.AddRelation(ctx, Relation{SourceID: prev, TargetID: id, Type: "next", Weight: 0.5})
				})
			}
		}
		both(func(h *InMemoryGraph) error {
			_, err := h.SetEntityTags(ctx, fmt.Sprintf("r%d-0", round), []string{"t" + fmt.Sprint(round)})
			return err
		})
	}
	d := g.journal.(*durableLog)
	for round := range 3 {
		writes(round, 10)
		type point struct {
			step string
			dir  string
			want *InMemoryGraph
		}
		var points []point
		snapSeq := d.seq
		d.onStep = func(step string) {
			if step == "snapshot-written" {
				// Runs without the graph's lock: writes go on while the
				// snapshot is written.
				writes(100+round, 3)
			}
			points = append(points, point{step: step, dir: copyDir(t, dir), want: cloneGraph(t, model)})
		}
		require.NoError(t, g.Compact())
		d.onStep = nil
		require.Equal(t, []string{"snapshot-written", "journal-written", "snapshot-renamed", "journal-renamed"},
			func() []string {
				var s []string
				for _, p := range points {
					s = append(s, p.step)
				}
				return s
			}())
		for _, p := range points {
			h, err := Open(filepath.Join(p.dir, "memory.kg"), WithSync(SyncNone), WithCompactThreshold(-1))
			require.NoError(t, err, "round %d, crash after %s", round, p.step)
			require.True(t, sameContents(t, p.want, h), "round %d, crash after %s: contents differ", round, p.step)
			require.NoError(t, h.checkInvariants())
			rec := h.Recovery()
			temps := map[string]int{"snapshot-written": 1, "journal-written": 2, "snapshot-renamed": 1, "journal-renamed": 0}
			require.Equal(t, temps[p.step], rec.TempFiles, "round %d, crash after %s: leftover temporary files", round, p.step)
			switch p.step {
			case "snapshot-written", "journal-written":
				require.Less(t, rec.SnapshotSeq, snapSeq, "the old snapshot is still in place")
			case "snapshot-renamed":
				require.Equal(t, snapSeq, rec.SnapshotSeq)
				require.Greater(t, rec.Skipped, 0, "round %d: the old journal's records are skipped, not applied again", round)
			case "journal-renamed":
				require.Equal(t, snapSeq, rec.SnapshotSeq)
				require.Zero(t, rec.Skipped)
			}
			// The recovered graph goes on working.
			require.NoError(t, h.AddEntity(ctx, Entity{ID: "after-crash"}))
			require.NoError(t, h.Close())
			h, err = Open(filepath.Join(p.dir, "memory.kg"), WithSync(SyncNone))
			require.NoError(t, err)
			require.Equal(t, p.want.Stats().Entities+1, h.Stats().Entities)
			require.NoError(t, h.Close())
		}
	}
	require.NoError(t, g.Close())
	h, err := Open(path)
	require.NoError(t, err)
	require.True(t, sameContents(t, model, h))
	require.NoError(t, h.Close())
}

// TestJournalWriteFailure makes the journal unwritable: the write fails
// with ErrJournal and is not applied, later writes are refused, reads go
// on, and a Compact starts a sound journal and lifts the refusal.
func TestJournalWriteFailure(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memory.kg")
	for _, recoverBy := range []string{"compact", "reopen"} {
		t.Run(recoverBy, func(t *testing.T) {
			path := path + recoverBy
			g, err := Open(path, WithCompactThreshold(-1))
			require.NoError(t, err)
			defer g.Close()
			require.NoError(t, g.AddEntity(ctx, Entity{ID: "a"}))
			require.NoError(t, g.AddEntity(ctx, Entity{ID: "b"}))
			d := g.journal.(*durableLog)
			ro, err := os.Open(path + ".journal")
			require.NoError(t, err)
			g.mu.Lock()
			rw := d.f
			d.f = ro
			g.mu.Unlock()
			defer rw.Close()

			err = g.AddRelation(ctx, Relation{SourceID: "a", TargetID: "b", Type: "t", Weight: 1})
			require.ErrorIs(t, err, ErrJournal)
			require.ErrorContains(t, err, path+".journal")
			_, ok, err := g.GetRelation(ctx, "a", "b", "t")
			require.NoError(t, err, "reads go on")
			require.False(t, ok, "the failed write was applied")
			err = g.AddEntity(ctx, Entity{ID: "c"})
			require.ErrorIs(t, err, ErrJournal, "a write after a failure")
			require.ErrorContains(t, err, "refused")
			require.ErrorIs(t, g.JournalStats().Failed, ErrJournal)
			require.Equal(t, 2, g.Stats().Entities)

			switch recoverBy {
			case "compact":
				require.NoError(t, g.Compact())
				require.NoError(t, g.JournalStats().Failed)
				require.NoError(t, g.AddEntity(ctx, Entity{ID: "c"}))
				require.NoError(t, g.Close())
			case "reopen":
				err := g.Close()
				require.ErrorIs(t, err, ErrJournal, "Close reports the failure")
			}
			h, err := Open(path)
			require.NoError(t, err, "Close released the lock despite the failure")
			defer h.Close()
			require.Zero(t, h.Stats().Relations)
			require.NoError(t, h.AddEntity(ctx, Entity{ID: "c"}))
			require.Equal(t, 3, h.Stats().Entities)
		})
	}
}

// TestCompactWhileWriting runs writers and compactions at once; the race
// detector checks the locking and the reopened graph must hold every write.
func TestCompactWhileWriting(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memory.kg")
	g, err := Open(path, WithSyncInterval(time.Millisecond), WithCompactThreshold(4<<10))
	require.NoError(t, err)
	defer g.Close()
	const writers, perWriter = 2, 300
	errs := make(chan error, writers+1)
	stop := make(chan struct{})
	for w := range writers {
		go func() {
			var err error
			for i := range perWriter {
				if err = g.AddEntity(ctx, Entity{ID: fmt.Sprintf("w%d-%d", w, i), Name: strings.Repeat("n", 30)}); err != nil {
					break
				}
				if _, err = g.GetRelated(ctx, fmt.Sprintf("w%d-%d", w, i), TraverseOptions{Depth: 1}); err != nil {
					break
				}
			}
			errs <- err
		}()
	}
	go func() {
		var err error
		for {
			select {
			case <-stop:
				errs <- err
				return
			default:
			}
			if err = g.Compact(); err != nil {
				<-stop
				errs <- err
				return
			}
			_, err = g.WriteTo(io.Discard)
		}
	}()
	for range writers {
		require.NoError(t, <-errs)
	}
	close(stop)
	require.NoError(t, <-errs)
	require.NoError(t, g.Close())
	h, err := Open(path)
	require.NoError(t, err)
	defer h.Close()
	require.Equal(t, writers*perWriter, h.Stats().Entities)
	require.NoError(t, h.checkInvariants())
}
