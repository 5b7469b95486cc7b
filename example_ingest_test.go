package kgmem_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/kgmem/kgmem"
)

func ExampleParseExtraction() {
	response := "Sure! Here is what I found:\n\n```json\n" + `{
  "nodes": [
    {"name": "张三", "type": "Person", "aliases": ["Zhang San"]},
    {"name": "Project Apollo", "category": "project"}
  ],
  "edges": [
    {"from": "Zhang San", "to": "Project Apollo", "predicate": "works on", "confidence": "85%"}
  ]
}` + "\n```\nLet me know if you need more."
	x, err := kgmem.ParseExtraction([]byte(response))
	if err != nil {
		panic(err)
	}
	for _, e := range x.Entities {
		fmt.Printf("entity %s (%s) aliases=%q\n", e.Name, e.Type, e.Aliases)
	}
	for _, r := range x.Relations {
		fmt.Printf("relation %s -[%s %.2f]-> %s\n", r.Source, r.Type, *r.Weight, r.Target)
	}

	_, err = kgmem.ParseExtraction([]byte(`{"relations": [{"source": "A", "target": "B", "type": "t", "weight": true}]}`))
	fmt.Println(errors.Is(err, kgmem.ErrInvalidArgument))
	fmt.Println(err)
	// Output:
	// entity 张三 (Person) aliases=["Zhang San"]
	// entity Project Apollo (project) aliases=[]
	// relation Zhang San -[works on 0.85]-> Project Apollo
	// true
	// kgmem: parse extraction: relations[0].weight: want a number or a numeric string, got true: invalid argument
}

func ExampleIngest() {
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph()
	x := kgmem.Extraction{
		Entities: []kgmem.ExtractedEntity{
			{Name: "张三", Type: "Person", Aliases: []string{"Zhang San"}},
			{Name: "zhang  san", Type: "person", Description: "Backend engineer"}, // the same person
			{Name: "Project Apollo", Type: "project"},
		},
		Relations: []kgmem.ExtractedRelation{
			{Source: "Zhang San", Target: "Project Apollo", Type: "works on"},
			{Source: "Project Apollo", Target: "Raft", Type: "uses"}, // Raft was never listed
		},
	}
	rep, err := kgmem.Ingest(ctx, g, x, kgmem.WithSource("weekly-23"))
	if err != nil {
		panic(err)
	}
	fmt.Println(rep.EntityIDs)
	fmt.Println(rep.EntitiesCreated, rep.EntitiesDeduplicated, rep.RelationsCreated, rep.RelationsSkipped)
	for _, s := range rep.Skipped {
		fmt.Println(s)
	}
	e, _, _ := g.GetEntity(ctx, "person:张三")
	fmt.Printf("%s %q %q %v\n", e.Name, e.Description, e.Aliases, e.SourceIDs)

	// Ingesting the same extraction again finds everything already there:
	// nothing is written, and the report says so.
	rep, _ = kgmem.Ingest(ctx, g, x, kgmem.WithSource("weekly-23"))
	fmt.Println(rep.EntitiesCreated, rep.EntitiesMerged, rep.RelationsUpdated, "|",
		rep.EntitiesUnchanged, rep.RelationsUnchanged, g.Stats())
	// Output:
	// [person:张三 person:张三 project:project_apollo]
	// 2 1 1 1
	// relation 1 ("Raft"): target "Raft" names no entity
	// 张三 "Backend engineer" ["Zhang San"] [weekly-23]
	// 0 0 0 | 2 1 {2 1 0}
}

func ExampleIngest_placeholders() {
	g := kgmem.NewInMemoryGraph()
	x := kgmem.Extraction{
		Entities: []kgmem.ExtractedEntity{{Name: "Project Apollo", Type: "project"}},
		Relations: []kgmem.ExtractedRelation{
			{Source: "Project Apollo", Target: "concept:Raft", Type: "uses", Weight: weight(0.6)},
		},
	}
	rep, _ := kgmem.Ingest(context.Background(), g, x, kgmem.WithPlaceholders())
	fmt.Println(rep.PlaceholdersCreated)
	e, _, _ := g.GetEntity(context.Background(), "concept:raft")
	fmt.Println(e.Name, e.Type, e.Properties)
	// Output:
	// 1
	// Raft concept map[kgmem:placeholder:true]
}

func ExampleIngest_strict() {
	g := kgmem.NewInMemoryGraph()
	x := kgmem.Extraction{
		Entities: []kgmem.ExtractedEntity{{Name: "A"}, {Name: "B"}},
		Relations: []kgmem.ExtractedRelation{
			{Source: "A", Target: "B", Type: "knows", Weight: weight(1.5)},
			{Source: "A", Target: "C", Type: "knows"},
		},
	}
	_, err := kgmem.Ingest(context.Background(), g, x, kgmem.WithStrict(), kgmem.WithWeightPolicy(kgmem.WeightReject))
	fmt.Println(err)
	fmt.Println(g.Stats().Entities)
	// Output:
	// kgmem: ingest: strict: nothing written, 2 problem(s): relation 0 ("A -[knows]-> B"): weight 1.5 is outside (0,1]; relation 1 ("C"): target "C" names no entity: invalid argument
	// 0
}

func ExampleDeriveEntityID() {
	fmt.Println(kgmem.DeriveEntityID("Person", "  Zhang   San "))
	fmt.Println(kgmem.DeriveEntityID("person", "张三"))
	fmt.Println(kgmem.DeriveEntityID("", "Project Apollo"))
	// Output:
	// person:zhang_san
	// person:张三
	// entity:project_apollo
}
