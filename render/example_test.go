package render_test

import (
	"context"
	"os"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/render"
)

// exampleGraph is the small graph the examples and tests share, the one of
// package kgmem's examples.
func exampleGraph() *kgmem.InMemoryGraph {
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph()
	for _, e := range []kgmem.Entity{
		{ID: "person:zhangsan", Name: "张三", Type: "person", SourceIDs: []string{"hr-1024"}},
		{ID: "project:a", Name: "项目A", Type: "project"},
		{ID: "team:infra", Name: "基础架构部", Type: "team"},
		{ID: "person:alice", Name: "Alice", Type: "person"},
	} {
		if err := g.AddEntity(ctx, e); err != nil {
			panic(err)
		}
	}
	for _, r := range []kgmem.Relation{
		{SourceID: "person:zhangsan", TargetID: "project:a", Type: "works_on", Weight: 0.9},
		{SourceID: "project:a", TargetID: "team:infra", Type: "part_of", Weight: 0.8},
		{SourceID: "person:alice", TargetID: "project:a", Type: "leads", Weight: 1},
		{SourceID: "person:alice", TargetID: "team:infra", Type: "member_of", Weight: 0.5},
	} {
		if err := g.AddRelation(ctx, r); err != nil {
			panic(err)
		}
	}
	return g
}

// exampleStore is the knowledge store the tests share, the one of package
// kgmem's examples.
func exampleStore() *kgmem.InMemoryKnowledgeStore {
	s := kgmem.NewInMemoryKnowledgeStore()
	for _, p := range []kgmem.KnowledgePage{
		{ID: "weekly-12", Title: "项目A 周报", Content: "张三负责项目A的支付模块重构。"},
		{ID: "hr-1024", Title: "人事档案 1024", Content: "入职日期 2021-03-01。"},
		{ID: "raft", Title: "Raft notes", Content: "Leader election and log replication."},
	} {
		if err := s.Put(context.Background(), p); err != nil {
			panic(err)
		}
	}
	return s
}

func ExampleMermaid() {
	ctx := context.Background()
	g := exampleGraph()
	res, err := g.FindPaths(ctx, "person:zhangsan", "person:alice",
		kgmem.PathOptions{MaxHops: 3, Direction: kgmem.Both, MaxPaths: 2})
	if err != nil {
		panic(err)
	}
	// The entities and relations of both paths, the best one highlighted.
	sg, err := render.Paths(ctx, g, res)
	if err != nil {
		panic(err)
	}
	if err := render.Mermaid(os.Stdout, sg, render.Options{}); err != nil {
		panic(err)
	}
	// Output:
	// flowchart LR
	//     n0["Alice<br/>(person)"]
	//     n1["张三<br/>(person)"]
	//     n2["项目A<br/>(project)"]
	//     n3["基础架构部<br/>(team)"]
	//     n0 -->|"leads 1"| n2
	//     n0 -->|"member_of 0.5"| n3
	//     n1 -->|"works_on 0.9"| n2
	//     n2 -->|"part_of 0.8"| n3
	//     classDef highlight fill:#fff4e6,stroke:#d9480f,stroke-width:3px
	//     class n0,n1,n2 highlight
	//     linkStyle 0,2 stroke:#d9480f,stroke-width:3px
}

func ExampleDOT() {
	ctx := context.Background()
	g := exampleGraph()
	start, _, _ := g.GetEntity(ctx, "person:alice")
	related, err := g.GetRelated(ctx, start.ID, kgmem.TraverseOptions{Depth: 1})
	if err != nil {
		panic(err)
	}
	// Render with: dot -Tsvg memory.dot -o memory.svg
	sg := render.Related(start, related)
	if err := render.DOT(os.Stdout, sg, render.Options{HideTypes: true}); err != nil {
		panic(err)
	}
	// Output:
	// digraph kgmem {
	// 	graph [charset="UTF-8", rankdir="LR"];
	// 	node [shape="box", style="rounded,filled", color="#495057", fillcolor="#f1f3f5"];
	// 	edge [color="#868e96", fontcolor="#495057", fontsize="10"];
	// 	"person:alice" [label="Alice"];
	// 	"project:a" [label="项目A"];
	// 	"team:infra" [label="基础架构部"];
	// 	"person:alice" -> "project:a" [label="leads 1"];
	// 	"person:alice" -> "team:infra" [label="member_of 0.5"];
	// }
}
