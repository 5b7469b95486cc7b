package kgmem_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/kgmemtest"
)

// TestErrorMessages collects errors of every kind kgmem returns — bad
// input to each method, missing objects, wrapped errors of other layers
// (a batch item, an ingest, a backend's neighbourhood), huge values — and
// checks each message against kgmem's rules: one "kgmem: " prefix, the
// sentinel's text once and last, and a length that does not grow with the
// input.
func TestErrorMessages(t *testing.T) {
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph()
	for _, id := range []string{"a", "b"} {
		if err := g.AddEntity(ctx, kgmem.Entity{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	store := kgmem.NewInMemoryKnowledgeStore()
	huge := strings.Repeat("x", 100_000)
	closed := kgmem.NewInMemoryGraph()
	if err := closed.Close(); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name     string
		err      error
		sentinel error
		mentions string // a part the message must contain
	}{
		{"AddEntity empty ID", g.AddEntity(ctx, kgmem.Entity{}), kgmem.ErrInvalidArgument, "empty entity ID"},
		{"AddEntity blank ID", g.AddEntity(ctx, kgmem.Entity{ID: " \t"}), kgmem.ErrInvalidArgument, `" \t"`},
		{"AddEntity huge ID", g.AddEntity(ctx, kgmem.Entity{ID: huge}), kgmem.ErrInvalidArgument, "(100000 bytes)"},
		{"AddEntity huge name", g.AddEntity(ctx, kgmem.Entity{ID: "a", Name: huge}), kgmem.ErrInvalidArgument, "MaxNameBytes"},
		{"AddEntity invalid tag", g.AddEntity(ctx, kgmem.Entity{ID: "a", Tags: []string{"\xff"}}), kgmem.ErrInvalidArgument, "tag"},
		{"GetEntity blank", third(g.GetEntity(ctx, "  ")), kgmem.ErrInvalidArgument, "white space"},
		{"RemoveEntity missing", g.RemoveEntity(ctx, huge[:1000]), kgmem.ErrNotFound, "remove entity"},
		{"AddRelation missing target", g.AddRelation(ctx, kgmem.Relation{SourceID: "a", TargetID: huge[:900], Type: "t"}), kgmem.ErrNotFound, "target entity"},
		{"AddRelation weight", g.AddRelation(ctx, kgmem.Relation{SourceID: "a", TargetID: "b", Type: "t", Weight: 2}), kgmem.ErrInvalidArgument, "weight 2"},
		{"AddRelation huge type", g.AddRelation(ctx, kgmem.Relation{SourceID: "a", TargetID: "b", Type: huge}), kgmem.ErrInvalidArgument, "MaxTypeBytes"},
		{"RemoveRelation missing", g.RemoveRelation(ctx, "a", "b", "never"), kgmem.ErrNotFound, `"never"`},
		{"GetRelation blank type", third(g.GetRelation(ctx, "a", "b", " ")), kgmem.ErrInvalidArgument, "relation type"},
		{"GetRelated missing", second(g.GetRelated(ctx, "nobody", kgmem.TraverseOptions{})), kgmem.ErrNotFound, `"nobody"`},
		{"GetRelated depth", second(g.GetRelated(ctx, "a", kgmem.TraverseOptions{Depth: -1})), kgmem.ErrInvalidArgument, "-1"},
		{"GetRelated blank filter", second(g.GetRelated(ctx, "a", kgmem.TraverseOptions{RelationTypes: []string{" "}})), kgmem.ErrInvalidArgument, "type filter"},
		{"FindPaths no path", secondPath(g.FindPaths(ctx, "a", "b", kgmem.PathOptions{})), kgmem.ErrNoPath, "within 4 hops"},
		{"FindPaths empty source", secondPath(g.FindPaths(ctx, "", "b", kgmem.PathOptions{})), kgmem.ErrInvalidArgument, "find paths"},
		{"FindPaths missing target", secondPath(g.FindPaths(ctx, "a", "c", kgmem.PathOptions{})), kgmem.ErrNotFound, `"c"`},
		{"SetEntityTags invalid tag", second(g.SetEntityTags(ctx, "a", []string{huge})), kgmem.ErrInvalidArgument, "MaxTagBytes"},
		{"SetEntityTags missing", second(g.SetEntityTags(ctx, "nobody", nil)), kgmem.ErrNotFound, "set tags"},
		{"AddBatch entity", g.AddBatch(ctx, []kgmem.Entity{{ID: "ok"}, {ID: ""}}, nil), kgmem.ErrInvalidArgument, "batch entity 1"},
		{"AddBatch relation", g.AddBatch(ctx, nil, []kgmem.Relation{{SourceID: "a", TargetID: "b", Type: "t", Weight: -1}}), kgmem.ErrInvalidArgument, "batch relation 0"},
		{"AddBatch missing", g.AddBatch(ctx, nil, []kgmem.Relation{{SourceID: "a", TargetID: "zz", Type: "t"}}), kgmem.ErrNotFound, "batch relation 0"},
		{"FindByName blank", second(g.FindByName(ctx, "\u3000")), kgmem.ErrInvalidArgument, "find by name"},
		{"LinkEntities invalid", second(g.LinkEntities(ctx, "\xff"+huge)), kgmem.ErrInvalidArgument, "link entities"},
		{"FindTags invalid", second(g.FindTags(ctx, "\xff")), kgmem.ErrInvalidArgument, "tag prefix"},
		{"RemoveSource blank", second(g.RemoveSource(ctx, " ")), kgmem.ErrInvalidArgument, "source ID"},
		{"closed graph", third(closed.GetEntity(ctx, "a")), kgmem.ErrClosed, "graph"},
		{"store Put empty", store.Put(ctx, kgmem.KnowledgePage{}), kgmem.ErrInvalidArgument, "page ID"},
		{"store Put blank", store.Put(ctx, kgmem.KnowledgePage{ID: "\t"}), kgmem.ErrInvalidArgument, "page ID"},
		{"store Put invalid", store.Put(ctx, kgmem.KnowledgePage{ID: huge, Content: "\xff"}), kgmem.ErrInvalidArgument, "content"},
		{"store Delete missing", store.Delete(ctx, huge), kgmem.ErrNotFound, "(100000 bytes)"},
		{"store Search invalid", second(store.Search(ctx, "\xff", 3)), kgmem.ErrInvalidArgument, "query"},
		{"Ingest source", second(kgmem.Ingest(ctx, g, kgmem.Extraction{}, kgmem.WithSource(""))), kgmem.ErrInvalidArgument, "kgmem: ingest: empty source ID"},
		{"Ingest strict", second(kgmem.Ingest(ctx, g, kgmem.Extraction{Relations: []kgmem.ExtractedRelation{{Source: "a"}}}, kgmem.WithStrict())), kgmem.ErrInvalidArgument, "strict"},
		{"Ingest backend", second(kgmem.Ingest(ctx, &failingWrites{KnowledgeGraph: g}, kgmem.Extraction{Entities: []kgmem.ExtractedEntity{{Name: "New"}}})), errBackend, "kgmem: ingest: backend down"},
		{"Ingest backend sentinel", second(kgmem.Ingest(ctx, notFoundWrites{g}, kgmem.Extraction{Entities: []kgmem.ExtractedEntity{{Name: "New"}}})), kgmem.ErrNotFound, "kgmem: ingest: entity"},
		{"ParseExtraction", second(kgmem.ParseExtraction([]byte(`{"relations":[{"source":"a","target":"b","type":"t","weight":true}]}`))), kgmem.ErrInvalidArgument, "relations[0].weight"},
		{"TraverseRelated backend", second(kgmem.TraverseRelated(ctx, lostNeighborhood{}, "a", kgmem.TraverseOptions{})), errLost, `kgmem: related to entity "a": fetch 1 entities: connection lost`},
		{"TraverseRelated missing", second(kgmem.TraverseRelated(ctx, missingNeighborhood{}, "a", kgmem.TraverseOptions{})), kgmem.ErrNotFound, `kgmem: related to entity "a": not found`},
		{"TraversePaths missing", secondPath(kgmem.TraversePaths(ctx, missingNeighborhood{}, "a", "b", kgmem.PathOptions{}, 0)), kgmem.ErrNotFound, "source entity"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !errors.Is(tt.err, tt.sentinel) {
				t.Fatalf("error %v does not wrap %v", tt.err, tt.sentinel)
			}
			kgmemtest.CheckErrorMessage(t, tt.err, tt.sentinel)
			msg := tt.err.Error()
			if !strings.HasPrefix(msg, "kgmem: ") {
				t.Errorf("%q does not start with %q", msg, "kgmem: ")
			}
			if !strings.Contains(msg, tt.mentions) {
				t.Errorf("%q does not mention %q", msg, tt.mentions)
			}
			if len(msg) > 600 {
				t.Errorf("a %d-byte message: %.200q…", len(msg), msg)
			}
		})
	}
	// The sentinels' own text carries no prefix.
	for _, s := range []error{kgmem.ErrNotFound, kgmem.ErrInvalidArgument, kgmem.ErrNoPath, kgmem.ErrClosed} {
		if strings.Contains(s.Error(), "kgmem") {
			t.Errorf("sentinel %q names the package", s)
		}
	}
}

func second[T any](_ T, err error) error { return err }

func third[T, U any](_ T, _ U, err error) error { return err }

func secondPath(_ kgmem.PathResult, err error) error { return err }

// notFoundWrites is a backend whose writes fail with its own ErrNotFound
// error, prefixed as a backend's errors are.
type notFoundWrites struct{ kgmem.KnowledgeGraph }

func (notFoundWrites) AddEntity(_ context.Context, e kgmem.Entity) error {
	return fmt.Errorf("pgraph: entity %q: %w", e.ID, kgmem.ErrNotFound)
}

var errLost = errors.New("connection lost")

// lostNeighborhood is a backend whose reads fail with an error of its own.
type lostNeighborhood struct{}

func (lostNeighborhood) Neighbors(context.Context, []string, kgmem.Direction, []string, func(int, kgmem.Relation)) error {
	return errLost
}

func (lostNeighborhood) Entities(context.Context, []string) ([]kgmem.Entity, error) {
	return nil, fmt.Errorf("pgraph: fetch 1 entities: %w", errLost)
}

// missingNeighborhood is a backend that has no entities, and says so with
// its own prefix.
type missingNeighborhood struct{ lostNeighborhood }

func (missingNeighborhood) Entities(_ context.Context, ids []string) ([]kgmem.Entity, error) {
	return nil, fmt.Errorf("pgraph: entity %q: %w", ids[0], kgmem.ErrNotFound)
}
