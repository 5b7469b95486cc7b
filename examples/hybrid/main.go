// Command hybrid answers questions from an agent's memory with both
// channels at once: knowledge pages found by text search, and entities the
// question names expanded through the graph, each with the path that
// explains it.
//
//	go run ./examples/hybrid
package main

import (
	"context"
	"fmt"
	"log"

	"github.com/kgmem/kgmem"
)

func main() {
	ctx := context.Background()

	pages := kgmem.NewInMemoryKnowledgeStore()
	for _, p := range []kgmem.KnowledgePage{
		{ID: "weekly-12", Title: "项目A 周报", Content: "张三负责项目A的支付模块重构，本周完成了对账服务。"},
		{ID: "hr-1024", Title: "人事档案 1024", Content: "入职日期 2021-03-01，职级 P6。"},
		{ID: "apollo-plan", Title: "Apollo launch plan", Content: "Alice owns the launch checklist; the rollout starts in March."},
		{ID: "raft-notes", Title: "Raft notes", Content: "Leader election, log replication and safety."},
	} {
		if err := pages.Put(ctx, p); err != nil {
			log.Fatal(err)
		}
	}

	g := kgmem.NewInMemoryGraph()
	for _, e := range []kgmem.Entity{
		{ID: "person:zhangsan", Name: "张三", Type: "person", SourceIDs: []string{"hr-1024"}},
		{ID: "project:a", Name: "项目A", Type: "project"},
		{ID: "team:infra", Name: "基础架构部", Type: "team"},
		{ID: "person:alice", Name: "Alice", Type: "person"},
		{ID: "project:apollo", Name: "Project Apollo", Aliases: []string{"Apollo"}, Type: "project", SourceIDs: []string{"apollo-plan"}},
		{ID: "tech:raft", Name: "Raft", Type: "concept", SourceIDs: []string{"raft-notes"}},
	} {
		if err := g.AddEntity(ctx, e); err != nil {
			log.Fatal(err)
		}
	}
	for _, r := range []kgmem.Relation{
		{SourceID: "person:zhangsan", TargetID: "project:a", Type: "works_on", Weight: 0.9},
		{SourceID: "project:a", TargetID: "team:infra", Type: "part_of", Weight: 0.8},
		{SourceID: "person:alice", TargetID: "project:apollo", Type: "leads", Weight: 1},
		{SourceID: "project:apollo", TargetID: "tech:raft", Type: "uses", Weight: 0.6},
	} {
		if err := g.AddRelation(ctx, r); err != nil {
			log.Fatal(err)
		}
	}

	r := kgmem.NewMemoryRetriever(pages, kgmem.RetrieverConfig{MaxResults: 6}, kgmem.WithKnowledgeGraph(g))
	for _, q := range []string{"张三负责什么项目？", "What does Apollo use?"} {
		res, err := r.Retrieve(ctx, q)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("Q: %s  (%s)\n", q, res.Strategy)
		for _, it := range res.Items {
			fmt.Printf("  %.2f  %-6s %s\n", it.Score, it.Kind, it.Explain())
		}
		fmt.Println()
	}
}
