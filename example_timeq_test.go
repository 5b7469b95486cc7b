package kgmem_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/kgmem/kgmem"
)

// A question that says when it asks about walks the graph as of then, and
// a question about how two entities are related answers with the path
// between them; each item's explanation says which words chose what.
func ExampleMemoryRetriever_Retrieve_timeAndConnection() {
	dir, err := os.MkdirTemp("", "kgmem-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	now := func() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) }
	mem, err := kgmem.OpenMemory(dir, kgmem.WithClock(now), kgmem.WithSingleValued("lives_in"))
	if err != nil {
		log.Fatal(err)
	}
	defer mem.Close()

	// Facts as they come, latest first: Maria moved to Lisbon in March
	// 2024, and had lived in Berlin since 2019.
	for i, f := range []struct {
		city, zh string
		from     time.Time
	}{
		{"Lisbon", "里斯本", time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)},
		{"Berlin", "柏林", time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		page := kgmem.KnowledgePage{ID: fmt.Sprintf("chat-%d", i), Content: "Maria lives in " + f.city + "."}
		_, err := mem.Ingest(ctx, page, kgmem.Extraction{
			Entities:  []kgmem.ExtractedEntity{{Name: "Maria", Type: "person"}, {Name: f.city, Type: "city", Aliases: []string{f.zh}}},
			Relations: []kgmem.ExtractedRelation{{Source: "Maria", Target: f.city, Type: "lives_in", ValidFrom: f.from}},
		})
		if err != nil {
			log.Fatal(err)
		}
	}
	_, err = mem.Ingest(ctx, kgmem.KnowledgePage{ID: "chat-2", Content: "Maria and 李雷 are colleagues."}, kgmem.Extraction{
		Entities:  []kgmem.ExtractedEntity{{Name: "Maria", Type: "person"}, {Name: "李雷", Type: "person"}},
		Relations: []kgmem.ExtractedRelation{{Source: "Maria", Target: "李雷", Type: "colleague_of"}},
	})
	if err != nil {
		log.Fatal(err)
	}

	for _, q := range []string{
		"Where did Maria live in 2023?", "Where did Maria live before Lisbon?", "Maria现在住在哪里？",
		"Where has Maria lived?", "How is Maria related to 李雷?",
	} {
		res, err := mem.Retriever().Retrieve(ctx, q)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s\n  %s\n", q, res.Items[0].Explain())
	}
	// Output:
	// Where did Maria live in 2023?
	//   Maria —lives_in→ Berlin (2019 → 2024-03) (lives_in ← "live"; city ← "Where"; as of 2023 ← "in 2023")
	// Where did Maria live before Lisbon?
	//   Maria —lives_in→ Berlin (2019 → 2024-03) (lives_in ← "live"; city ← "Where"; as of just before 2024-03 ← "before Lisbon")
	// Maria现在住在哪里？
	//   Maria —lives_in→ Lisbon (2024-03 →) (lives_in ← "住在"; city ← "在哪"; as of now ← "现在")
	// Where has Maria lived?
	//   Maria —lives_in→ Berlin (2019 → 2024-03) (lives_in ← "lived"; city ← "Where"; all time ← "has lived")
	// How is Maria related to 李雷?
	//   Maria —colleague_of→ 李雷
}
