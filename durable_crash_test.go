package kgmem

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The crash test runs a child process, this test binary again, that writes
// to a durable memory (graph writes, page writes and ingests, mixed) and
// reports on its standard output each write before making it ("op
// <json>") and after it returned ("ack", or "err" for a write refused as
// not fitting the memory). The parent kills the child with SIGKILL at a
// random moment, reads everything the child wrote, opens the memory and
// checks it against a plain graph and store that replay the acknowledged
// writes: the memory must equal them, or equal them plus the one write in
// flight when the child died. Then it starts the next child on the same
// files, so each child also recovers from the previous crash.

const (
	crashChildEnv = "KGMEM_CRASH_CHILD" // directory of the child's memory; set only in the child
	crashSeedEnv  = "KGMEM_CRASH_SEED"  // the child's write sequence; in the parent, the first of them
	crashSyncEnv  = "KGMEM_CRASH_SYNC"
	crashKillsEnv = "KGMEM_CRASH_KILLS" // kills the parent makes; default 50 under KGMEM_LONG, 4 under -short, else 8
)

// memOp is one write to a memory, in a form that can be printed and read
// back: a graph write, a page write or an ingest.
type memOp struct {
	graphOp
	Page       *KnowledgePage `json:"page,omitempty"`
	Extraction *Extraction    `json:"extraction,omitempty"`
}

// apply performs the write on a memory when m is set, else on the plain
// graph g and store s that model one.
func (op memOp) apply(m *Memory, g *InMemoryGraph, s *InMemoryKnowledgeStore) error {
	ctx := context.Background()
	if m != nil {
		g, s = m.Graph(), m.Store()
	}
	switch op.Kind {
	case "put_page":
		return s.Put(ctx, *op.Page)
	case "delete_page":
		return s.Delete(ctx, op.ID)
	case "ingest":
		if m != nil {
			_, err := m.Ingest(ctx, *op.Page, *op.Extraction)
			return err
		}
		if _, err := Ingest(ctx, g, *op.Extraction, WithSource(op.Page.ID)); err != nil {
			return err
		}
		return s.Put(ctx, *op.Page)
	}
	return op.graphOp.apply(g)
}

// randomMemoryOps returns random graph writes (see randomGraphOps) mixed
// with page writes and ingests that cite the same pages.
func randomMemoryOps(rng *rand.Rand, n, m int) []memOp {
	names := []string{"Alice", "Bob", "张三", "Project Apollo", "Raft", "基础架构部", `Carol "C"`, "<Dave>"}
	types := []string{"person", "project", "tech", ""}
	var ops []memOp
	for _, g := range randomGraphOps(rng, n, m) {
		ops = append(ops, memOp{graphOp: g})
		switch k := rng.IntN(100); {
		case k < 20:
			p := KnowledgePage{ID: fmt.Sprintf("page-%d", rng.IntN(8)), Title: names[rng.IntN(len(names))],
				Content: strings.Repeat(names[rng.IntN(len(names))]+" ", 1+rng.IntN(20))}
			ops = append(ops, memOp{graphOp: graphOp{Kind: "put_page"}, Page: &p})
		case k < 25:
			ops = append(ops, memOp{graphOp: graphOp{Kind: "delete_page", ID: fmt.Sprintf("page-%d", rng.IntN(8))}})
		case k < 33:
			x := Extraction{}
			for range 1 + rng.IntN(3) {
				x.Entities = append(x.Entities, ExtractedEntity{Name: names[rng.IntN(len(names))], Type: types[rng.IntN(len(types))]})
			}
			for range rng.IntN(3) {
				x.Relations = append(x.Relations, ExtractedRelation{
					Source: x.Entities[rng.IntN(len(x.Entities))].Name, Target: x.Entities[rng.IntN(len(x.Entities))].Name, Type: "related_to"})
			}
			p := KnowledgePage{ID: fmt.Sprintf("page-%d", 8+rng.IntN(8)), Content: "ingested " + names[rng.IntN(len(names))]}
			ops = append(ops, memOp{graphOp: graphOp{Kind: "ingest"}, Page: &p, Extraction: &x})
		}
	}
	return ops
}

// TestCrashChild is the child of TestCrash; it does nothing unless
// KGMEM_CRASH_CHILD is set.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashChildEnv)
	if dir == "" {
		t.Skip("runs only as the child of TestCrash")
	}
	seed, _ := strconv.ParseUint(os.Getenv(crashSeedEnv), 10, 64)
	policy, _ := strconv.Atoi(os.Getenv(crashSyncEnv))
	opts := []DurableOption{WithSync(SyncPolicy(policy)), WithCompactThreshold(16 << 10)}
	if SyncPolicy(policy) == SyncInterval {
		opts = append(opts, WithSyncInterval(time.Millisecond))
	}
	m, err := OpenMemory(dir, opts...)
	if err != nil {
		fmt.Fprintf(os.Stdout, "fail open: %v\n", err)
		os.Exit(2)
	}
	say := func(s string) {
		if _, err := os.Stdout.WriteString(s + "\n"); err != nil {
			os.Exit(3)
		}
	}
	rec := m.Recovery()
	say(fmt.Sprintf("open %d %d %d", rec.TornBytes, rec.Skipped, rec.DamagedBytes))
	rng := rand.New(rand.NewPCG(seed, 11))
	// The parent kills the child within its first 600 lines (200 under
	// -race or -short), some 300 writes; the sequence goes on far beyond,
	// and generating it is most of a child's start-up, so it is no longer.
	// It begins by adding its 20 entities (some 50 lines), so that most
	// kills land among the writes after them.
	for _, op := range randomMemoryOps(rng, 20, 1000) {
		b, err := json.Marshal(op)
		if err != nil {
			say("fail " + err.Error())
			os.Exit(2)
		}
		say("op " + string(b))
		switch err := op.apply(m, nil, nil); {
		case err == nil:
			say("ack")
		case errors.Is(err, ErrNotFound):
			say("err")
		default:
			say("fail " + strings.ReplaceAll(err.Error(), "\n", " "))
			os.Exit(2)
		}
	}
	if err := m.Close(); err != nil {
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

// cloneStore returns a plain copy of s.
func cloneStore(t testing.TB, s *InMemoryKnowledgeStore) *InMemoryKnowledgeStore {
	t.Helper()
	var b bytes.Buffer
	_, err := s.WriteTo(&b)
	require.NoError(t, err)
	c := NewInMemoryKnowledgeStore()
	_, err = c.ReadFrom(&b)
	require.NoError(t, err)
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

// samePages reports whether two stores hold the same pages.
func samePages(t testing.TB, a, b *InMemoryKnowledgeStore) bool {
	t.Helper()
	var x, y bytes.Buffer
	_, err := a.WriteTo(&x)
	require.NoError(t, err)
	_, err = b.WriteTo(&y)
	require.NoError(t, err)
	return bytes.Equal(x.Bytes(), y.Bytes())
}

func TestCrash(t *testing.T) {
	switch runtime.GOOS {
	case "windows", "plan9", "js", "wasip1":
		t.Skip("needs SIGKILL")
	}
	if os.Getenv(crashChildEnv) != "" {
		t.Skip("this is the child")
	}
	t.Parallel()
	kills := scaled(50, 8, 4)
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
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	seedBase := rng.Uint64()
	if s := os.Getenv(crashSeedEnv); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		require.NoError(t, err, crashSeedEnv)
		seedBase = n
	}
	t.Logf("write sequences from %s=%d", crashSeedEnv, seedBase)
	model, pages := NewInMemoryGraph(), NewInMemoryKnowledgeStore()
	start := time.Now()
	var (
		killed, rounds, acked, inFlightApplied, torn, damaged, skipped, compacted int
		kinds                                                                     = map[string]int{}
		lastSnapSeq                                                               uint64
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
			pending   *memOp // written by "op", not yet answered
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
				pending = new(memOp)
				require.NoError(t, json.Unmarshal([]byte(line[3:]), pending))
			case line == "ack" || line == "err":
				require.NotNil(t, pending, "round %d: %s without op", rounds, line)
				err := pending.apply(nil, model, pages)
				if line == "ack" {
					require.NoError(t, err, "round %d: an acknowledged write fails on the model", rounds)
					acked++
					kinds[pending.Kind]++
				} else {
					require.ErrorIs(t, err, ErrNotFound, "round %d: a write refused by the child succeeds on the model", rounds)
				}
				pending = nil
			case strings.HasPrefix(line, "open "):
				var tb, sk, db int
				fmt.Sscanf(line, "open %d %d %d", &tb, &sk, &db)
				if tb > 0 {
					torn++
				}
				if db > 0 {
					damaged++
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

		// Strict: a process crash tears appends, it never damages whole
		// records.
		m, err := OpenMemory(dir, WithSync(SyncNone), WithCompactThreshold(-1), WithStrictRecovery())
		require.NoError(t, err, "round %d: reopening after the crash", rounds)
		require.NoError(t, m.Graph().checkInvariants(), "round %d", rounds)
		if seq := m.JournalStats().SnapshotSeq; seq != lastSnapSeq {
			compacted++
			lastSnapSeq = seq
		}
		if !sameContents(t, model, m.Graph()) || !samePages(t, pages, m.Store()) {
			require.NotNil(t, pending, "round %d: the memory differs from the acknowledged writes and no write was in flight", rounds)
			withOp, withPages := cloneGraph(t, model), cloneStore(t, pages)
			require.NoError(t, pending.apply(nil, withOp, withPages), "round %d: the write in flight", rounds)
			require.True(t, sameContents(t, withOp, m.Graph()) && samePages(t, withPages, m.Store()),
				"round %d: the memory is neither the acknowledged writes nor them plus the write in flight (%+v)", rounds, *pending)
			model, pages = withOp, withPages
			inFlightApplied++
		}
		require.NoError(t, m.Close())
	}
	elapsed := time.Since(start)
	t.Logf("%d kills in %d rounds, %.1fs: %d acknowledged writes %v, %d writes in flight found after a crash, %d torn tails cut off, %d damaged records kept aside, %d rounds compacted, %d records skipped after interrupted compactions",
		killed, rounds, elapsed.Seconds(), acked, kinds, inFlightApplied, torn, damaged, compacted, skipped)
	require.Greater(t, kinds["ingest"], 0)
	require.Greater(t, kinds["put_page"], 0)
	require.Greater(t, kinds["add_relation"], 0)
}

// TestCompactWhileWriting runs writers and compactions at once; the race
// detector checks the locking and the reopened graph must hold every write.
func TestCompactWhileWriting(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	g, err := OpenGraph(dir, WithSyncInterval(time.Millisecond), WithCompactThreshold(4<<10))
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
	h, err := OpenGraph(dir)
	require.NoError(t, err)
	defer h.Close()
	require.Equal(t, writers*perWriter, h.Stats().Entities)
	require.NoError(t, h.checkInvariants())
}
