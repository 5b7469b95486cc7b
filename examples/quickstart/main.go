// Command quickstart builds a small knowledge graph, asks what is related to
// one entity, and how two entities are connected.
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/kgmem/kgmem"
)

func main() {
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph()

	entities := []kgmem.Entity{
		{ID: "person:zhangsan", Name: "张三", Type: "person", Aliases: []string{"Zhang San"}},
		{ID: "person:alice", Name: "Alice", Type: "person"},
		{ID: "project:apollo", Name: "Project Apollo", Type: "project", Aliases: []string{"Apollo"}},
		{ID: "team:infra", Name: "基础架构部", Type: "team", Tags: []string{"Infrastructure", "platform"}},
		{ID: "tech:raft", Name: "Raft", Type: "concept"},
	}
	relations := []kgmem.Relation{
		{SourceID: "person:zhangsan", TargetID: "project:apollo", Type: "works_on", Weight: 0.9},
		{SourceID: "person:alice", TargetID: "project:apollo", Type: "leads", Weight: 1},
		{SourceID: "project:apollo", TargetID: "team:infra", Type: "part_of", Weight: 0.8},
		{SourceID: "project:apollo", TargetID: "tech:raft", Type: "uses", Weight: 0.6},
		{SourceID: "person:alice", TargetID: "team:infra", Type: "member_of", Weight: 0.7},
	}
	for _, e := range entities {
		if err := g.AddEntity(ctx, e); err != nil {
			log.Fatal(err)
		}
	}
	for _, r := range relations {
		if err := g.AddRelation(ctx, r); err != nil {
			log.Fatal(err)
		}
	}

	names := map[string]string{}
	for _, e := range entities {
		names[e.ID] = e.Name
	}

	fmt.Println("Related to 张三 (2 hops, both directions):")
	related, err := g.GetRelated(ctx, "person:zhangsan", kgmem.TraverseOptions{Depth: 2, Direction: kgmem.Both})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range related {
		fmt.Printf("  %.2f  %s: %s\n", r.Score, r.Entity.Name, explain(names, r.Path, r.Relations))
	}

	fmt.Println("How is 张三 related to Alice?")
	res, err := g.FindPaths(ctx, "person:zhangsan", "person:alice", kgmem.PathOptions{MaxHops: 3, Direction: kgmem.Both})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range res.Paths {
		fmt.Printf("  %.2f  %s\n", p.Score, explain(names, p.EntityIDs, p.Relations))
	}
}

// explain renders a path as "张三 —works_on→ Project Apollo ←leads— Alice".
func explain(names map[string]string, ids []string, rels []kgmem.Relation) string {
	var b strings.Builder
	b.WriteString(names[ids[0]])
	for i, r := range rels {
		if r.SourceID == ids[i] {
			fmt.Fprintf(&b, " —%s→ ", r.Type)
		} else {
			fmt.Fprintf(&b, " ←%s— ", r.Type)
		}
		b.WriteString(names[ids[i+1]])
	}
	return b.String()
}
