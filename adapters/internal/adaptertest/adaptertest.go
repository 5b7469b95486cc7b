// Package adaptertest holds what the adapters' tests share: a memory that
// links by meaning through an embedder counting what it embeds, to check
// that an adapter uses the memory's own retriever.
package adaptertest

import (
	"context"
	"sync"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/kgmemtest"
)

// CountingEmbedder is a kgmemtest.HashEmbedder that records every text it
// embeds.
type CountingEmbedder struct {
	kgmemtest.HashEmbedder
	mu    sync.Mutex
	texts map[string]int
}

// Embed counts texts and embeds them.
func (e *CountingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	if e.texts == nil {
		e.texts = make(map[string]int)
	}
	for _, s := range texts {
		e.texts[s]++
	}
	e.mu.Unlock()
	return e.HashEmbedder.Embed(ctx, texts)
}

// EntityIDs are the entities of Memory's memory.
var EntityIDs = []string{"person:张三", "project:项目a", "team:基础架构部"}

// EntityTexts returns how many times the text of each of mem's EntityIDs
// (kgmem.EntityText) was embedded.
func (e *CountingEmbedder) EntityTexts(mem *kgmem.Memory) map[string]int {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := map[string]int{}
	for _, id := range EntityIDs {
		ent, ok, err := mem.Graph().GetEntity(context.Background(), id)
		if err == nil && ok {
			out[id] = e.texts[kgmem.EntityText(ent)]
		}
	}
	return out
}

// Embedded returns the count EntityTexts reports when every entity's text
// was embedded n times.
func Embedded(n int) map[string]int {
	out := make(map[string]int, len(EntityIDs))
	for _, id := range EntityIDs {
		out[id] = n
	}
	return out
}

// Memory opens a memory in a temporary directory that embeds with a new
// CountingEmbedder, closed when t ends, and ingests one page: 张三 works on
// 项目A, and the team 基础架构部.
func Memory(t testing.TB) (*kgmem.Memory, *CountingEmbedder) {
	t.Helper()
	emb := &CountingEmbedder{}
	mem, err := kgmem.OpenMemory(t.TempDir(), kgmem.WithEmbedder(emb))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mem.Close() })
	_, err = mem.Ingest(context.Background(), kgmem.KnowledgePage{ID: "chat-42", Content: "张三负责项目A。"}, kgmem.Extraction{
		Entities:  []kgmem.ExtractedEntity{{Name: "张三", Type: "person", Description: "工程师"}, {Name: "项目A", Type: "project"}, {Name: "基础架构部", Type: "team"}},
		Relations: []kgmem.ExtractedRelation{{Source: "张三", Target: "项目A", Type: "works_on"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return mem, emb
}
