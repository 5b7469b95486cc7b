package wal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// kv is a Machine for tests: a map of strings, written by set.
type kv struct {
	mu  sync.RWMutex
	m   map[string]string
	log *Log
}

type kvRecord struct {
	Op string `json:"op"`
	K  string `json:"k"`
	V  string `json:"v,omitempty"`
}

type kvSnapshot struct {
	Seq uint64            `json:"seq"`
	M   map[string]string `json:"m"`
}

func (s *kvSnapshot) WriteTo(w io.Writer) (int64, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	return int64(n), err
}

func (k *kv) Load(r io.Reader) (uint64, error) {
	var s kvSnapshot
	if err := json.NewDecoder(r).Decode(&s); err != nil {
		return 0, err
	}
	k.m = s.M
	if k.m == nil {
		k.m = map[string]string{}
	}
	return s.Seq, nil
}

func (k *kv) Replay(version int, body []byte) error {
	var r kvRecord
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return err
	}
	return k.apply(r)
}

func (k *kv) apply(r kvRecord) error {
	switch r.Op {
	case "set":
		k.m[r.K] = r.V
	case "del":
		delete(k.m, r.K)
	default:
		return fmt.Errorf("unknown op %q", r.Op)
	}
	return nil
}

func (k *kv) Capture(mark func() uint64) Snapshot {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return &kvSnapshot{Seq: mark(), M: maps.Clone(k.m)}
}

func (k *kv) set(key, val string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	r := kvRecord{Op: "set", K: key, V: val}
	if err := k.log.Append(r); err != nil {
		return err
	}
	return k.apply(r)
}

func (k *kv) snapshot() map[string]string {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return maps.Clone(k.m)
}

var testErrs = Sentinels{
	Locked: errors.New("locked"), Journal: errors.New("journal failed"), Corrupt: errors.New("corrupt"),
	Closed: errors.New("closed"), Invalid: errors.New("invalid argument"),
}

func openKV(t testing.TB, dir string, o Options) (*kv, error) {
	t.Helper()
	if o.Name == "" {
		o.Name = "kv"
	}
	if o.Kind == "" {
		o.Kind = "kv"
	}
	o.Errors = testErrs
	k := &kv{m: map[string]string{}}
	l, err := Open(dir, k, o)
	if err != nil {
		return nil, err
	}
	k.log = l
	return k, nil
}

func mustOpenKV(t testing.TB, dir string, o Options) *kv {
	t.Helper()
	k, err := openKV(t, dir, o)
	require.NoError(t, err)
	return k
}

// fill writes n keys k0..k(n-1) with value v and returns the expected map.
func fill(t testing.TB, k *kv, want map[string]string, from, n int, v string) {
	t.Helper()
	for i := from; i < from+n; i++ {
		key := fmt.Sprintf("k%d", i)
		require.NoError(t, k.set(key, v))
		want[key] = v
	}
}

func TestReopen(t *testing.T) {
	dir := t.TempDir()
	k := mustOpenKV(t, dir, Options{})
	want := map[string]string{}
	fill(t, k, want, 0, 20, "a")
	require.NoError(t, k.log.Close())
	require.ErrorIs(t, k.log.Close(), testErrs.Closed)
	require.ErrorIs(t, k.set("x", "y"), testErrs.Closed)

	k = mustOpenKV(t, dir, Options{})
	require.Equal(t, want, k.snapshot())
	require.Equal(t, 20, k.log.Recovery().Replayed)
	require.Equal(t, uint64(20), k.log.Stats().Seq)
	fill(t, k, want, 10, 20, "b")
	require.NoError(t, k.log.Compact())
	fill(t, k, want, 25, 10, "c")
	require.NoError(t, k.log.Close())

	k = mustOpenKV(t, dir, Options{})
	require.Equal(t, want, k.snapshot())
	rec := k.log.Recovery()
	require.Equal(t, uint64(40), rec.SnapshotSeq)
	require.Equal(t, 10, rec.Replayed)
	require.NoError(t, k.log.Close())
}

func TestRecordFormat(t *testing.T) {
	dir := t.TempDir()
	k := mustOpenKV(t, dir, Options{})
	require.NoError(t, k.set("a", "b"))
	require.NoError(t, k.log.Close())
	b, err := os.ReadFile(filepath.Join(dir, "kv.journal"))
	require.NoError(t, err)
	var payloads []string
	for len(b) > 0 {
		require.True(t, frameAt(b))
		n := int(b[0]) | int(b[1])<<8 | int(b[2])<<16 | int(b[3])<<24
		payloads = append(payloads, string(b[frameHeader:frameHeader+n]))
		b = b[frameHeader+n:]
	}
	require.Equal(t, []string{
		`{"format":"kgmem-journal","version":2,"kind":"kv","base":0}`,
		`{"seq":1,"op":"set","k":"a","v":"b"}`,
	}, payloads)
}

func TestAppendRejects(t *testing.T) {
	k := mustOpenKV(t, t.TempDir(), Options{})
	defer k.log.Close()
	for _, rec := range []any{struct{}{}, []int{1}, "x", 3, map[string]int{}} {
		require.ErrorIs(t, k.log.Append(rec), testErrs.Invalid, "%#v", rec)
	}
	require.ErrorIs(t, k.log.Append(kvRecord{Op: "set", K: strings.Repeat("x", MaxRecordSize)}), testErrs.Invalid)
	require.Equal(t, uint64(0), k.log.Stats().Seq)
	require.NoError(t, k.set("a", "b"))
	require.Equal(t, uint64(1), k.log.Stats().Seq)
}

func TestOpenRejects(t *testing.T) {
	_, err := openKV(t, "", Options{})
	require.ErrorIs(t, err, testErrs.Invalid)
	file := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	_, err = openKV(t, file, Options{})
	require.ErrorIs(t, err, testErrs.Invalid)
	require.ErrorContains(t, err, "not a directory")

	// A directory that does not exist yet is created.
	k := mustOpenKV(t, filepath.Join(t.TempDir(), "a", "b"), Options{})
	require.NoError(t, k.log.Close())
}

func TestLockedInProcess(t *testing.T) {
	dir := t.TempDir()
	k := mustOpenKV(t, dir, Options{})
	_, err := openKV(t, dir, Options{})
	require.ErrorIs(t, err, testErrs.Locked)
	require.ErrorContains(t, err, "in this process")
	// The same directory through another name.
	_, err = openKV(t, filepath.Join(dir, "."), Options{})
	require.ErrorIs(t, err, testErrs.Locked)
	require.NoError(t, k.log.Close())
	k = mustOpenKV(t, dir, Options{})
	require.NoError(t, k.log.Close())
}

// TestLockChild is run by TestLockedAcrossProcesses in a child process.
func TestLockChild(t *testing.T) {
	dir := os.Getenv("KGMEM_WAL_LOCK_DIR")
	if dir == "" {
		t.Skip("run by TestLockedAcrossProcesses")
	}
	_, err := openKV(t, dir, Options{})
	if err == nil {
		fmt.Println("RESULT opened")
		return
	}
	fmt.Printf("RESULT %v locked=%v\n", err, errors.Is(err, testErrs.Locked))
}

func TestLockedAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	dir := t.TempDir()
	k := mustOpenKV(t, dir, Options{})
	require.NoError(t, k.set("a", "b"))
	child := func() string {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLockChild$", "-test.v")
		// Under -race the child would wait a second before exiting, for
		// goroutines to report races; it leaves none running.
		cmd.Env = append(os.Environ(), "KGMEM_WAL_LOCK_DIR="+dir, "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		for _, line := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(line, "RESULT ") {
				return line
			}
		}
		t.Fatalf("no result in %s", out)
		return ""
	}
	require.Contains(t, child(), "held by another process")
	require.Contains(t, child(), "locked=true")
	// No file in the directory carries the lock: deleting them all (as
	// a careless user might) leaves it held.
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		require.NoError(t, os.Remove(filepath.Join(dir, e.Name())))
	}
	require.Contains(t, child(), "held by another process")
	require.NoError(t, k.log.Close())
	require.Equal(t, "RESULT opened", child())
}

// frames returns the offsets of the journal's frames, header first.
func frames(t testing.TB, path string) []int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var offs []int64
	for off := 0; off < len(b); {
		require.True(t, frameAt(b[off:]), "frame at %d", off)
		offs = append(offs, int64(off))
		n := int(b[off]) | int(b[off+1])<<8 | int(b[off+2])<<16 | int(b[off+3])<<24
		off += frameHeader + n
	}
	return offs
}

// copyDir copies the regular files of src into a new directory.
func copyDir(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	require.NoError(t, err)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dst, e.Name()), b, 0o600))
	}
	return dst
}

func TestTornTailAtEveryByte(t *testing.T) {
	src := t.TempDir()
	k := mustOpenKV(t, src, Options{})
	before := map[string]string{}
	fill(t, k, before, 0, 3, "v")
	require.NoError(t, k.set("last", strings.Repeat("z", 40)))
	require.NoError(t, k.log.Close())
	jpath := filepath.Join(src, "kv.journal")
	offs := frames(t, jpath)
	full, err := os.ReadFile(jpath)
	require.NoError(t, err)
	lastOff := offs[len(offs)-1]
	for cut := lastOff; cut < int64(len(full)); cut++ {
		for _, strict := range []bool{false, true} {
			dir := copyDir(t, src)
			require.NoError(t, os.Truncate(filepath.Join(dir, "kv.journal"), cut))
			k, err := openKV(t, dir, Options{Strict: strict})
			require.NoError(t, err, "cut at %d", cut)
			require.Equal(t, before, k.snapshot(), "cut at %d", cut)
			rec := k.log.Recovery()
			if cut > lastOff {
				require.Equal(t, lastOff, rec.TornOffset)
				require.Equal(t, cut-lastOff, rec.TornBytes)
			} else {
				require.Zero(t, rec.TornBytes)
			}
			require.Zero(t, rec.DamagedBytes)
			// Writing after recovery continues the seq without a gap.
			require.NoError(t, k.set("after", "x"))
			require.NoError(t, k.log.Close())
			k = mustOpenKV(t, dir, Options{})
			require.Equal(t, "x", k.snapshot()["after"])
			require.NoError(t, k.log.Close())
		}
	}
}

func TestZeroTailIsTorn(t *testing.T) {
	dir := t.TempDir()
	k := mustOpenKV(t, dir, Options{})
	want := map[string]string{}
	fill(t, k, want, 0, 2, "v")
	require.NoError(t, k.log.Close())
	jpath := filepath.Join(dir, "kv.journal")
	fi, err := os.Stat(jpath)
	require.NoError(t, err)
	f, err := os.OpenFile(jpath, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.Write(make([]byte, 4096))
	require.NoError(t, err)
	require.NoError(t, f.Close())
	k = mustOpenKV(t, dir, Options{Strict: true})
	require.Equal(t, want, k.snapshot())
	require.Equal(t, fi.Size(), k.log.Recovery().TornOffset)
	require.Equal(t, int64(4096), k.log.Recovery().TornBytes)
	require.NoError(t, k.log.Close())
}

func TestDamagedFinalRecord(t *testing.T) {
	src := t.TempDir()
	k := mustOpenKV(t, src, Options{})
	before := map[string]string{}
	fill(t, k, before, 0, 3, "v")
	require.NoError(t, k.set("last", "value"))
	require.NoError(t, k.log.Close())
	jpath := filepath.Join(src, "kv.journal")
	offs := frames(t, jpath)
	full, err := os.ReadFile(jpath)
	require.NoError(t, err)
	lastOff := offs[len(offs)-1]
	// Flip each byte of the last record's CRC and payload in turn: the
	// frame stays whole, so it is damage, not a torn write.
	for i := lastOff + 4; i < int64(len(full)); i++ {
		damaged := bytes.Clone(full)
		damaged[i] ^= 0x40
		dir := copyDir(t, src)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "kv.journal"), damaged, 0o600))

		_, err := openKV(t, dir, Options{Strict: true})
		require.ErrorIs(t, err, testErrs.Corrupt, "byte %d", i)
		require.ErrorContains(t, err, "damaged final record")
		onDisk, rerr := os.ReadFile(filepath.Join(dir, "kv.journal"))
		require.NoError(t, rerr)
		require.Equal(t, damaged, onDisk, "strict recovery changed the journal")

		k, err := openKV(t, dir, Options{})
		require.NoError(t, err, "byte %d", i)
		require.Equal(t, before, k.snapshot())
		rec := k.log.Recovery()
		require.Equal(t, lastOff, rec.DamagedOffset)
		require.Equal(t, int64(len(full))-lastOff, rec.DamagedBytes)
		require.Zero(t, rec.TornBytes)
		kept, rerr := os.ReadFile(rec.DamagedFile)
		require.NoError(t, rerr)
		require.Equal(t, damaged[lastOff:], kept)
		require.Equal(t, filepath.Join(dir, fmt.Sprintf("kv.journal.damaged-%d", lastOff)), rec.DamagedFile)
		require.NoError(t, k.log.Close())
		if i > lastOff+6 {
			continue
		}
		// Damage found again (say the journal was restored) is kept in a
		// file of its own.
		require.NoError(t, os.WriteFile(filepath.Join(dir, "kv.journal"), damaged, 0o600))
		k, err = openKV(t, dir, Options{})
		require.NoError(t, err)
		require.Equal(t, rec.DamagedFile+"-1", k.log.Recovery().DamagedFile)
		require.NoError(t, k.log.Close())
	}
}

func TestDamageBeforeValidRecordIsCorruption(t *testing.T) {
	dir := t.TempDir()
	k := mustOpenKV(t, dir, Options{})
	fill(t, k, map[string]string{}, 0, 4, "v")
	require.NoError(t, k.log.Close())
	jpath := filepath.Join(dir, "kv.journal")
	offs := frames(t, jpath)
	b, err := os.ReadFile(jpath)
	require.NoError(t, err)
	b[offs[2]+frameHeader+3] ^= 1
	require.NoError(t, os.WriteFile(jpath, b, 0o600))
	_, err = openKV(t, dir, Options{})
	require.ErrorIs(t, err, testErrs.Corrupt)
	require.ErrorContains(t, err, fmt.Sprintf("offset %d: damaged record followed by a valid one at offset %d", offs[2], offs[3]))
	after, err := os.ReadFile(jpath)
	require.NoError(t, err)
	require.Equal(t, b, after)
}

func TestFilesThatDoNotFit(t *testing.T) {
	src := t.TempDir()
	k := mustOpenKV(t, src, Options{})
	fill(t, k, map[string]string{}, 0, 3, "v")
	require.NoError(t, k.log.Compact())
	old, err := os.ReadFile(filepath.Join(src, "kv.snapshot"))
	require.NoError(t, err)
	fill(t, k, map[string]string{}, 3, 3, "v")
	require.NoError(t, k.log.Compact())
	fill(t, k, map[string]string{}, 6, 1, "v")
	require.NoError(t, k.log.Close())

	tests := []struct {
		name   string
		mangle func(dir string)
		want   string
	}{
		{"snapshot deleted", func(dir string) { os.Remove(filepath.Join(dir, "kv.snapshot")) },
			"continues the snapshot with seq 6, and snapshot " + "SNAP is missing"},
		{"snapshot older", func(dir string) { os.WriteFile(filepath.Join(dir, "kv.snapshot"), old, 0o600) },
			"continues the snapshot with seq 6, and snapshot SNAP holds only seq 3"},
		{"journal deleted", func(dir string) { os.Remove(filepath.Join(dir, "kv.journal")) },
			"missing, though snapshot SNAP exists"},
		{"journal emptied", func(dir string) { os.Truncate(filepath.Join(dir, "kv.journal"), 0) },
			"no valid header frame (0 bytes)"},
		{"journal of another kind", func(dir string) {
			k := mustOpenKV(t, filepath.Join(dir, "other"), Options{Kind: "other"})
			k.log.Close()
			b, _ := os.ReadFile(filepath.Join(dir, "other", "kv.journal"))
			os.WriteFile(filepath.Join(dir, "kv.journal"), b, 0o600)
		}, `header: a "other" journal, want "kv"`},
		{"snapshot unreadable", func(dir string) { os.WriteFile(filepath.Join(dir, "kv.snapshot"), []byte("{"), 0o600) },
			"snapshot SNAP: unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyDir(t, src)
			tt.mangle(dir)
			_, err := openKV(t, dir, Options{})
			require.ErrorIs(t, err, testErrs.Corrupt)
			require.ErrorContains(t, err, strings.ReplaceAll(tt.want, "SNAP", filepath.Join(dir, "kv.snapshot")))
		})
	}
}

func TestGapIsCorruption(t *testing.T) {
	dir := t.TempDir()
	k := mustOpenKV(t, dir, Options{})
	fill(t, k, map[string]string{}, 0, 3, "v")
	require.NoError(t, k.log.Close())
	jpath := filepath.Join(dir, "kv.journal")
	offs := frames(t, jpath)
	b, err := os.ReadFile(jpath)
	require.NoError(t, err)
	// Cut record 2 out of the middle.
	b = append(b[:offs[2]:offs[2]], b[offs[3]:]...)
	require.NoError(t, os.WriteFile(jpath, b, 0o600))
	_, err = openKV(t, dir, Options{})
	require.ErrorIs(t, err, testErrs.Corrupt)
	require.ErrorContains(t, err, "record seq 3 follows seq 1")
}

func TestCompactCrashPoints(t *testing.T) {
	steps := []string{"snapshot-written", "journal-written", "snapshot-renamed", "journal-renamed"}
	dir := t.TempDir()
	type point struct {
		dir  string
		want map[string]string
	}
	points := map[string]point{}
	want := map[string]string{}
	var k *kv
	k = mustOpenKV(t, dir, Options{OnStep: func(s string) {
		if s == "snapshot-written" {
			// Compaction holds no lock while the snapshot is written:
			// writes go on, and must survive in the new journal.
			fill(t, k, want, 100, 3, "during")
		}
		points[s] = point{copyDir(t, dir), maps.Clone(want)}
	}})
	fill(t, k, want, 0, 5, "a")
	require.NoError(t, k.log.Compact())
	require.NoError(t, k.log.Close())
	for _, step := range steps {
		t.Run(step, func(t *testing.T) {
			p, ok := points[step]
			require.True(t, ok)
			// The files as a crash at this step leaves them open to the
			// state of that moment, and take more writes without a gap.
			k2 := mustOpenKV(t, p.dir, Options{})
			require.Equal(t, p.want, k2.snapshot())
			rec := k2.log.Recovery()
			switch step {
			case "snapshot-written", "journal-written":
				require.Zero(t, rec.SnapshotSeq, "the old snapshot (none) is still in place")
				require.Positive(t, rec.TempFiles)
			case "snapshot-renamed":
				require.Equal(t, uint64(5), rec.SnapshotSeq)
				require.Equal(t, 5, rec.Skipped, "the old journal's records are skipped, not applied again")
			case "journal-renamed":
				require.Equal(t, uint64(5), rec.SnapshotSeq)
				require.Zero(t, rec.Skipped)
				require.Equal(t, 3, rec.Replayed, "the writes made during the compaction")
			}
			fill(t, k2, p.want, 5, 3, "b")
			require.NoError(t, k2.log.Close())
			k2 = mustOpenKV(t, p.dir, Options{})
			require.Equal(t, p.want, k2.snapshot())
			require.Equal(t, uint64(11), k2.log.Stats().Seq)
			require.NoError(t, k2.log.Close())
		})
	}
}

// TestAppendFailure makes the journal unwritable: the write fails with
// Errors.Journal and is not applied, later writes are refused, and a
// Compact starts a sound journal and lifts the refusal, as reopening does.
func TestAppendFailure(t *testing.T) {
	for _, recoverBy := range []string{"compact", "reopen"} {
		t.Run(recoverBy, func(t *testing.T) {
			dir := t.TempDir()
			k := mustOpenKV(t, dir, Options{CompactAt: -1})
			want := map[string]string{}
			fill(t, k, want, 0, 2, "a")
			ro, err := os.Open(filepath.Join(dir, "kv.journal"))
			require.NoError(t, err)
			k.log.mu.Lock()
			rw := k.log.f
			k.log.f = ro
			k.log.mu.Unlock()
			defer rw.Close()

			err = k.set("x", "y")
			require.ErrorIs(t, err, testErrs.Journal)
			require.ErrorContains(t, err, filepath.Join(dir, "kv.journal"))
			require.Equal(t, want, k.snapshot(), "the failed write was applied")
			err = k.set("z", "w")
			require.ErrorIs(t, err, testErrs.Journal, "a write after a failure")
			require.ErrorContains(t, err, "refused")
			require.ErrorIs(t, k.log.Stats().Failed, testErrs.Journal)

			switch recoverBy {
			case "compact":
				require.NoError(t, k.log.Compact())
				require.NoError(t, k.log.Stats().Failed)
				fill(t, k, want, 10, 1, "c")
				require.NoError(t, k.log.Close())
			case "reopen":
				require.ErrorIs(t, k.log.Close(), testErrs.Journal, "Close reports the failure")
			}
			k = mustOpenKV(t, dir, Options{})
			require.Equal(t, want, k.snapshot())
			fill(t, k, want, 20, 1, "d")
			require.NoError(t, k.log.Close())
		})
	}
}

func TestInterruptedCompactionWithShortJournal(t *testing.T) {
	// The snapshot of a compaction is in place, the journal is the old
	// one, and (power lost under SyncNone) it lacks records the snapshot
	// holds. Open must finish the compaction so that later records follow
	// the snapshot's seq.
	dir := t.TempDir()
	var saved string
	k := mustOpenKV(t, dir, Options{OnStep: func(s string) {
		if s == "snapshot-renamed" {
			saved = copyDir(t, dir)
		}
	}})
	want := map[string]string{}
	fill(t, k, want, 0, 2, "a")
	jpath := filepath.Join(dir, "kv.journal")
	short := frames(t, jpath)[2] // header and the first record
	fill(t, k, want, 2, 2, "a")
	require.NoError(t, k.log.Compact())
	require.NoError(t, k.log.Close())
	require.NoError(t, os.Truncate(filepath.Join(saved, "kv.journal"), short))

	k = mustOpenKV(t, saved, Options{})
	require.Equal(t, want, k.snapshot())
	fill(t, k, want, 4, 2, "b")
	require.NoError(t, k.log.Close())
	k = mustOpenKV(t, saved, Options{})
	require.Equal(t, want, k.snapshot())
	require.NoError(t, k.log.Close())
}

func TestRebase(t *testing.T) {
	dir := t.TempDir()
	k := mustOpenKV(t, dir, Options{})
	fill(t, k, map[string]string{}, 0, 5, "a")
	fresh := map[string]string{"only": "this"}
	k.mu.Lock()
	err := k.log.Rebase(func(seq uint64) Snapshot { return &kvSnapshot{Seq: seq, M: fresh} })
	if err == nil {
		k.m = maps.Clone(fresh)
	}
	k.mu.Unlock()
	require.NoError(t, err)
	require.Equal(t, uint64(6), k.log.Stats().Seq)
	require.NoError(t, k.set("after", "x"))
	require.NoError(t, k.log.Close())
	k = mustOpenKV(t, dir, Options{})
	require.Equal(t, map[string]string{"only": "this", "after": "x"}, k.snapshot())
	require.Equal(t, uint64(7), k.log.Stats().Seq)
	require.NoError(t, k.log.Close())
}

func TestAutoCompact(t *testing.T) {
	dir := t.TempDir()
	k := mustOpenKV(t, dir, Options{CompactAt: 2048, Sync: SyncNone})
	want := map[string]string{}
	fill(t, k, want, 0, 400, strings.Repeat("v", 20))
	require.NoError(t, k.log.Close())
	require.Positive(t, k.log.Stats().Compactions)
	k = mustOpenKV(t, dir, Options{})
	require.Equal(t, want, k.snapshot())
	require.NoError(t, k.log.Close())
}

func TestSyncPolicies(t *testing.T) {
	for _, p := range []SyncPolicy{SyncAlways, SyncInterval, SyncNone} {
		dir := t.TempDir()
		k := mustOpenKV(t, dir, Options{Sync: p, Interval: 1})
		fill(t, k, map[string]string{}, 0, 10, "v")
		syncs := k.log.Stats().Syncs
		switch p {
		case SyncAlways:
			require.Equal(t, int64(10), syncs)
		case SyncNone:
			require.Zero(t, syncs)
		}
		require.NoError(t, k.log.Close())
	}
}

func TestSplitRecord(t *testing.T) {
	tests := []struct {
		in   string
		seq  uint64
		body string
		ok   bool
	}{
		{`{"seq":7,"op":"x"}`, 7, `{"op":"x"}`, true},
		{`{"seq":18446744073709551615,"a":1}`, 1<<64 - 1, `{"a":1}`, true},
		{`{"seq":18446744073709551616,"a":1}`, 0, "", false},
		{`{"seq":07,"a":1}`, 0, "", false},
		{`{"seq":-1,"a":1}`, 0, "", false},
		{`{"seq":,"a":1}`, 0, "", false},
		{`{"op":"x","seq":7}`, 0, "", false},
		{`{"seq":7}`, 0, "", false},
	}
	for _, tt := range tests {
		seq, body, ok := splitRecord([]byte(tt.in))
		require.Equal(t, tt.ok, ok, tt.in)
		if ok {
			require.Equal(t, tt.seq, seq, tt.in)
			require.Equal(t, tt.body, string(body), tt.in)
		}
	}
}

// refusingLoad is a kv whose Load refuses every snapshot with err.
type refusingLoad struct {
	*kv
	err error
}

func (r refusingLoad) Load(io.Reader) (uint64, error) { return 0, r.err }

// TestSnapshotLoadRefused checks the error of a snapshot that Load refuses:
// it names the snapshot, wraps Corrupt once, and no file changes.
func TestSnapshotLoadRefused(t *testing.T) {
	dir := t.TempDir()
	k := mustOpenKV(t, dir, Options{Sync: SyncNone})
	require.NoError(t, k.set("a", "1"))
	require.NoError(t, k.log.Compact())
	require.NoError(t, k.log.Close())
	files := map[string][]byte{}
	for _, name := range []string{"kv.snapshot", "kv.journal"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		files[name] = b
	}
	spath := filepath.Join(dir, "kv.snapshot")
	for _, c := range []struct {
		err  error
		want string
	}{
		{errors.New("kgmem: snapshot line 3: bad line"), "kgmem: snapshot " + spath + ": snapshot line 3: bad line (corrupt)"},
		{fmt.Errorf("kgmem: snapshot line 4: fails its checksum: %w", testErrs.Corrupt), "kgmem: snapshot " + spath + ": snapshot line 4: fails its checksum: corrupt"},
	} {
		o := Options{Name: "kv", Kind: "kv", Errors: testErrs}
		_, err := Open(dir, refusingLoad{&kv{m: map[string]string{}}, c.err}, o)
		require.ErrorIs(t, err, testErrs.Corrupt)
		require.ErrorIs(t, err, c.err)
		require.EqualError(t, err, c.want)
		for name, b := range files {
			after, rerr := os.ReadFile(filepath.Join(dir, name))
			require.NoError(t, rerr)
			require.Equal(t, b, after, "%s changed", name)
		}
	}
}
