package kgmem_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/kgmem/kgmem"
)

// A user's memory searched together with the team's knowledge base: one
// directory, one memory per scope, and one Retrieve over the scopes a
// call names. Nothing written to one scope is visible from another.
func ExampleMemories_Retrieve() {
	dir, err := os.MkdirTemp("", "kgmem-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	ctx := context.Background()
	ms, err := kgmem.OpenMemories(dir) // at most 64 memories open at once; idle ones are closed
	if err != nil {
		log.Fatal(err)
	}
	defer ms.Close()

	// The user's own memory: what the agent learnt in conversation.
	user, release, err := ms.Memory(ctx, "user:alice")
	if err != nil {
		log.Fatal(err)
	}
	_, err = user.Ingest(ctx, kgmem.KnowledgePage{ID: "chat-7", Title: "Chat", Content: "Alice is on call for the billing service this week."},
		kgmem.Extraction{
			Entities:  []kgmem.ExtractedEntity{{Name: "Alice", Type: "person"}, {Name: "billing service", Type: "service"}},
			Relations: []kgmem.ExtractedRelation{{Source: "Alice", Target: "billing service", Type: "on_call_for"}},
		})
	release() // the memory may now be closed when idle; Memory reopens it
	if err != nil {
		log.Fatal(err)
	}

	// The team's knowledge base.
	kb, release, err := ms.Memory(ctx, "kb:platform")
	if err != nil {
		log.Fatal(err)
	}
	err = kb.Store().Put(ctx, kgmem.KnowledgePage{ID: "runbook-1", Title: "Billing runbook",
		Content: "To restart the billing service, drain the queue first, then redeploy."})
	release()
	if err != nil {
		log.Fatal(err)
	}

	// Another user's memory, which this call does not name.
	bob, release, err := ms.Memory(ctx, "user:bob")
	if err != nil {
		log.Fatal(err)
	}
	err = bob.Store().Put(ctx, kgmem.KnowledgePage{ID: "chat-9", Content: "Bob thinks the billing service is slow."})
	release()
	if err != nil {
		log.Fatal(err)
	}

	res, err := ms.Retrieve(ctx, "who is on call for the billing service?", []string{"user:alice", "kb:platform"})
	if err != nil {
		log.Fatal(err)
	}
	for _, it := range res.Items {
		fmt.Printf("%.2f %-11s %-6s %s\n", it.Score, it.Scope, it.Kind, it.Explain())
	}
	scopes, err := ms.Scopes(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(scopes)
	// Output:
	// 0.70 user:alice  entity billing service ←on_call_for— Alice (on_call_for ← "call"; person ← "who")
	// 0.70 user:alice  page   billing service ←on_call_for— Alice —mentioned_in→ Chat (on_call_for ← "call")
	// 0.42 user:alice  entity billing service
	// 0.05 kb:platform page   Billing runbook
	// [kb:platform user:alice user:bob]
}
