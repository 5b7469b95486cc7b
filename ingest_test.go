package kgmem_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/stretchr/testify/require"
)

func mustIngest(t *testing.T, g kgmem.KnowledgeGraph, x kgmem.Extraction, opts ...kgmem.IngestOption) kgmem.IngestReport {
	t.Helper()
	rep, err := kgmem.Ingest(context.Background(), g, x, opts...)
	require.NoError(t, err)
	return rep
}

type graphState struct {
	Entities  []kgmem.Entity
	Relations []kgmem.Relation
}

func stateOf(t *testing.T, g *kgmem.InMemoryGraph) graphState {
	t.Helper()
	ctx := context.Background()
	es, err := g.Entities(ctx)
	require.NoError(t, err)
	rs, err := g.Relations(ctx)
	require.NoError(t, err)
	return graphState{es, rs}
}

func mustEntity(t *testing.T, g kgmem.KnowledgeGraph, id string) kgmem.Entity {
	t.Helper()
	e, ok, err := g.GetEntity(context.Background(), id)
	require.NoError(t, err)
	require.True(t, ok, "no entity %q", id)
	return e
}

func mustRelation(t *testing.T, g *kgmem.InMemoryGraph, src, dst, typ string) kgmem.Relation {
	t.Helper()
	r, ok, err := g.GetRelation(context.Background(), src, dst, typ)
	require.NoError(t, err)
	require.True(t, ok, "no relation %s -[%s]-> %s", src, typ, dst)
	return r
}

func TestDeriveEntityID(t *testing.T) {
	tests := []struct{ typ, name, want string }{
		{"person", "张三", "person:张三"},
		{"Person", "  Zhang   San ", "person:zhang_san"},
		{"PERSON", "ZHANG SAN", "person:zhang_san"},
		{"person", "zhang\tsan\n", "person:zhang_san"},
		{"person", "Zhang\u3000San", "person:zhang_san"}, // ideographic space
		{"person", "Ｚｈａｎｇ Ｓａｎ", "person:zhang_san"},      // full-width forms
		{"person", "Zhang\u00a0San", "person:zhang_san"}, // no-break space
		{"", "Project Apollo", "entity:project_apollo"},  // default type
		{"  ", "Apollo", "entity:apollo"},                // blank type
		{"Project Type", "API Gateway", "project_type:api_gateway"},
		{"person", "Müller", "person:müller"},
		{"person", "MÜLLER", "person:müller"},
		{"person", "Σωκράτης", "person:σωκράτησ"}, // final sigma folds with σ
		{"city", "İstanbul", "city:istanbul"},
		{"project", "项目A", "project:项目a"},
		{"org", "Star Wars: Episode IV", "org:star_wars:_episode_iv"},
		{"person", "  ", ""},
		{"person", "", ""},
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, kgmem.DeriveEntityID(tc.typ, tc.name), "DeriveEntityID(%q, %q)", tc.typ, tc.name)
	}
	// Stable: the same inputs, the same ID.
	require.Equal(t, kgmem.DeriveEntityID("Person", "Zhang San"), kgmem.DeriveEntityID("Person", "Zhang San"))
}

func TestIngestDerivesIDsAndNormalisesTypes(t *testing.T) {
	g := kgmem.NewInMemoryGraph()
	rep := mustIngest(t, g, kgmem.Extraction{
		Entities: []kgmem.ExtractedEntity{
			{Name: " 张三 ", Type: "Person"},
			{Name: "Project  Apollo"},
			{ID: "team:infra", Name: "基础架构部", Type: "Team"},
			{ID: "only-an-id"},
		},
		Relations: []kgmem.ExtractedRelation{
			{Source: "张三", Target: "Project Apollo", Type: "Works On"},
		},
	})
	require.Equal(t, []string{"person:张三", "entity:project_apollo", "team:infra", "only-an-id"}, rep.EntityIDs)
	require.Equal(t, 4, rep.EntitiesCreated)
	e := mustEntity(t, g, "person:张三")
	require.Equal(t, "张三", e.Name)
	require.Equal(t, "person", e.Type)
	require.Equal(t, "entity", mustEntity(t, g, "entity:project_apollo").Type)
	require.Equal(t, "only-an-id", mustEntity(t, g, "only-an-id").Name, "the name defaults to the ID")
	mustRelation(t, g, "person:张三", "entity:project_apollo", "works_on")
}

func TestIngestResolvesWithinTheExtraction(t *testing.T) {
	tests := []struct {
		name     string
		entities []kgmem.ExtractedEntity
		wantIDs  []string
	}{
		{
			name: "the second spelling is an alias of the first",
			entities: []kgmem.ExtractedEntity{
				{Name: "张三", Type: "person", Aliases: []string{"Zhang San"}},
				{Name: "Zhang San", Type: "person"},
			},
			wantIDs: []string{"person:张三", "person:张三"},
		},
		{
			name: "the first spelling is an alias of the second",
			entities: []kgmem.ExtractedEntity{
				{Name: "Zhang San", Type: "person"},
				{Name: "张三", Type: "person", Aliases: []string{"zhang  san"}},
			},
			wantIDs: []string{"person:zhang_san", "person:zhang_san"},
		},
		{
			name: "case and white space do not matter",
			entities: []kgmem.ExtractedEntity{
				{Name: "Alice Chen", Type: "Person"},
				{Name: "alice   CHEN", Type: "person"},
			},
			wantIDs: []string{"person:alice_chen", "person:alice_chen"},
		},
		{
			name: "two aliases in common",
			entities: []kgmem.ExtractedEntity{
				{Name: "Robert Smith", Type: "person", Aliases: []string{"Bob"}},
				{Name: "R. Smith", Type: "person", Aliases: []string{"bob"}},
			},
			wantIDs: []string{"person:robert_smith", "person:robert_smith"},
		},
		{
			name: "the same name under another type is another entity",
			entities: []kgmem.ExtractedEntity{
				{Name: "Apollo", Type: "project"},
				{Name: "Apollo", Type: "person"},
			},
			wantIDs: []string{"project:apollo", "person:apollo"},
		},
		{
			name: "the same explicit ID",
			entities: []kgmem.ExtractedEntity{
				{ID: "p1", Name: "张三", Type: "person"},
				{ID: "p1", Name: "Zhang San", Type: "person"},
			},
			wantIDs: []string{"p1", "p1"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := kgmem.NewInMemoryGraph()
			rep := mustIngest(t, g, kgmem.Extraction{Entities: tc.entities})
			require.Equal(t, tc.wantIDs, rep.EntityIDs)
			require.Equal(t, 1, rep.EntitiesDeduplicated+boolInt(tc.wantIDs[0] != tc.wantIDs[1]))
			require.Equal(t, rep.EntitiesCreated, g.Stats().Entities)
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestIngestResolvesAgainstTheGraph(t *testing.T) {
	ctx := context.Background()
	newGraph := func(t *testing.T) *kgmem.InMemoryGraph {
		g := kgmem.NewInMemoryGraph()
		require.NoError(t, g.AddBatch(ctx, []kgmem.Entity{
			{ID: "person:zhangsan", Name: "张三", Type: "person", Aliases: []string{"Zhang San"}},
			{ID: "project:apollo", Name: "Project Apollo", Type: "project", Aliases: []string{"Apollo"}},
			{ID: "person:apollo", Name: "Apollo", Type: "person"},
			{ID: "team:infra", Name: "Infra", Type: "team"},
		}, nil))
		return g
	}
	tests := []struct {
		name   string
		entity kgmem.ExtractedEntity
		want   string
	}{
		{"by ID", kgmem.ExtractedEntity{ID: "person:zhangsan", Name: "someone else"}, "person:zhangsan"},
		{"by alias", kgmem.ExtractedEntity{Name: "zhang san", Type: "Person"}, "person:zhangsan"},
		{"by name", kgmem.ExtractedEntity{Name: "张三", Type: "person"}, "person:zhangsan"},
		{"by an alias of the extraction", kgmem.ExtractedEntity{Name: "Z. San", Type: "person", Aliases: []string{"张三"}}, "person:zhangsan"},
		{"an unknown ID falls back to the name", kgmem.ExtractedEntity{ID: "e1", Name: "Infra", Type: "team"}, "team:infra"},
		{"within the type only", kgmem.ExtractedEntity{Name: "Apollo", Type: "project"}, "project:apollo"},
		{"a name beats an alias", kgmem.ExtractedEntity{Name: "Apollo", Type: "person"}, "person:apollo"},
		{"a new entity", kgmem.ExtractedEntity{Name: "Apollo", Type: "rocket"}, "rocket:apollo"},
		{"a new entity under its explicit ID", kgmem.ExtractedEntity{ID: "e7", Name: "Nobody"}, "e7"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := newGraph(t)
			rep := mustIngest(t, g, kgmem.Extraction{Entities: []kgmem.ExtractedEntity{tc.entity}})
			require.Equal(t, []string{tc.want}, rep.EntityIDs)
		})
	}

	t.Run("relations refer by ID, extraction ID, name, alias or type:name", func(t *testing.T) {
		g := newGraph(t)
		rep := mustIngest(t, g, kgmem.Extraction{
			Entities: []kgmem.ExtractedEntity{{ID: "e1", Name: "Infra", Type: "team"}},
			Relations: []kgmem.ExtractedRelation{
				{Source: "person:zhangsan", Target: "e1", Type: "member_of"},              // ID, extraction ID
				{Source: "Zhang San", Target: "project:Project Apollo", Type: "works_on"}, // alias, type:name
				{Source: "张三", Target: "Apollo", TargetType: "project", Type: "likes"},    // name, typed name
				{Source: "infra", Target: "Project Apollo", Type: "owns"},                 // names of any type
			},
		})
		require.Empty(t, rep.Skipped)
		mustRelation(t, g, "person:zhangsan", "team:infra", "member_of")
		mustRelation(t, g, "person:zhangsan", "project:apollo", "works_on")
		mustRelation(t, g, "person:zhangsan", "project:apollo", "likes")
		mustRelation(t, g, "team:infra", "project:apollo", "owns")
	})

	t.Run("an endpoint several entities bear is ambiguous", func(t *testing.T) {
		g := newGraph(t)
		g2 := newGraph(t)
		require.NoError(t, g2.AddEntity(ctx, kgmem.Entity{ID: "ship:apollo", Name: "Apollo", Type: "ship"}))
		for _, g := range []*kgmem.InMemoryGraph{g, g2} {
			rep := mustIngest(t, g, kgmem.Extraction{Relations: []kgmem.ExtractedRelation{
				{Source: "Apollo", Target: "Infra", Type: "part_of"},
			}})
			if g == g2 {
				require.Equal(t, []kgmem.SkippedItem{{Kind: kgmem.SkippedRelation, Index: 0, Ref: "Apollo",
					Reason: `source "Apollo" is ambiguous: matches entities "person:apollo", "ship:apollo"`}}, rep.Skipped)
				continue
			}
			// One entity is named Apollo, another has it as an alias:
			// the name wins.
			require.Empty(t, rep.Skipped)
			mustRelation(t, g, "person:apollo", "team:infra", "part_of")
		}
	})

	t.Run("an entity the extraction lists wins over the graph", func(t *testing.T) {
		g := newGraph(t)
		rep := mustIngest(t, g, kgmem.Extraction{
			Entities:  []kgmem.ExtractedEntity{{Name: "Apollo", Type: "ship"}},
			Relations: []kgmem.ExtractedRelation{{Source: "Apollo", Target: "Infra", Type: "part_of"}},
		})
		require.Empty(t, rep.Skipped)
		mustRelation(t, g, "ship:apollo", "team:infra", "part_of")
	})

	t.Run("an entity matching two entities equally is skipped", func(t *testing.T) {
		g := newGraph(t)
		require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: "person:zhangsan2", Name: "张三", Type: "person"}))
		rep := mustIngest(t, g, kgmem.Extraction{Entities: []kgmem.ExtractedEntity{{Name: "张三", Type: "person"}}})
		require.Equal(t, []kgmem.SkippedItem{{Kind: kgmem.SkippedEntity, Index: 0, Ref: "张三",
			Reason: `ambiguous: matches entities "person:zhangsan", "person:zhangsan2"`}}, rep.Skipped)
		require.Equal(t, []string{""}, rep.EntityIDs)
	})
}

// The graph's linker prefers entities spelled exactly as the text; Ingest
// must still find an entity of the right type spelled differently.
func TestIngestFindsEveryBearerOfAName(t *testing.T) {
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph()
	require.NoError(t, g.AddBatch(ctx, []kgmem.Entity{
		{ID: "org:zhang-san", Name: "Zhang San", Type: "org"},
		{ID: "person:zs", Name: "zhang san", Type: "person"},
		{ID: "org:ibm", Name: "IBM", Type: "org"},
		{ID: "person:big-blue", Name: "ibm", Type: "person"},
		{ID: "org:putin", Name: "Путин", Type: "org"},
		{ID: "person:putin", Name: "ПУТИН", Type: "person"},
	}, nil))
	rep := mustIngest(t, g, kgmem.Extraction{Entities: []kgmem.ExtractedEntity{
		{Name: "Zhang San", Type: "person"},
		{Name: "IBM", Type: "person"},
		{Name: "Путин", Type: "person"},
	}})
	require.Equal(t, []string{"person:zs", "person:big-blue", "person:putin"}, rep.EntityIDs)
	require.Equal(t, 0, rep.EntitiesMerged, "the names differ only in case: nothing to merge")
	require.Equal(t, 3, rep.EntitiesUnchanged)
}

func TestIngestLocalIDs(t *testing.T) {
	g := kgmem.NewInMemoryGraph()
	first := kgmem.Extraction{
		Entities: []kgmem.ExtractedEntity{{ID: "e1", Name: "张三", Type: "person"}, {ID: "e2", Name: "项目A", Type: "project"}},
		Relations: []kgmem.ExtractedRelation{
			{Source: "e1", Target: "e2", Type: "works_on"},
		},
	}
	rep := mustIngest(t, g, first, kgmem.WithLocalIDs())
	require.Equal(t, []string{"person:张三", "project:项目a"}, rep.EntityIDs)
	// The next response numbers its entities from e1 again.
	second := kgmem.Extraction{
		Entities:  []kgmem.ExtractedEntity{{ID: "e1", Name: "李四", Type: "person"}, {ID: "e2", Name: "项目A", Type: "project"}},
		Relations: []kgmem.ExtractedRelation{{Source: "e1", Target: "e2", Type: "works_on"}},
	}
	rep = mustIngest(t, g, second, kgmem.WithLocalIDs())
	require.Equal(t, []string{"person:李四", "project:项目a"}, rep.EntityIDs)
	require.Equal(t, 1, rep.EntitiesCreated)
	require.Equal(t, 0, rep.EntitiesMerged)
	require.Equal(t, 1, rep.EntitiesUnchanged, "项目A is mentioned again, with nothing new")
	mustRelation(t, g, "person:张三", "project:项目a", "works_on")
	mustRelation(t, g, "person:李四", "project:项目a", "works_on")
	require.Equal(t, 3, g.Stats().Entities)
}

func TestIngestMergeRules(t *testing.T) {
	ctx := context.Background()
	existing := kgmem.Entity{
		ID: "person:zhangsan", Name: "张三", Type: "person",
		Description: "后端工程师",
		Aliases:     []string{"Zhang San", "San"},
		Tags:        []string{"backend", "go"},
		Properties:  map[string]string{"level": "P6", "team": "infra"},
		SourceIDs:   []string{"hr-1", "weekly-1"},
	}
	tests := []struct {
		name  string
		input kgmem.ExtractedEntity
		check func(t *testing.T, e kgmem.Entity)
	}{
		{
			name:  "name kept, a different incoming name becomes an alias",
			input: kgmem.ExtractedEntity{ID: "person:zhangsan", Name: "Zhang Sanfeng"},
			check: func(t *testing.T, e kgmem.Entity) {
				require.Equal(t, "张三", e.Name)
				require.Equal(t, []string{"Zhang San", "San", "Zhang Sanfeng"}, e.Aliases)
			},
		},
		{
			name:  "aliases: existing first, then new, without duplicates or the name",
			input: kgmem.ExtractedEntity{Name: "zhang san", Type: "person", Aliases: []string{"san", "老张", "张三", " 老张 ", "ZS"}},
			check: func(t *testing.T, e kgmem.Entity) {
				require.Equal(t, []string{"Zhang San", "San", "老张", "ZS"}, e.Aliases)
			},
		},
		{
			name:  "tags: union, normalised",
			input: kgmem.ExtractedEntity{Name: "张三", Type: "person", Tags: []string{"Go", " Payments ", "backend"}},
			check: func(t *testing.T, e kgmem.Entity) {
				require.Equal(t, []string{"backend", "go", "payments"}, e.Tags)
			},
		},
		{
			name:  "properties overwritten key by key",
			input: kgmem.ExtractedEntity{Name: "张三", Type: "person", Properties: map[string]string{"level": "P7", "city": "杭州"}},
			check: func(t *testing.T, e kgmem.Entity) {
				require.Equal(t, map[string]string{"level": "P7", "team": "infra", "city": "杭州"}, e.Properties)
			},
		},
		{
			name:  "the longer description wins",
			input: kgmem.ExtractedEntity{Name: "张三", Type: "person", Description: "后端工程师，负责支付模块"},
			check: func(t *testing.T, e kgmem.Entity) {
				require.Equal(t, "后端工程师，负责支付模块", e.Description)
			},
		},
		{
			name:  "a shorter description, by runes, loses",
			input: kgmem.ExtractedEntity{Name: "张三", Type: "person", Description: "engineer"}, // 8 runes, 15 bytes before
			check: func(t *testing.T, e kgmem.Entity) { require.Equal(t, "engineer", e.Description) },
		},
		{
			name:  "an equally long description keeps the existing one",
			input: kgmem.ExtractedEntity{Name: "张三", Type: "person", Description: "前端工程师"},
			check: func(t *testing.T, e kgmem.Entity) { require.Equal(t, "后端工程师", e.Description) },
		},
		{
			name:  "source IDs: existing first, then new",
			input: kgmem.ExtractedEntity{Name: "张三", Type: "person"},
			check: func(t *testing.T, e kgmem.Entity) {
				require.Equal(t, []string{"hr-1", "weekly-1", "weekly-2"}, e.SourceIDs)
			},
		},
		{
			name:  "the type is kept",
			input: kgmem.ExtractedEntity{ID: "person:zhangsan", Type: "employee"},
			check: func(t *testing.T, e kgmem.Entity) { require.Equal(t, "person", e.Type) },
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := kgmem.NewInMemoryGraph()
			require.NoError(t, g.AddEntity(ctx, existing))
			rep := mustIngest(t, g, kgmem.Extraction{Entities: []kgmem.ExtractedEntity{tc.input}}, kgmem.WithSource("weekly-2"))
			require.Equal(t, 1, rep.EntitiesMerged)
			require.Equal(t, 1, g.Stats().Entities)
			tc.check(t, mustEntity(t, g, "person:zhangsan"))
		})
	}
	// The "shorter description" case above is wrong on purpose if runes are
	// not counted: pin the rule directly.
	t.Run("runes not bytes", func(t *testing.T) {
		g := kgmem.NewInMemoryGraph()
		require.NoError(t, g.AddEntity(ctx, existing)) // "后端工程师": 5 runes, 15 bytes
		mustIngest(t, g, kgmem.Extraction{Entities: []kgmem.ExtractedEntity{{Name: "张三", Type: "person", Description: "engineer!"}}})
		require.Equal(t, "engineer!", mustEntity(t, g, "person:zhangsan").Description)
		mustIngest(t, g, kgmem.Extraction{Entities: []kgmem.ExtractedEntity{{Name: "张三", Type: "person", Description: "后端工程师 P6"}}})
		require.Equal(t, "engineer!", mustEntity(t, g, "person:zhangsan").Description)
	})
	t.Run("an empty name is filled", func(t *testing.T) {
		g := kgmem.NewInMemoryGraph()
		require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: "x"}))
		mustIngest(t, g, kgmem.Extraction{Entities: []kgmem.ExtractedEntity{{ID: "x", Name: "Xavier"}}})
		e := mustEntity(t, g, "x")
		require.Equal(t, "Xavier", e.Name)
		require.Equal(t, "entity", e.Type)
		require.Empty(t, e.Aliases)
	})
}

func TestIngestRelationMerge(t *testing.T) {
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph()
	require.NoError(t, g.AddBatch(ctx, []kgmem.Entity{
		{ID: "a", Name: "A"}, {ID: "b", Name: "B"},
	}, []kgmem.Relation{
		{SourceID: "a", TargetID: "b", Type: "knows", Weight: 0.4,
			Properties: map[string]string{"since": "2020", "via": "work"}, SourceIDs: []string{"p1"}},
	}))

	// No weight stated: the stored one stays; properties and sources merge.
	rep := mustIngest(t, g, kgmem.Extraction{Relations: []kgmem.ExtractedRelation{
		{Source: "a", Target: "b", Type: "knows", Properties: map[string]string{"via": "school"}, Description: "old friends"},
	}}, kgmem.WithSource("p2"))
	require.Equal(t, 1, rep.RelationsUpdated)
	r := mustRelation(t, g, "a", "b", "knows")
	require.Equal(t, 0.4, r.Weight)
	require.Equal(t, map[string]string{"since": "2020", "via": "school", "description": "old friends"}, r.Properties)
	require.Equal(t, []string{"p1", "p2"}, r.SourceIDs)

	// A stated weight replaces it; the same key twice in one extraction
	// merges, the later weight winning.
	rep = mustIngest(t, g, kgmem.Extraction{Relations: []kgmem.ExtractedRelation{
		{Source: "A", Target: "B", Type: "Knows", Weight: weight(0.7)},
		{Source: "a", Target: "b", Type: "knows", Weight: weight(0.9), Properties: map[string]string{"since": "2019"}},
		{Source: "a", Target: "b", Type: "knows"},
	}}, kgmem.WithSource("p1"))
	require.Equal(t, 1, rep.RelationsUpdated)
	require.Equal(t, 2, rep.RelationsDeduplicated)
	r = mustRelation(t, g, "a", "b", "knows")
	require.Equal(t, 0.9, r.Weight)
	require.Equal(t, "2019", r.Properties["since"])
	require.Equal(t, []string{"p1", "p2"}, r.SourceIDs)
	require.Equal(t, 1, g.Stats().Relations)
}

func TestIngestReplace(t *testing.T) {
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph()
	require.NoError(t, g.AddBatch(ctx, []kgmem.Entity{
		{ID: "person:zhangsan", Name: "张三", Type: "person", Aliases: []string{"Zhang San"}, Tags: []string{"go"},
			Description: "long description that would win a merge", Properties: map[string]string{"level": "P6"}, SourceIDs: []string{"old"}},
		{ID: "project:a", Name: "项目A", Type: "project"},
	}, []kgmem.Relation{
		{SourceID: "person:zhangsan", TargetID: "project:a", Type: "works_on", Weight: 0.5,
			Properties: map[string]string{"role": "dev"}, SourceIDs: []string{"old"}},
	}))
	rep := mustIngest(t, g, kgmem.Extraction{
		Entities: []kgmem.ExtractedEntity{
			{Name: "Zhang San", Type: "person", Description: "short", Tags: []string{"rust"}},
			{Name: "张三", Type: "person", Aliases: []string{"老张"}}, // the same entity, merged with the line above
		},
		Relations: []kgmem.ExtractedRelation{{Source: "张三", Target: "项目A", Type: "works_on"}},
	}, kgmem.WithReplace(), kgmem.WithSource("new"))
	require.Equal(t, 1, rep.EntitiesMerged)
	require.Equal(t, 1, rep.EntitiesDeduplicated)
	require.Equal(t, 1, rep.RelationsUpdated)
	e := mustEntity(t, g, "person:zhangsan")
	require.Equal(t, kgmem.Entity{
		ID: "person:zhangsan", Name: "Zhang San", Type: "person", Description: "short",
		Aliases: []string{"张三", "老张"}, Tags: []string{"rust"}, SourceIDs: []string{"new"},
	}, e)
	r := mustRelation(t, g, "person:zhangsan", "project:a", "works_on")
	require.Equal(t, kgmem.Relation{SourceID: "person:zhangsan", TargetID: "project:a", Type: "works_on",
		Weight: 1, SourceIDs: []string{"new"}}, r)
	// The project was only referred to: it is not rewritten.
	require.Equal(t, kgmem.Entity{ID: "project:a", Name: "项目A", Type: "project"}, mustEntity(t, g, "project:a"))
}

func TestIngestPlaceholders(t *testing.T) {
	x := kgmem.Extraction{
		Entities: []kgmem.ExtractedEntity{{Name: "张三", Type: "person"}},
		Relations: []kgmem.ExtractedRelation{
			{Source: "张三", Target: "李四", Type: "knows"},
			{Source: "张三", Target: "person:王五", Type: "knows"},
			{Source: "张三", Target: "Raft", TargetType: "Concept", Type: "uses"},
			{Source: "李四", Target: "张三", Type: "knows"}, // the placeholder made above
			{Source: "赵六", Target: "赵六", Type: "is"},    // both ends one placeholder: a self-loop
		},
	}
	t.Run("without: dangling relations are skipped and reported", func(t *testing.T) {
		g := kgmem.NewInMemoryGraph()
		rep := mustIngest(t, g, x)
		require.Equal(t, 0, rep.PlaceholdersCreated)
		require.Equal(t, 5, rep.RelationsSkipped)
		require.Equal(t, []kgmem.SkippedItem{
			{Kind: "relation", Index: 0, Ref: "李四", Reason: `target "李四" names no entity`},
			{Kind: "relation", Index: 1, Ref: "person:王五", Reason: `target "person:王五" names no entity`},
			{Kind: "relation", Index: 2, Ref: "Raft", Reason: `target "Raft" names no entity`},
			{Kind: "relation", Index: 3, Ref: "李四", Reason: `source "李四" names no entity`},
			{Kind: "relation", Index: 4, Ref: "赵六", Reason: `source "赵六" names no entity`},
		}, rep.Skipped)
		require.Equal(t, 1, g.Stats().Entities)
	})
	t.Run("with: placeholders are created once and marked", func(t *testing.T) {
		g := kgmem.NewInMemoryGraph()
		rep := mustIngest(t, g, x, kgmem.WithPlaceholders(), kgmem.WithSource("p1"))
		require.Equal(t, 4, rep.PlaceholdersCreated)
		require.Equal(t, 1, rep.EntitiesCreated)
		require.Equal(t, 5, rep.RelationsCreated)
		require.Empty(t, rep.Skipped)
		mustRelation(t, g, "entity:赵六", "entity:赵六", "is")
		require.Equal(t, kgmem.Entity{ID: "entity:李四", Name: "李四", Type: "entity",
			Properties: map[string]string{kgmem.PlaceholderProperty: "true"}, SourceIDs: []string{"p1"}},
			mustEntity(t, g, "entity:李四"))
		require.Equal(t, "王五", mustEntity(t, g, "person:王五").Name)
		require.Equal(t, "person", mustEntity(t, g, "person:王五").Type)
		require.Equal(t, "concept", mustEntity(t, g, "concept:raft").Type)
		mustRelation(t, g, "entity:李四", "person:张三", "knows")
		require.Equal(t, 5, g.Stats().Entities)

		// The entity shows up later: it resolves to its placeholder, which
		// takes its type and loses the mark.
		rep = mustIngest(t, g, kgmem.Extraction{Entities: []kgmem.ExtractedEntity{
			{Name: "李四", Type: "person", Description: "张三的同事"},
			{Name: "王五", Type: "person"},
		}})
		require.Equal(t, []string{"entity:李四", "person:王五"}, rep.EntityIDs)
		e := mustEntity(t, g, "entity:李四")
		require.Equal(t, "person", e.Type)
		require.Equal(t, "张三的同事", e.Description)
		require.NotContains(t, e.Properties, kgmem.PlaceholderProperty)
		require.NotContains(t, mustEntity(t, g, "person:王五").Properties, kgmem.PlaceholderProperty)
		require.Equal(t, 5, g.Stats().Entities)
	})
}

func TestIngestWeights(t *testing.T) {
	nan := math.NaN()
	x := kgmem.Extraction{
		Entities: []kgmem.ExtractedEntity{{Name: "A"}, {Name: "B"}},
		Relations: []kgmem.ExtractedRelation{
			{Source: "A", Target: "B", Type: "in_range", Weight: weight(0.3)},
			{Source: "A", Target: "B", Type: "too_high", Weight: weight(8)},
			{Source: "A", Target: "B", Type: "negative", Weight: weight(-0.5)},
			{Source: "A", Target: "B", Type: "missing"},
			{Source: "A", Target: "B", Type: "nan", Weight: &nan},
			{Source: "A", Target: "B", Type: "infinite", Weight: weight(math.Inf(1))},
		},
	}
	weights := func(g *kgmem.InMemoryGraph) map[string]float64 {
		rs, _ := g.Relations(context.Background())
		out := make(map[string]float64)
		for _, r := range rs {
			out[r.Type] = r.Weight
		}
		return out
	}
	t.Run("clamp by default", func(t *testing.T) {
		g := kgmem.NewInMemoryGraph()
		rep := mustIngest(t, g, x)
		require.Equal(t, map[string]float64{"in_range": 0.3, "too_high": 1, "missing": 1, "infinite": 1}, weights(g))
		require.Equal(t, 2, rep.WeightsClamped)
		require.Equal(t, []kgmem.SkippedItem{
			{Kind: "relation", Index: 2, Ref: "A -[negative]-> B", Reason: "weight -0.5 is outside (0,1] (leave the weight out for an unweighted relation)"},
			{Kind: "relation", Index: 4, Ref: "A -[nan]-> B", Reason: "weight is NaN"},
		}, rep.Skipped)
	})
	t.Run("reject", func(t *testing.T) {
		g := kgmem.NewInMemoryGraph()
		rep := mustIngest(t, g, x, kgmem.WithWeightPolicy(kgmem.WeightReject), kgmem.WithDefaultWeight(0.5))
		require.Equal(t, map[string]float64{"in_range": 0.3, "missing": 0.5}, weights(g))
		require.Equal(t, 0, rep.WeightsClamped)
		require.Equal(t, []kgmem.SkippedItem{
			{Kind: "relation", Index: 1, Ref: "A -[too_high]-> B", Reason: "weight 8 is outside (0,1]"},
			{Kind: "relation", Index: 2, Ref: "A -[negative]-> B", Reason: "weight -0.5 is outside (0,1] (leave the weight out for an unweighted relation)"},
			{Kind: "relation", Index: 4, Ref: "A -[nan]-> B", Reason: "weight is NaN"},
			{Kind: "relation", Index: 5, Ref: "A -[infinite]-> B", Reason: "weight +Inf is outside (0,1]"},
		}, rep.Skipped)
	})
	t.Run("a stated zero is skipped under every policy, a missing weight is 1", func(t *testing.T) {
		zero := kgmem.Extraction{
			Entities: []kgmem.ExtractedEntity{{Name: "A"}, {Name: "B"}},
			Relations: []kgmem.ExtractedRelation{
				{Source: "A", Target: "B", Type: "zero", Weight: weight(0)},
				{Source: "A", Target: "B", Type: "minus_zero", Weight: weight(math.Copysign(0, -1))},
				{Source: "A", Target: "B", Type: "unstated"},
			},
		}
		for _, p := range []kgmem.WeightPolicy{kgmem.WeightClamp, kgmem.WeightReject} {
			g := kgmem.NewInMemoryGraph()
			rep := mustIngest(t, g, zero, kgmem.WithWeightPolicy(p))
			require.Equal(t, map[string]float64{"unstated": 1}, weights(g), "%v", p)
			require.Equal(t, 2, rep.RelationsSkipped, "%v", p)
			require.Contains(t, rep.Skipped[0].Reason, "weight 0 is outside (0,1]")
		}
		for _, w := range []float64{0, -0.5, math.NaN(), 1.5} {
			_, err := kgmem.Ingest(context.Background(), kgmem.NewInMemoryGraph(), zero, kgmem.WithDefaultWeight(w))
			require.ErrorIs(t, err, kgmem.ErrInvalidArgument, "default weight %v", w)
		}
	})
	t.Run("strict fails on NaN even when clamping", func(t *testing.T) {
		g := kgmem.NewInMemoryGraph()
		_, err := kgmem.Ingest(context.Background(), g, x, kgmem.WithStrict())
		require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
		require.ErrorContains(t, err, "weight is NaN")
		require.Zero(t, g.Stats().Entities)
	})
}

func TestIngestStrict(t *testing.T) {
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph()
	require.NoError(t, g.AddBatch(ctx, []kgmem.Entity{
		{ID: "person:zhangsan", Name: "张三", Type: "person", SourceIDs: []string{"p0"}},
	}, nil))
	before := stateOf(t, g)
	bad := kgmem.Extraction{
		Entities: []kgmem.ExtractedEntity{
			{Name: "张三", Type: "person", Description: "would be merged"},
			{Name: "项目A", Type: "project"},
			{Type: "person"}, // no name
		},
		Relations: []kgmem.ExtractedRelation{
			{Source: "张三", Target: "项目A", Type: "works_on"},
			{Source: "张三", Target: "Raft", Type: "uses"},
			{Source: "张三", Target: "项目A"},
		},
	}
	rep, err := kgmem.Ingest(ctx, g, bad, kgmem.WithStrict(), kgmem.WithSource("p1"))
	require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
	require.EqualError(t, err, `kgmem: ingest: strict: nothing written, 3 problem(s): `+
		`entity 2 (""): no name or ID; `+
		`relation 1 ("Raft"): target "Raft" names no entity; `+
		`relation 2 ("张三 -[]-> 项目A"): no relation type: invalid argument`)
	require.Equal(t, 1, rep.EntitiesSkipped)
	require.Equal(t, 2, rep.RelationsSkipped)
	require.Len(t, rep.Skipped, 3)
	require.Zero(t, rep.EntitiesCreated+rep.EntitiesMerged+rep.RelationsCreated)
	require.Equal(t, before, stateOf(t, g), "a failed strict ingest writes nothing")

	// The same extraction, lenient: everything valid is written.
	rep = mustIngest(t, g, bad, kgmem.WithSource("p1"))
	require.Equal(t, 1, rep.EntitiesCreated)
	require.Equal(t, 1, rep.EntitiesMerged)
	require.Equal(t, 1, rep.RelationsCreated)
	require.Len(t, rep.Skipped, 3)
	require.Equal(t, []string{"p0", "p1"}, mustEntity(t, g, "person:zhangsan").SourceIDs)

	// A clean extraction passes strict.
	rep, err = kgmem.Ingest(ctx, g, kgmem.Extraction{
		Relations: []kgmem.ExtractedRelation{{Source: "项目A", Target: "张三", Type: "staffed_by", Weight: weight(3)}},
	}, kgmem.WithStrict())
	require.NoError(t, err)
	require.Equal(t, 1, rep.RelationsCreated)
	require.Equal(t, 1, rep.WeightsClamped, "clamping is not a problem")
}

func TestIngestIsIdempotent(t *testing.T) {
	x, err := kgmem.ParseExtraction([]byte(fencedResponse))
	require.NoError(t, err)
	x.Entities = append(x.Entities,
		kgmem.ExtractedEntity{Name: "Zhang San", Type: "person", Tags: []string{"Backend"}, Properties: map[string]string{"level": "P6"}},
		kgmem.ExtractedEntity{Name: "Alice", Type: "person", Description: "PM", Aliases: []string{"Alice Chen"}},
	)
	x.Relations = append(x.Relations,
		kgmem.ExtractedRelation{Source: "Alice", Target: "项目A", Type: "leads", Weight: weight(1.4), Properties: map[string]string{"since": "2023"}},
		kgmem.ExtractedRelation{Source: "Alice", Target: "Bob", Type: "knows"},
	)
	for _, opts := range [][]kgmem.IngestOption{
		{kgmem.WithSource("weekly-1")},
		{kgmem.WithSource("weekly-1"), kgmem.WithPlaceholders()},
		{kgmem.WithSource("weekly-1"), kgmem.WithReplace(), kgmem.WithPlaceholders()},
		{kgmem.WithLocalIDs()},
	} {
		g := kgmem.NewInMemoryGraph()
		first := mustIngest(t, g, x, opts...)
		after := stateOf(t, g)
		second := mustIngest(t, g, x, opts...)
		require.Equal(t, after, stateOf(t, g), "the second ingest changed the graph")
		require.Zero(t, second.EntitiesCreated+second.RelationsCreated+second.PlaceholdersCreated)
		require.Zero(t, second.EntitiesMerged+second.RelationsUpdated, "the report of the second ingest says nothing changed")
		require.Equal(t, first.EntitiesCreated+first.PlaceholdersCreated, second.EntitiesUnchanged+boolInt(first.PlaceholdersCreated > 0))
		require.Equal(t, first.RelationsCreated, second.RelationsUnchanged)
		require.Zero(t, first.EntitiesUnchanged+first.RelationsUnchanged)
		require.Equal(t, first.EntitiesDeduplicated, second.EntitiesDeduplicated)
		require.Equal(t, first.EntityIDs, second.EntityIDs)
	}
}

// plainGraph hides everything but the KnowledgeGraph interface, as a
// backend without AddBatch, GetRelation or LinkEntities would.
type plainGraph struct{ kgmem.KnowledgeGraph }

// failingWrites fails the n-th write (0-based) and every one after it.
type failingWrites struct {
	kgmem.KnowledgeGraph
	n, calls int
}

var errBackend = errors.New("backend down")

func (f *failingWrites) fail() error {
	defer func() { f.calls++ }()
	if f.calls >= f.n {
		return errBackend
	}
	return nil
}

func (f *failingWrites) AddEntity(ctx context.Context, e kgmem.Entity) error {
	if err := f.fail(); err != nil {
		return err
	}
	return f.KnowledgeGraph.AddEntity(ctx, e)
}

func (f *failingWrites) AddRelation(ctx context.Context, r kgmem.Relation) error {
	if err := f.fail(); err != nil {
		return err
	}
	return f.KnowledgeGraph.AddRelation(ctx, r)
}

func TestIngestOtherBackends(t *testing.T) {
	ctx := context.Background()
	seed := func() *kgmem.InMemoryGraph {
		g := kgmem.NewInMemoryGraph()
		require.NoError(t, g.AddBatch(ctx, []kgmem.Entity{
			{ID: "person:zhangsan", Name: "张三", Type: "person", Aliases: []string{"Zhang San"}},
			{ID: "org:zhangsan", Name: "zhang san", Type: "org"},
			{ID: "project:apollo", Name: "Project Apollo", Type: "project", Aliases: []string{"Apollo"}},
		}, []kgmem.Relation{
			{SourceID: "person:zhangsan", TargetID: "project:apollo", Type: "works_on", Weight: 0.5, SourceIDs: []string{"p0"}},
		}))
		return g
	}
	x := kgmem.Extraction{
		Entities: []kgmem.ExtractedEntity{
			{Name: "ZHANG SAN", Type: "person", Tags: []string{"go"}},
			{Name: "Alice", Type: "person"},
		},
		Relations: []kgmem.ExtractedRelation{
			{Source: "Zhang San", SourceType: "person", Target: "Apollo", Type: "works_on"},
			{Source: "Alice", Target: "Project Apollo", Type: "leads", Weight: weight(0.9)},
			{Source: "Alice", Target: "Bob", Type: "knows"},
		},
	}
	reference := seed()
	want := mustIngest(t, reference, x, kgmem.WithSource("p1"), kgmem.WithPlaceholders())

	t.Run("the interface alone gives the same result", func(t *testing.T) {
		g := seed()
		got := mustIngest(t, plainGraph{g}, x, kgmem.WithSource("p1"), kgmem.WithPlaceholders())
		require.Equal(t, want, got)
		require.Equal(t, stateOf(t, reference), stateOf(t, g))
		require.Equal(t, []string{"p0", "p1"}, mustRelation(t, g, "person:zhangsan", "project:apollo", "works_on").SourceIDs)
	})
	t.Run("a failing backend keeps what it wrote, and the report says so", func(t *testing.T) {
		g := seed()
		// Writes: person:zhangsan, person:alice, entity:bob, then two
		// relations (works_on gains nothing without a source and is not
		// written). Fail the fifth.
		rep, err := kgmem.Ingest(ctx, &failingWrites{KnowledgeGraph: g, n: 4}, x, kgmem.WithPlaceholders())
		require.ErrorIs(t, err, errBackend)
		require.Equal(t, 1, rep.EntitiesCreated)
		require.Equal(t, 1, rep.EntitiesMerged)
		require.Equal(t, 1, rep.PlaceholdersCreated)
		require.Equal(t, 0, rep.RelationsUpdated)
		require.Equal(t, 1, rep.RelationsUnchanged)
		require.Equal(t, 1, rep.RelationsCreated)
		require.Equal(t, 5, g.Stats().Entities)
	})
	t.Run("AddBatch failing writes nothing", func(t *testing.T) {
		g := seed()
		before := stateOf(t, g)
		cctx, cancel := context.WithCancel(ctx)
		rep, err := kgmem.Ingest(cctx, &cancelBeforeBatch{g, cancel}, x)
		require.ErrorIs(t, err, context.Canceled)
		require.Zero(t, rep.EntitiesCreated+rep.EntitiesMerged+rep.RelationsCreated+rep.RelationsUpdated)
		require.Equal(t, before, stateOf(t, g))
	})
}

// cancelBeforeBatch cancels the context just before the batch is written.
type cancelBeforeBatch struct {
	*kgmem.InMemoryGraph
	cancel func()
}

func (c *cancelBeforeBatch) AddBatch(ctx context.Context, es []kgmem.Entity, rs []kgmem.Relation) error {
	c.cancel()
	return c.InMemoryGraph.AddBatch(ctx, es, rs)
}

func TestIngestSourceOnlyOnWhatItWrites(t *testing.T) {
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph()
	require.NoError(t, g.AddEntity(ctx, kgmem.Entity{ID: "project:a", Name: "项目A", SourceIDs: []string{"p0"}}))
	mustIngest(t, g, kgmem.Extraction{
		Entities:  []kgmem.ExtractedEntity{{Name: "张三", Type: "person"}},
		Relations: []kgmem.ExtractedRelation{{Source: "张三", Target: "项目A", Type: "works_on"}},
	}, kgmem.WithSource("p1"))
	require.Equal(t, []string{"p1"}, mustEntity(t, g, "person:张三").SourceIDs)
	require.Equal(t, []string{"p1"}, mustRelation(t, g, "person:张三", "project:a", "works_on").SourceIDs)
	require.Equal(t, []string{"p0"}, mustEntity(t, g, "project:a").SourceIDs, "an entity only referred to is not touched")

	// RemoveSource forgets exactly what the page brought.
	rep, err := g.RemoveSource(ctx, "p1")
	require.NoError(t, err)
	require.Equal(t, kgmem.RemoveSourceReport{EntitiesRemoved: 1, RelationsRemoved: 1}, rep)
}

func TestIngestInvalidArguments(t *testing.T) {
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph()
	x := kgmem.Extraction{Entities: []kgmem.ExtractedEntity{{Name: "A"}}}
	tests := []struct {
		name string
		g    kgmem.KnowledgeGraph
		x    kgmem.Extraction
		opts []kgmem.IngestOption
	}{
		{"nil graph", nil, x, nil},
		{"empty source", g, x, []kgmem.IngestOption{kgmem.WithSource("")}},
		{"invalid source", g, x, []kgmem.IngestOption{kgmem.WithSource("\xff")}},
		{"default weight above 1", g, x, []kgmem.IngestOption{kgmem.WithDefaultWeight(1.5)}},
		{"default weight NaN", g, x, []kgmem.IngestOption{kgmem.WithDefaultWeight(math.NaN())}},
		{"unknown policy", g, x, []kgmem.IngestOption{kgmem.WithWeightPolicy(9)}},
		{"nil option", g, x, []kgmem.IngestOption{kgmem.WithStrict(), nil}},
		{"too many entities", g, kgmem.Extraction{Entities: make([]kgmem.ExtractedEntity, kgmem.MaxExtractedEntities+1)}, nil},
		{"too many relations", g, kgmem.Extraction{Relations: make([]kgmem.ExtractedRelation, kgmem.MaxExtractedRelations+1)}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := kgmem.Ingest(ctx, tc.g, tc.x, tc.opts...)
			require.ErrorIs(t, err, kgmem.ErrInvalidArgument)
		})
	}
	require.Zero(t, g.Stats().Entities)

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err := kgmem.Ingest(cctx, g, x)
	require.ErrorIs(t, err, context.Canceled)
	require.Zero(t, g.Stats().Entities)

	// Invalid UTF-8 in an extraction built in code is skipped, not written.
	rep := mustIngest(t, g, kgmem.Extraction{
		Entities:  []kgmem.ExtractedEntity{{Name: "ok"}, {Name: "bad\xff"}, {Name: "also ok", Aliases: []string{"\xfe"}}},
		Relations: []kgmem.ExtractedRelation{{Source: "ok", Target: "also ok", Type: "t\xff"}},
	})
	require.Equal(t, 1, rep.EntitiesCreated)
	require.Equal(t, 2, rep.EntitiesSkipped)
	require.Equal(t, 1, rep.RelationsSkipped)
	require.Equal(t, "a field is not valid UTF-8", rep.Skipped[0].Reason)
	require.Equal(t, kgmem.SkippedEntity, rep.Skipped[0].Kind)
	require.Equal(t, 1, rep.Skipped[0].Index)
}

func TestWeightPolicyString(t *testing.T) {
	require.Equal(t, "clamp", kgmem.WeightClamp.String())
	require.Equal(t, "reject", kgmem.WeightReject.String())
	require.Equal(t, "WeightPolicy(7)", kgmem.WeightPolicy(7).String())
}

// End to end: a messy model response, parsed and ingested.
func TestParseAndIngestModelResponse(t *testing.T) {
	response := "Here is what I found.\n\n```json\n" + `{
  "entities": [
    {"name": "张三", "type": "Person", "aliases": ["Zhang San"]},
    {"name": "Zhang San", "entity_type": "person", "desc": "Backend engineer"},
    {"name": "Project Apollo", "category": "project", "alias": "Apollo"}
  ],
  "relationships": [
    {"source": "zhang san", "target": "Apollo", "relation": "works on", "confidence": "90%"},
    {"source": "Apollo", "target": "Raft", "relation": "uses", "confidence": "0.6"}
  ]
}` + "\n```\n"
	x, err := kgmem.ParseExtraction([]byte(response))
	require.NoError(t, err)
	g := kgmem.NewInMemoryGraph()
	rep := mustIngest(t, g, x, kgmem.WithSource("weekly-23"))
	require.Equal(t, []string{"person:张三", "person:张三", "project:project_apollo"}, rep.EntityIDs)
	require.Equal(t, kgmem.IngestReport{
		EntitiesCreated: 2, EntitiesDeduplicated: 1, RelationsCreated: 1, RelationsSkipped: 1,
		EntityIDs: rep.EntityIDs,
		Skipped:   []kgmem.SkippedItem{{Kind: "relation", Index: 1, Ref: "Raft", Reason: `target "Raft" names no entity`}},
	}, rep)
	require.Equal(t, kgmem.Entity{ID: "person:张三", Name: "张三", Type: "person", Description: "Backend engineer",
		Aliases: []string{"Zhang San"}, SourceIDs: []string{"weekly-23"}}, mustEntity(t, g, "person:张三"))
	require.Equal(t, 0.9, mustRelation(t, g, "person:张三", "project:project_apollo", "works_on").Weight)
}

// nameFinderGraph offers the interface and NameFinder only, as a backend
// such as pgraph does, and counts how Ingest looks names up.
type nameFinderGraph struct {
	kgmem.KnowledgeGraph
	finder          kgmem.NameFinder
	byName, byWords int
}

func (n *nameFinderGraph) FindByName(ctx context.Context, name string) ([]kgmem.Entity, error) {
	n.byName++
	return n.finder.FindByName(ctx, name)
}

func (n *nameFinderGraph) FindByKeywords(ctx context.Context, keywords []string) ([]kgmem.Entity, error) {
	n.byWords++
	return n.KnowledgeGraph.FindByKeywords(ctx, keywords)
}

// TestIngestUsesNameFinder checks that any backend implementing NameFinder
// gets the name lookups, one per distinct match key, and the same result
// as the in-memory graph; names without a match key still go through
// FindByKeywords.
func TestIngestUsesNameFinder(t *testing.T) {
	ctx := context.Background()
	seed := func() *kgmem.InMemoryGraph {
		g := kgmem.NewInMemoryGraph()
		require.NoError(t, g.AddBatch(ctx, []kgmem.Entity{
			{ID: "p:zs", Name: "张三", Type: "person", Aliases: []string{"Zhang San"}},
			{ID: "proj:apollo", Name: "Project Apollo", Type: "project"},
			{ID: "x:plus", Name: "+++", Type: "thing"},
		}, nil))
		return g
	}
	x := kgmem.Extraction{
		Entities: []kgmem.ExtractedEntity{
			{Name: "zhang  san", Type: "person", Description: "engineer"},
			{Name: "ZHANG SAN", Type: "person"},
			{Name: "+++", Type: "thing", Tags: []string{"symbol"}},
		},
		Relations: []kgmem.ExtractedRelation{{Source: "Zhang San", Target: "project apollo", Type: "works on"}},
	}
	want := mustIngest(t, seed(), x)
	g := seed()
	nf := &nameFinderGraph{KnowledgeGraph: plainGraph{g}, finder: g}
	got := mustIngest(t, nf, x)
	require.Equal(t, want, got)
	require.Equal(t, []string{"p:zs", "p:zs", "x:plus"}, got.EntityIDs)
	require.Equal(t, 2, nf.byName, "zhang san and project apollo, each looked up once")
	require.Equal(t, 1, nf.byWords, "+++ has no match key: it is searched by keyword")
	mustRelation(t, g, "p:zs", "proj:apollo", "works_on")
}

// TestIngestReportsWhatChanged ingests a response, then one that repeats
// it with one new fact: only what changed counts as merged or updated.
func TestIngestReportsWhatChanged(t *testing.T) {
	g := kgmem.NewInMemoryGraph()
	x := kgmem.Extraction{
		Entities: []kgmem.ExtractedEntity{
			{Name: "张三", Type: "person", Aliases: []string{"Zhang San"}},
			{Name: "Project Apollo", Type: "project"},
			{Name: "Alice", Type: "person"},
		},
		Relations: []kgmem.ExtractedRelation{
			{Source: "张三", Target: "Project Apollo", Type: "works_on", Weight: weight(0.8)},
			{Source: "Alice", Target: "Project Apollo", Type: "leads"},
			{Source: "Alice", Target: "Alice", Type: "reviews"}, // a self-loop is written like any relation
		},
	}
	first := mustIngest(t, g, x, kgmem.WithSource("p1"))
	require.Equal(t, 3, first.EntitiesCreated)
	require.Equal(t, 3, first.RelationsCreated)
	mustRelation(t, g, "person:alice", "person:alice", "reviews")

	y := x
	y.Entities = slices.Clone(x.Entities)
	y.Entities[2].Description = "PM" // Alice changes
	y.Relations = slices.Clone(x.Relations)
	y.Relations[0].Weight = weight(0.9) // so does works_on
	rep := mustIngest(t, g, y, kgmem.WithSource("p1"))
	require.Equal(t, kgmem.IngestReport{
		EntitiesMerged: 1, EntitiesUnchanged: 2,
		RelationsUpdated: 1, RelationsUnchanged: 2,
		EntityIDs: []string{"person:张三", "project:project_apollo", "person:alice"},
	}, withoutKinds(rep))
	require.Equal(t, "PM", mustEntity(t, g, "person:alice").Description)
	require.Equal(t, 0.9, mustRelation(t, g, "person:张三", "project:project_apollo", "works_on").Weight)

	// A new source is a change to everything it now cites.
	rep = mustIngest(t, g, y, kgmem.WithSource("p2"))
	require.Equal(t, 3, rep.EntitiesMerged)
	require.Equal(t, 3, rep.RelationsUpdated)
	require.Zero(t, rep.EntitiesUnchanged+rep.RelationsUnchanged)
}

// withoutKinds returns rep with the fields TestIngestReportsWhatChanged
// does not compare cleared.
func withoutKinds(rep kgmem.IngestReport) kgmem.IngestReport {
	rep.Skipped = nil
	return rep
}
