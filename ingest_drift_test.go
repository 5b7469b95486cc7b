package kgmem_test

import (
	"context"
	"slices"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/stretchr/testify/require"
)

// driftGraphs are the graphs the drift rules are checked on: the in-memory
// graph (found by NameFinder) and one that offers only KnowledgeGraph's
// methods (found by FindByKeywords).
func driftGraphs() map[string]func() kgmem.KnowledgeGraph {
	return map[string]func() kgmem.KnowledgeGraph{
		"in-memory":      func() kgmem.KnowledgeGraph { return kgmem.NewInMemoryGraph() },
		"interface-only": func() kgmem.KnowledgeGraph { return interfaceOnly{kgmem.NewInMemoryGraph()} },
	}
}

// TestIngestDriftRules ingests two extractions that name one thing in two
// forms and checks, on each graph, which entities and relation types the
// second resolves to, with and without WithExactNames, and what the report
// lists in Unified.
func TestIngestDriftRules(t *testing.T) {
	e := func(name, typ string) kgmem.ExtractedEntity { return kgmem.ExtractedEntity{Name: name, Type: typ} }
	cases := []struct {
		name          string
		first, second kgmem.ExtractedEntity
		merged        string // the ID the second resolves to by default; "" for a new entity
		reason        string // UnifiedItem.Reason when merged
		// finderOnly: only a graph with FindByName (a NameFinder) finds the
		// first entity; the keyword search of the others matches
		// substrings, which an accent breaks.
		finderOnly bool
	}{
		{"another type of the same family", e("Tom", "person"), e("Tom", "human"), "person:tom", `type "human" read as "person"`, false},
		{"a named-entity label", e("Acme Corp", "company"), e("Acme Corp", "ORG"), "company:acme_corp", `type "org" read as "company"`, false},
		{"punctuation and case", e("ACME Corp.", "company"), e("Acme Corp", "company"), "company:acme_corp.", `name "Acme Corp" read as "ACME Corp."`, false},
		{"punctuation, case and family", e("ACME Corp.", "company"), e("acme corp", "organization"), "company:acme_corp.",
			`type "organization" read as "company", name "acme corp" read as "ACME Corp."`, false},
		{"an untyped mention", e("Tom", "person"), e("Tom", ""), "person:tom", `type "entity" read as "person"`, false},
		{"a typed mention of an untyped entity", e("Tom", ""), e("Tom", "person"), "entity:tom", `type "person" read as "entity"`, false},
		{"types of different families", e("Apollo", "project"), e("Apollo", "person"), "", "", false},
		{"unrelated types", e("Apollo", "rocket"), e("Apollo", "ship"), "", "", false},
		{"different names", e("Acme Corp", "company"), e("Acme Co", "company"), "", "", false},
		{"accents", e("Akinoshū Kenji", "person"), e("Akinoshu Kenji", "person"), "person:akinoshū_kenji", `name "Akinoshu Kenji" read as "Akinoshū Kenji"`, true},
	}
	ctx := context.Background()
	for gname, newGraph := range driftGraphs() {
		for _, tc := range cases {
			t.Run(gname+"/"+tc.name, func(t *testing.T) {
				for _, exact := range []bool{false, true} {
					g := newGraph()
					var opts []kgmem.IngestOption
					if exact {
						opts = append(opts, kgmem.WithExactNames())
					}
					first, err := kgmem.Ingest(ctx, g, kgmem.Extraction{Entities: []kgmem.ExtractedEntity{tc.first}}, opts...)
					require.NoError(t, err)
					rep, err := kgmem.Ingest(ctx, g, kgmem.Extraction{Entities: []kgmem.ExtractedEntity{tc.second}}, opts...)
					require.NoError(t, err)
					if tc.merged == "" || exact || tc.finderOnly && gname == "interface-only" {
						require.Equal(t, 1, rep.EntitiesCreated, "exact %v", exact)
						require.NotEqual(t, first.EntityIDs[0], rep.EntityIDs[0])
						require.Empty(t, rep.Unified)
						continue
					}
					require.Equal(t, []string{tc.merged}, rep.EntityIDs)
					require.Equal(t, 0, rep.EntitiesCreated)
					require.Equal(t, []kgmem.UnifiedItem{{Kind: kgmem.SkippedEntity, Index: 0, Ref: tc.second.Name, Into: tc.merged, Reason: tc.reason}}, rep.Unified)
					held, ok, err := g.GetEntity(ctx, tc.merged)
					require.NoError(t, err)
					require.True(t, ok)
					require.Equal(t, tc.first.Name, held.Name, "the first name is kept")
					if tc.second.Name != tc.first.Name {
						require.Contains(t, held.Aliases, tc.second.Name)
					}
				}
			})
		}
	}
}

// TestIngestRelationTypeSpellings writes one fact with four spellings of
// its relation type: they are one relation of type works_at by default and
// four types with WithExactNames (two of which normalise alike).
func TestIngestRelationTypeSpellings(t *testing.T) {
	ctx := context.Background()
	x := kgmem.Extraction{
		Entities: []kgmem.ExtractedEntity{{Name: "Tom", Type: "person"}, {Name: "Acme", Type: "company"}},
	}
	for _, typ := range []string{"WorksAt", "works at", "works_at", "Works-At"} {
		x.Relations = append(x.Relations, kgmem.ExtractedRelation{Source: "Tom", Target: "Acme", Type: typ})
	}
	for gname, newGraph := range driftGraphs() {
		t.Run(gname, func(t *testing.T) {
			g := newGraph()
			rep, err := kgmem.Ingest(ctx, g, x)
			require.NoError(t, err)
			require.Equal(t, 1, rep.RelationsCreated)
			require.Equal(t, 3, rep.RelationsDeduplicated)
			require.Equal(t, []kgmem.UnifiedItem{
				{Kind: kgmem.SkippedRelation, Index: 0, Ref: "WorksAt", Into: "works_at", Reason: `relation type "WorksAt" stored as "works_at"`},
				{Kind: kgmem.SkippedRelation, Index: 3, Ref: "Works-At", Into: "works_at", Reason: `relation type "Works-At" stored as "works_at"`},
			}, rep.Unified)
			require.True(t, driftHas(t, g, "person:tom", "company:acme", "works_at"))

			g = newGraph()
			rep, err = kgmem.Ingest(ctx, g, x, kgmem.WithExactNames())
			require.NoError(t, err)
			require.Equal(t, 3, rep.RelationsCreated) // worksat, works_at, works-at
			require.Empty(t, rep.Unified)
			for _, typ := range []string{"worksat", "works_at", "works-at"} {
				require.True(t, driftHas(t, g, "person:tom", "company:acme", typ), typ)
			}
		})
	}
}

// TestIngestDriftWithinOneExtraction resolves the forms of one extraction
// to each other, and a relation endpoint written in another form to the
// entity, reporting each.
func TestIngestDriftWithinOneExtraction(t *testing.T) {
	g := kgmem.NewInMemoryGraph()
	rep, err := kgmem.Ingest(context.Background(), g, kgmem.Extraction{
		Entities: []kgmem.ExtractedEntity{{Name: "ACME Corp.", Type: "company"}, {Name: "Tom", Type: "person"}, {Name: "Tom", Type: "PER"}},
		Relations: []kgmem.ExtractedRelation{
			{Source: "Tom", Target: "Acme Corp", Type: "employed by"},
		},
	})
	require.NoError(t, err)
	require.Equal(t, []string{"company:acme_corp.", "person:tom", "person:tom"}, rep.EntityIDs)
	require.Equal(t, 1, rep.RelationsCreated)
	require.Equal(t, []kgmem.UnifiedItem{
		{Kind: kgmem.SkippedEntity, Index: 2, Ref: "Tom", Into: "person:tom", Reason: `type "per" read as "person"`},
		{Kind: kgmem.SkippedRelation, Index: 0, Ref: "Acme Corp", Into: "company:acme_corp.", Reason: `name "Acme Corp" read as "ACME Corp."`},
	}, rep.Unified)
	require.Equal(t, "relation 0 (\"Acme Corp\") into company:acme_corp.: name \"Acme Corp\" read as \"ACME Corp.\"", rep.Unified[1].String())
	ids := []string{}
	rel, err := g.GetRelated(context.Background(), "person:tom", kgmem.TraverseOptions{Depth: 1})
	require.NoError(t, err)
	for _, r := range rel {
		ids = append(ids, r.Entity.ID)
	}
	require.True(t, slices.Equal(ids, []string{"company:acme_corp."}), "%v", ids)
}

// driftHas says whether g holds the relation src -[typ]-> dst.
func driftHas(t *testing.T, g kgmem.KnowledgeGraph, src, dst, typ string) bool {
	t.Helper()
	rel, err := g.GetRelated(context.Background(), src, kgmem.TraverseOptions{Depth: 1, RelationTypes: []string{typ}})
	require.NoError(t, err)
	return slices.ContainsFunc(rel, func(s kgmem.ScoredEntity) bool { return s.Entity.ID == dst })
}
