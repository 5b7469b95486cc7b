package kgmem_test

import (
	"context"
	"os"

	"github.com/kgmem/kgmem"
)

func ExampleWriteMermaid() {
	ctx := context.Background()
	g := exampleGraph()
	res, err := g.FindPaths(ctx, "person:zhangsan", "person:alice",
		kgmem.PathOptions{MaxHops: 3, Direction: kgmem.Both, MaxPaths: 2})
	if err != nil {
		panic(err)
	}
	// The entities and relations of both paths, the best one highlighted.
	sg, err := kgmem.PathsSubgraph(ctx, g, res)
	if err != nil {
		panic(err)
	}
	if err := kgmem.WriteMermaid(os.Stdout, sg, kgmem.VisualOptions{}); err != nil {
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

func ExampleWriteDOT() {
	ctx := context.Background()
	g := exampleGraph()
	start, _, _ := g.GetEntity(ctx, "person:alice")
	related, err := g.GetRelated(ctx, start.ID, kgmem.TraverseOptions{Depth: 1})
	if err != nil {
		panic(err)
	}
	// Render with: dot -Tsvg memory.dot -o memory.svg
	sg := kgmem.RelatedSubgraph(start, related)
	if err := kgmem.WriteDOT(os.Stdout, sg, kgmem.VisualOptions{HideTypes: true}); err != nil {
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
