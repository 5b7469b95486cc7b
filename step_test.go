package kgmem

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGraphCommitWrite pins the graph's write step: journal runs after
// resolve and before the change, a failed journal or resolve changes
// nothing, and a write that changes nothing journals nothing.
func TestGraphCommitWrite(t *testing.T) {
	ctx := context.Background()
	errDisk := errors.New("disk full")
	tests := []struct {
		name       string
		m          *mutation
		journalErr error
		wantErr    error
		journaled  bool
		entities   int // entities after the write
		relations  int // relations after the write
	}{
		{"add entity", &mutation{Op: opAddEntity, Entities: []Entity{{ID: "c"}}}, nil, nil, true, 3, 1},
		{"journal fails", &mutation{Op: opAddEntity, Entities: []Entity{{ID: "c"}}}, errDisk, errDisk, true, 2, 1},
		{"resolve fails", &mutation{Op: opAddRelation, Relations: []Relation{{SourceID: "a", TargetID: "zz", Type: "knows"}}}, nil, ErrNotFound, false, 2, 1},
		{"changes nothing", &mutation{Op: opRemoveSource, ID: "nobody-cites-this"}, nil, nil, false, 2, 1},
		{"remove relation", &mutation{Op: opRemoveRelation, Key: &RelationKey{SourceID: "a", TargetID: "b", Type: "knows"}}, nil, nil, true, 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewInMemoryGraph()
			require.NoError(t, g.AddBatch(ctx, []Entity{{ID: "a"}, {ID: "b"}}, []Relation{{SourceID: "a", TargetID: "b", Type: "knows"}}))
			require.NoError(t, g.check(tt.m))
			journaled := false
			err := g.commitWrite(tt.m, func() error {
				journaled = true
				require.False(t, g.mu.TryRLock(), "journal runs under the graph's write lock")
				return tt.journalErr
			})
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
			} else {
				require.NoError(t, err)
			}
			require.Equal(t, tt.journaled, journaled)
			st := g.Stats()
			require.Equal(t, tt.entities, st.Entities)
			require.Equal(t, tt.relations, st.Relations)
		})
	}

	t.Run("closed", func(t *testing.T) {
		g := NewInMemoryGraph()
		require.NoError(t, g.Close())
		m := &mutation{Op: opAddEntity, Entities: []Entity{{ID: "c"}}}
		require.NoError(t, g.check(m))
		require.ErrorIs(t, g.commitWrite(m, func() error {
			t.Error("a closed graph journals nothing")
			return nil
		}), ErrClosed)
	})
}

// TestStoreCommitWrite pins the store's write step as the graph's.
func TestStoreCommitWrite(t *testing.T) {
	ctx := context.Background()
	errDisk := errors.New("disk full")
	tests := []struct {
		name       string
		m          *pageMutation
		journalErr error
		wantErr    error
		journaled  bool
		pages      int
	}{
		{"put", &pageMutation{Op: opPutPage, Page: &KnowledgePage{ID: "q", Content: "two"}}, nil, nil, true, 2},
		{"journal fails", &pageMutation{Op: opPutPage, Page: &KnowledgePage{ID: "q", Content: "two"}}, errDisk, errDisk, true, 1},
		{"resolve fails", &pageMutation{Op: opDeletePage, ID: "missing"}, nil, ErrNotFound, false, 1},
		{"delete", &pageMutation{Op: opDeletePage, ID: "p"}, nil, nil, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewInMemoryKnowledgeStore()
			require.NoError(t, s.Put(ctx, KnowledgePage{ID: "p", Content: "one"}))
			require.NoError(t, s.check(tt.m))
			journaled := false
			err := s.commitWrite(tt.m, func() error {
				journaled = true
				require.False(t, s.mu.TryRLock(), "journal runs under the store's write lock")
				return tt.journalErr
			})
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
			} else {
				require.NoError(t, err)
			}
			require.Equal(t, tt.journaled, journaled)
			require.Equal(t, tt.pages, s.Len())
		})
	}
}

// TestMemoryWriteBoth pins the composition of the two steps: the record
// runs once, under both write locks, after both parts resolved; when it
// fails, or either part rejects the write, neither part changes.
func TestMemoryWriteBoth(t *testing.T) {
	errDisk := errors.New("disk full")
	page := func(id string) *pageMutation {
		return &pageMutation{Op: opPutPage, Page: &KnowledgePage{ID: id, Content: "Alice met Bob."}}
	}
	tests := []struct {
		name      string
		gm        *mutation
		pm        *pageMutation
		recordErr error
		wantErr   error
		records   int
		entities  int
		pages     int
	}{
		{"both", &mutation{Op: opAddBatch, Entities: []Entity{{ID: "alice"}}}, page("p"), nil, nil, 1, 1, 1},
		{"record fails", &mutation{Op: opAddBatch, Entities: []Entity{{ID: "alice"}}}, page("p"), errDisk, errDisk, 1, 0, 0},
		{"graph check fails", &mutation{Op: opAddBatch, Entities: []Entity{{ID: ""}}}, page("p"), nil, ErrInvalidArgument, 0, 0, 0},
		{"graph resolve fails", &mutation{Op: opAddBatch, Relations: []Relation{{SourceID: "alice", TargetID: "bob", Type: "met"}}}, page("p"), nil, ErrNotFound, 0, 0, 0},
		{"store check fails", &mutation{Op: opAddBatch, Entities: []Entity{{ID: "alice"}}}, &pageMutation{Op: opPutPage}, nil, ErrInvalidArgument, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := OpenMemory(t.TempDir())
			require.NoError(t, err)
			defer m.Close()
			records := 0
			err = m.writeBoth(tt.gm, tt.pm, func() error {
				records++
				require.False(t, m.graph.mu.TryRLock(), "the record runs under the graph's write lock")
				require.False(t, m.store.mu.TryRLock(), "the record runs under the store's write lock")
				return tt.recordErr
			})
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
			} else {
				require.NoError(t, err)
			}
			require.Equal(t, tt.records, records)
			require.Equal(t, tt.entities, m.graph.Stats().Entities)
			require.Equal(t, tt.pages, m.store.Len())
			require.Equal(t, uint64(0), m.JournalStats().Seq, "writeBoth journals through its record only")
		})
	}
}
