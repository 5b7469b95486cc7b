package kgmem_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

func TestZZLat(t *testing.T) {
	if os.Getenv("ZZ") == "" {
		t.Skip()
	}
	dir := kgmem.EvalData(t, "musique-dev")
	set := xeLoadMusique(t, dir)
	b := xeBuild(t, set)
	ctx := context.Background()
	hy := kgmem.NewMemoryRetriever(b.store, kgmem.RetrieverConfig{MaxResults: 50}, kgmem.WithKnowledgeGraph(b.graph))
	type ql struct {
		q string
		d time.Duration
	}
	var ls []ql
	for _, q := range set.questions {
		best := time.Hour
		for i := 0; i < 7; i++ {
			s := time.Now()
			hy.Retrieve(ctx, q.Question)
			best = min(best, time.Since(s))
		}
		ls = append(ls, ql{q.Question, best})
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].d > ls[j].d })
	for _, l := range ls[:8] {
		fmt.Println(l.d, l.q)
	}
	fmt.Println("median", ls[len(ls)/2].d)
}

func TestZZProf(t *testing.T) {
	if os.Getenv("ZZ") == "" {
		t.Skip()
	}
	dir := kgmem.EvalData(t, "musique-dev")
	set := xeLoadMusique(t, dir)
	b := xeBuild(t, set)
	ctx := context.Background()
	hy := kgmem.NewMemoryRetriever(b.store, kgmem.RetrieverConfig{MaxResults: 50}, kgmem.WithKnowledgeGraph(b.graph))
	q := os.Getenv("ZZQ")
	s := time.Now()
	for i := 0; i < 2000; i++ {
		hy.Retrieve(ctx, q)
	}
	fmt.Println(time.Since(s) / 2000)
}
