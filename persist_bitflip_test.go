package kgmem_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/kgmemtest"
	"github.com/stretchr/testify/require"
)

// flipSample is how many single-bit flips TestSnapshotBitFlips and
// LoadFile's half of TestStreamBitFlips make in each snapshot: 200 under
// KGMEM_LONG, 64 by default, 32 under -short.
func flipSample() int { return kgmem.Scaled(200, 64, 32) }

// flipStride is the spacing of the bytes, past the header and before the
// checksum line, whose bit TestStreamBitFlips flips: every byte under
// KGMEM_LONG, every 3rd by default, every 7th under -short. The bytes on
// either side of every newline are flipped whatever the stride.
func flipStride() int { return kgmem.Scaled(1, 3, 7) }

// flipPositions returns n byte offsets spread evenly over a file of size
// bytes, its first and last byte included, each with the bit to flip.
func flipPositions(size, n int) [][2]int {
	var ps [][2]int
	for k := range n {
		ps = append(ps, [2]int{k * (size - 1) / (n - 1), k % 8})
	}
	return ps
}

// readDir returns every file of dir and its bytes.
func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	files := make(map[string][]byte, len(entries))
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		files[e.Name()] = b
	}
	return files
}

// compactedFiles writes k's writes, compacts and closes, and returns the
// directory's files: the snapshot and a journal holding only its header.
func compactedFiles(t *testing.T, k durableKind) map[string][]byte {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	o, err := k.openDir(dir, kgmem.WithSync(kgmem.SyncNone), kgmem.WithCompactThreshold(-1))
	require.NoError(t, err)
	for _, w := range k.writes {
		require.NoError(t, w(ctx, o))
	}
	require.NoError(t, o.compact())
	require.NoError(t, o.close())
	return readDir(t, dir)
}

// TestSnapshotBitFlips flips one bit at a time at places spread evenly over
// the snapshot of each durable kind (its header, its entity and page
// lines, the vectors, the checksum line) and opens the directory: every
// Open fails with an error wrapping ErrCorrupt that names the snapshot,
// and leaves every file of the directory as it was.
func TestSnapshotBitFlips(t *testing.T) {
	t.Parallel()
	for _, k := range durableKinds() {
		t.Run(k.title(), func(t *testing.T) {
			files := compactedFiles(t, k)
			name := k.name + ".snapshot"
			snap := files[name]
			require.NotEmpty(t, snap)
			vectors := bytes.Index(snap, []byte(`"vector":"`))
			hitVector := false
			opened := 0
			for _, p := range flipPositions(len(snap), flipSample()) {
				i, bit := p[0], p[1]
				if vectors >= 0 && i > vectors && snap[i] != '"' && bytes.Contains(snap[bytes.LastIndexByte(snap[:i], '\n')+1:i], []byte(`"vector":"`)) {
					hitVector = true
				}
				dir := t.TempDir()
				damaged := bytes.Clone(snap)
				damaged[i] ^= 1 << bit
				for n, b := range files {
					if n == name {
						b = damaged
					}
					require.NoError(t, os.WriteFile(filepath.Join(dir, n), b, 0o600))
				}
				before := readDir(t, dir)
				o, err := k.openDir(dir, kgmem.WithSync(kgmem.SyncNone))
				if err == nil {
					opened++
					t.Errorf("flip of bit %d at offset %d: opened without error", bit, i)
					require.NoError(t, o.close())
					continue
				}
				require.ErrorIs(t, err, kgmem.ErrCorrupt, "flip of bit %d at offset %d", bit, i)
				require.ErrorContains(t, err, filepath.Join(dir, name), "flip of bit %d at offset %d", bit, i)
				require.Equal(t, before, readDir(t, dir), "flip of bit %d at offset %d: the files changed", bit, i)
			}
			if vectors >= 0 {
				require.True(t, hitVector, "no flip landed in a vector")
			}
			t.Logf("%s: %d of %d damaged snapshots opened", k.title(), opened, flipSample())
		})
	}
}

// TestStreamBitFlips flips bits, one at a time, of the snapshots WriteTo
// writes of a graph and of stores with and without vectors (every bit of
// the header and the checksum line, and one bit of every flipStride-th
// other byte and of the bytes around each newline): every ReadFrom fails
// with an error wrapping ErrCorrupt (and ErrInvalidArgument, as every
// snapshot ReadFrom refuses does). At flipSample of the flips LoadFile
// fails the same way, and the graph or store and the file stay as they
// were.
func TestStreamBitFlips(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, k := range durableKinds() {
		if k.name == "memory" {
			continue // a memory's snapshot is only ever a file of its directory
		}
		t.Run(k.title(), func(t *testing.T) {
			src, err := k.openDir(t.TempDir(), kgmem.WithSync(kgmem.SyncNone))
			require.NoError(t, err)
			defer src.close()
			for _, w := range k.writes {
				require.NoError(t, w(ctx, src))
			}
			var opts []kgmem.StoreOption
			if k.variant != "" {
				opts = append(opts, kgmem.WithEmbedder(kgmemtest.HashEmbedder{Dimensions: 8}))
			}
			// fresh returns an InMemoryGraph or InMemoryKnowledgeStore
			// holding one item, and its state.
			fresh := func() (io.ReaderFrom, func() string) {
				if src.graph != nil {
					g := kgmem.NewInMemoryGraph()
					require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: "before"}))
					return g, func() string { return snapshotOfGraph(g) }
				}
				s := kgmem.NewInMemoryKnowledgeStore(opts...)
				require.NoError(t, s.Put(ctx, kgmem.KnowledgePage{ID: "before", Content: "kept"}))
				return s, func() string { return snapshotOfStore(s) }
			}
			var snap []byte
			if src.graph != nil {
				snap = []byte(snapshotOfGraph(src.graph))
			} else {
				snap = []byte(snapshotOfStore(src.store))
			}
			r, state := fresh()
			_, err = r.ReadFrom(bytes.NewReader(snap))
			require.NoError(t, err, "the undamaged snapshot reads")
			require.Equal(t, string(snap), state())
			read, flips := 0, 0
			r, state = fresh()
			before := state()
			damaged := bytes.Clone(snap)
			header := bytes.IndexByte(snap, '\n')
			checksumLine := bytes.LastIndexByte(snap[:len(snap)-1], '\n')
			stride := flipStride()
			for i := range snap {
				inBody := i > header && i <= checksumLine
				nearNewline := snap[i] == '\n' || (i > 0 && snap[i-1] == '\n') || (i+1 < len(snap) && snap[i+1] == '\n')
				if inBody && !nearNewline && i%stride != 0 {
					continue
				}
				for bit := range 8 {
					if bit != i%8 && inBody {
						continue // every bit of the header and the checksum line, one of each other byte flipped
					}
					flips++
					damaged[i] ^= 1 << bit
					_, err := r.ReadFrom(bytes.NewReader(damaged))
					damaged[i] ^= 1 << bit
					if err == nil {
						read++
						t.Errorf("flip of bit %d at offset %d: read without error", bit, i)
						continue
					}
					require.ErrorIs(t, err, kgmem.ErrCorrupt, "flip of bit %d at offset %d", bit, i)
					require.ErrorIs(t, err, kgmem.ErrInvalidArgument, "flip of bit %d at offset %d", bit, i)
				}
			}
			t.Logf("%s: %d of %d damaged snapshots read", k.title(), read, flips)
			path := filepath.Join(t.TempDir(), "snapshot.kg")
			for _, p := range flipPositions(len(snap), flipSample()) {
				i, bit := p[0], p[1]
				damaged := bytes.Clone(snap)
				damaged[i] ^= 1 << bit
				require.NoError(t, os.WriteFile(path, damaged, 0o600))
				err = kgmem.LoadFile(path, r)
				require.ErrorIs(t, err, kgmem.ErrCorrupt, "flip of bit %d at offset %d", bit, i)
				require.ErrorContains(t, err, path)
				require.Equal(t, before, state(), "flip of bit %d at offset %d: the contents changed", bit, i)
				after, rerr := os.ReadFile(path)
				require.NoError(t, rerr)
				require.Equal(t, damaged, after)
			}
		})
	}
}
