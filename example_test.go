package kgmem_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/kgmem/kgmem"
)

// exampleGraph is the small graph the examples share.
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

// exampleStore is the knowledge store the examples share.
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

func ExampleNewInMemoryGraph() {
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph(kgmem.WithTagConstraints(kgmem.TagConstraints{MaxTagsPerEntity: 4}))
	_ = g.AddEntity(ctx, kgmem.Entity{ID: "person:zhangsan", Name: "张三", Tags: []string{" Backend ", "backend", "Go"}})
	e, ok, _ := g.GetEntity(ctx, "person:zhangsan")
	fmt.Println(ok, e.Name, e.Tags)

	err := g.AddEntity(ctx, kgmem.Entity{ID: ""})
	fmt.Println(errors.Is(err, kgmem.ErrInvalidArgument))
	// Output:
	// true 张三 [backend go]
	// true
}

func ExampleInMemoryGraph_AddRelation() {
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph()
	_ = g.AddEntity(ctx, kgmem.Entity{ID: "a"})
	_ = g.AddEntity(ctx, kgmem.Entity{ID: "b"})

	_ = g.AddRelation(ctx, kgmem.Relation{SourceID: "a", TargetID: "b", Type: "knows", Weight: 0.5})
	// The same key replaces the stored relation.
	_ = g.AddRelation(ctx, kgmem.Relation{SourceID: "a", TargetID: "b", Type: "knows", Weight: 0.9})
	r, _, _ := g.GetRelation(ctx, "a", "b", "knows")
	fmt.Println(r.Weight, g.Stats().Relations)

	err := g.AddRelation(ctx, kgmem.Relation{SourceID: "a", TargetID: "nobody", Type: "knows", Weight: 1})
	fmt.Println(errors.Is(err, kgmem.ErrNotFound))
	err = g.AddRelation(ctx, kgmem.Relation{SourceID: "a", TargetID: "b", Type: "knows", Weight: 1.5})
	fmt.Println(err)

	// A relation stated without a weight is unweighted: it is stored as 1.
	_ = g.AddRelation(ctx, kgmem.Relation{SourceID: "b", TargetID: "a", Type: "knows"})
	r, _, _ = g.GetRelation(ctx, "b", "a", "knows")
	fmt.Println(r.Weight)
	// Output:
	// 0.9 1
	// true
	// kgmem: relation "a" -["knows"]-> "b": weight 1.5 is outside [0,1]: invalid argument
	// 1
}

func ExampleInMemoryGraph_FindByName() {
	g := exampleGraph()
	// Names and aliases match case-insensitively, whatever the spacing and
	// punctuation between their words.
	for _, name := range []string{"张三", "ALICE", "项目 a", "nobody"} {
		es, err := g.FindByName(context.Background(), name)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: %d", name, len(es))
		for _, e := range es {
			fmt.Printf(" %s (%s)", e.ID, e.Name)
		}
		fmt.Println()
	}
	// Output:
	// 张三: 1 person:zhangsan (张三)
	// ALICE: 1 person:alice (Alice)
	// 项目 a: 1 project:a (项目A)
	// nobody: 0
}

func ExampleInMemoryGraph_GetRelated() {
	g := exampleGraph()
	related, err := g.GetRelated(context.Background(), "person:zhangsan",
		kgmem.TraverseOptions{Depth: 2, Direction: kgmem.Both})
	if err != nil {
		panic(err)
	}
	for _, r := range related {
		fmt.Printf("%.2f %s %v\n", r.Score, r.Entity.Name, r.Path)
	}

	// The zero options walk one hop along outgoing relations.
	related, _ = g.GetRelated(context.Background(), "person:zhangsan", kgmem.TraverseOptions{})
	fmt.Println(len(related), related[0].Entity.Name)
	// Output:
	// 0.90 项目A [person:zhangsan project:a]
	// 0.90 Alice [person:zhangsan project:a person:alice]
	// 0.72 基础架构部 [person:zhangsan project:a team:infra]
	// 1 项目A
}

func ExampleInMemoryGraph_FindPaths() {
	g := exampleGraph()
	res, err := g.FindPaths(context.Background(), "person:zhangsan", "team:infra",
		kgmem.PathOptions{MaxHops: 3, Direction: kgmem.Both})
	if err != nil {
		panic(err)
	}
	for _, p := range res.Paths {
		fmt.Printf("%.2f %v\n", p.Score, p.EntityIDs)
	}

	_, err = g.FindPaths(context.Background(), "team:infra", "person:zhangsan", kgmem.PathOptions{MaxHops: 3})
	fmt.Println(errors.Is(err, kgmem.ErrNoPath))
	// Output:
	// 0.72 [person:zhangsan project:a team:infra]
	// 0.45 [person:zhangsan project:a person:alice team:infra]
	// true
}

func ExampleInMemoryGraph_SetEntityTags() {
	ctx := context.Background()
	g := exampleGraph()
	n, _ := g.SetEntityTags(ctx, "person:zhangsan", []string{"Backend", " backend ", "", "Payments"})
	fmt.Println(n)
	_, _ = g.SetEntityTags(ctx, "person:alice", []string{"backend", "management"})
	tags, _ := g.FindTags(ctx, "B")
	count, _ := g.EntityCountByTag(ctx, "BACKEND")
	fmt.Println(tags, count)
	// Output:
	// 2
	// [backend] 2
}

func ExampleInMemoryGraph_LinkEntities() {
	g := exampleGraph()
	mentions, _ := g.LinkEntities(context.Background(), "张三和Alice在哪个部门？")
	for _, m := range mentions {
		fmt.Println(m.Entity.ID, m.Text, m.Quality)
	}
	// Output:
	// person:zhangsan 张三 1
	// person:alice Alice 1
}

func ExampleInMemoryKnowledgeStore_Search() {
	s := exampleStore()
	hits, _ := s.Search(context.Background(), "项目A的周报", 5)
	for _, h := range hits {
		fmt.Printf("%s %.2f\n", h.Page.ID, h.Score)
	}
	// Output:
	// weekly-12 0.64
}

func ExampleTokenize() {
	fmt.Println(kgmem.Tokenize("一致性哈希是什么？"))
	fmt.Println(kgmem.Tokenize("The project's ＡＰＩ keys"))
	// Output:
	// [一致 致性 性哈 哈希]
	// [project api key]
}

func ExampleMemoryRetriever_Retrieve() {
	r := kgmem.NewMemoryRetriever(exampleStore(), kgmem.RetrieverConfig{MaxResults: 5},
		kgmem.WithKnowledgeGraph(exampleGraph()))
	res, err := r.Retrieve(context.Background(), "张三负责什么项目？")
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Strategy)
	for _, it := range res.Items {
		fmt.Printf("%.2f %-6s %s\n", it.Score, it.Kind, it.Explain())
	}
	// Output:
	// hybrid
	// 0.56 entity 张三 —works_on→ 项目A (works_on ← "负责"; project ← "项目")
	// 0.42 entity 张三
	// 0.17 page   张三 —mentioned_in→ 人事档案 1024
	// 0.15 page   项目A 周报
	// 0.11 entity 张三 —works_on→ 项目A ←leads— Alice (works_on ← "负责")
}

func ExampleMemoryRetriever_Retrieve_graphOnly() {
	r := kgmem.NewMemoryRetriever(exampleStore(), kgmem.RetrieverConfig{},
		kgmem.WithKnowledgeGraph(exampleGraph()), kgmem.WithStrategy(kgmem.GraphOnly),
		kgmem.WithExpansion(kgmem.TraverseOptions{Depth: 1, Direction: kgmem.Both}))
	res, _ := r.Retrieve(context.Background(), "who is Alice")
	fmt.Println(res.Strategy)
	for _, it := range res.Items {
		fmt.Printf("%.2f %s\n", it.Score, it.Explain())
	}
	// Output:
	// graph-only
	// 0.60 Alice (person ← "who")
	// 0.20 Alice —leads→ 项目A
	// 0.14 Alice —member_of→ 基础架构部
}

func ExampleMemoryRetriever_Retrieve_knowledgeOnly() {
	// Without a graph, Hybrid runs the content channel alone and says so.
	r := kgmem.NewMemoryRetriever(exampleStore(), kgmem.RetrieverConfig{})
	res, _ := r.Retrieve(context.Background(), "raft leader election")
	fmt.Println(res.Strategy)
	for _, it := range res.Items {
		fmt.Printf("%.2f %s\n", it.Score, it.Explain())
	}
	// Output:
	// knowledge-only
	// 0.58 Raft notes
}

func ExampleRetrievalItem_Explain() {
	it := kgmem.RetrievalItem{
		Kind:      kgmem.ItemEntity,
		Entity:    &kgmem.Entity{ID: "team:infra", Name: "基础架构部"},
		Path:      []string{"person:zhangsan", "project:a", "team:infra"},
		PathNames: []string{"张三", "项目A", "基础架构部"},
		Relations: []kgmem.Relation{
			{SourceID: "person:zhangsan", TargetID: "project:a", Type: "works_on"},
			{SourceID: "project:a", TargetID: "team:infra", Type: "part_of"},
		},
	}
	fmt.Println(it.Explain())
	// Output:
	// 张三 —works_on→ 项目A —part_of→ 基础架构部
}

func ExampleRetrievalResult_ContextBlock() {
	r := kgmem.NewMemoryRetriever(exampleStore(), kgmem.RetrieverConfig{MaxResults: 3},
		kgmem.WithKnowledgeGraph(exampleGraph()), kgmem.WithStrategy(kgmem.GraphOnly))
	res, _ := r.Retrieve(context.Background(), "张三")
	fmt.Print(res.ContextBlock(200))
	// Output:
	// [1] entity 张三 (person)
	//
	// [2] entity 项目A (project)
	// path: 张三 —works_on→ 项目A
	//
	// [3] entity Alice (person)
	// path: 张三 —works_on→ 项目A ←leads— Alice
}
