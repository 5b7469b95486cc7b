package kgmem_test

// The examples in this file are the README's snippets (see readme_test.go):
// go test runs them and checks what they print.

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/kgmem/kgmem"
)

// A knowledge store alone: pages ranked by BM25 over English and Chinese
// terms, scores normalised to [0,1].
func ExampleInMemoryKnowledgeStore() {
	ctx := context.Background()
	s := kgmem.NewInMemoryKnowledgeStore()
	err := s.Put(ctx, kgmem.KnowledgePage{ID: "doc-1", Title: "一致性哈希", Content: "一致性哈希把节点映射到环上，增删节点只移动少量键。"})
	if err != nil {
		log.Fatal(err)
	}
	err = s.Put(ctx, kgmem.KnowledgePage{ID: "doc-2", Title: "Raft", Content: "Raft 通过选主和日志复制保证一致性。"})
	if err != nil {
		log.Fatal(err)
	}
	hits, err := s.Search(ctx, "一致性哈希是什么", 10)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s %.2f\n", hits[0].Page.ID, hits[0].Score)
	// Output:
	// doc-1 0.66
}

// Words for relation and entity types that questions use but neither the
// type names nor the built-in lexicon cover.
func ExampleVocabulary() {
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph()
	for _, e := range []kgmem.Entity{
		{ID: "movie:heat", Name: "Heat", Type: "movie"},
		{ID: "person:mann", Name: "Michael Mann", Type: "person"},
	} {
		if err := g.AddEntity(ctx, e); err != nil {
			log.Fatal(err)
		}
	}
	if err := g.AddRelation(ctx, kgmem.Relation{SourceID: "movie:heat", TargetID: "person:mann", Type: "directed_by"}); err != nil {
		log.Fatal(err)
	}

	store := kgmem.NewInMemoryKnowledgeStore()
	r := kgmem.NewMemoryRetriever(store, kgmem.RetrieverConfig{Vocabulary: kgmem.Vocabulary{
		Relations:        map[string][]string{"directed_by": {"behind the camera", "导演"}},
		InverseRelations: map[string][]string{"parent_of": {"son", "daughter"}}, // "X's son" walks parent_of backwards
		Types:            map[string][]string{"movie": {"film", "picture", "电影"}},
	}}, kgmem.WithKnowledgeGraph(g))
	res, err := r.Retrieve(ctx, "who was behind the camera of the picture Heat?")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Items[0].Explain())
	// Output:
	// Heat —directed_by→ Michael Mann (directed_by ← "behind the camera"; person ← "who")
}

// A model's response, parsed and written; what could not be written is
// reported, not fatal.
func ExampleIngest_modelResponse() {
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph()
	modelResponse := []byte("```json\n" + `{"entities": [{"name": "张三", "type": "person"}, {"name": "Project Apollo", "type": "project"}],
 "relations": [{"from": "张三", "to": "Project Apollo", "type": "works_on", "weight": "90%"},
               {"from": "Project Apollo", "to": "Raft", "type": "uses"}]}` + "\n```")

	x, err := kgmem.ParseExtraction(modelResponse) // errors name the spot: relations[3].weight
	if err != nil {
		log.Fatal(err) // or show err to the model and ask again
	}
	rep, err := kgmem.Ingest(ctx, g, x, kgmem.WithSource("weekly-23"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rep.EntitiesCreated, rep.EntitiesMerged, rep.RelationsCreated)
	for _, s := range rep.Skipped {
		fmt.Println(s) // relation 1 ("Raft"): target "Raft" names no entity
	}
	// Output:
	// 2 0 1
	// relation 1 ("Raft"): target "Raft" names no entity
}

// Every write to a memory's graph or store is journaled before it
// returns, so it is there when the directory is opened again.
func ExampleOpenMemory_reopen() {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "kgmem-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "agent-memory")

	mem, err := kgmem.OpenMemory(dir) // loads the snapshot, replays the journal
	if err != nil {
		log.Fatal(err)
	}
	err = mem.Graph().AddEntity(ctx, kgmem.Entity{ID: "person:alice", Name: "Alice"}) // journaled and fsynced before it returns
	if err != nil {
		log.Fatal(err)
	}
	err = mem.Store().Put(ctx, kgmem.KnowledgePage{ID: "note-1", Content: "Alice joined."}) // likewise
	if err != nil {
		log.Fatal(err)
	}
	if err := mem.Close(); err != nil {
		log.Fatal(err)
	}

	mem, err = kgmem.OpenMemory(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer mem.Close()
	alice, _, _ := mem.Graph().GetEntity(ctx, "person:alice")
	fmt.Println(alice.Name, mem.Store().Len(), mem.Recovery().Replayed)
	// Output:
	// Alice 1 2
}
