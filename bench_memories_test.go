package kgmem_test

import (
	"context"
	"encoding/base32"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/kgmem/kgmem"
)

// fillScope writes facts facts into scope: each an Ingest of a page
// stating one relation between two of the scope's people.
func fillScope(b *testing.B, ms *kgmem.Memories, scope string, facts int) {
	b.Helper()
	ctx := context.Background()
	m, release, err := ms.Memory(ctx, scope)
	if err != nil {
		b.Fatal(err)
	}
	defer release()
	people := max(facts/2, 2)
	for i := range facts {
		a, c := fmt.Sprintf("person %d", i%people), fmt.Sprintf("person %d", (i*7+1)%people)
		if a == c {
			c = fmt.Sprintf("person %d", (i+1)%people)
		}
		_, err := m.Ingest(ctx, kgmem.KnowledgePage{
			ID: fmt.Sprintf("note-%d", i), Title: fmt.Sprintf("Note %d", i),
			Content: fmt.Sprintf("%s reviewed the billing design of %s in %s.", a, c, scope),
		}, kgmem.Extraction{
			Entities:  []kgmem.ExtractedEntity{{Name: a, Type: "person"}, {Name: c, Type: "person"}},
			Relations: []kgmem.ExtractedRelation{{Source: a, Target: c, Type: "reviewed"}},
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// reportQuantiles reports the p50 and p99 of times, in milliseconds.
func reportQuantiles(b *testing.B, times []time.Duration) {
	slices.Sort(times)
	q := func(p float64) float64 {
		return float64(times[min(len(times)-1, int(p*float64(len(times))))]) / float64(time.Millisecond)
	}
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
}

// BenchmarkMemoriesOpenClosed times Memory on a scope whose memory is
// closed: two scopes of 10 or 1,000 facts (an Ingest each: a page, two
// people, a relation) under WithMaxOpenMemories(1), asked for in turn, so
// every call closes the other scope's memory and opens this one's from its
// files. The 1,000 facts' journal is over 64 KiB, so the first close
// compacts it and later opens read a snapshot.
func BenchmarkMemoriesOpenClosed(b *testing.B) {
	for _, facts := range []int{10, 1000} {
		b.Run(fmt.Sprintf("facts=%d", facts), func(b *testing.B) {
			ctx := context.Background()
			dir := b.TempDir()
			opts := []kgmem.MemoriesOption{kgmem.WithMaxOpenMemories(1), kgmem.WithMemoryOptions(kgmem.WithSync(kgmem.SyncNone))}
			ms, err := kgmem.OpenMemories(dir, opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer ms.Close()
			for _, s := range []string{"a", "b"} {
				fillScope(b, ms, s, facts)
			}
			times := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				_, release, err := ms.Memory(ctx, []string{"a", "b"}[i%2])
				if err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
				release()
			}
			b.StopTimer()
			reportQuantiles(b, times)
		})
	}
}

// BenchmarkMemoriesRetrieve times a cross-scope Retrieve over 1, 10 and
// 100 scopes of 50 facts each, all open (WithMaxOpenMemories(128)), at
// the default scope concurrency; compare scopes=10 and scopes=100 with
// scopes=1 of the same run.
func BenchmarkMemoriesRetrieve(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	ms, err := kgmem.OpenMemories(dir, kgmem.WithMaxOpenMemories(128), kgmem.WithMemoryOptions(kgmem.WithSync(kgmem.SyncNone)))
	if err != nil {
		b.Fatal(err)
	}
	defer ms.Close()
	var scopes []string
	for i := range 100 {
		s := fmt.Sprintf("user:%03d", i)
		fillScope(b, ms, s, 50)
		scopes = append(scopes, s)
	}
	for _, n := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("scopes=%d", n), func(b *testing.B) {
			times := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				res, err := ms.Retrieve(ctx, "who reviewed person 3", scopes[:n])
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Items) == 0 || len(res.Warnings) > 0 {
					b.Fatalf("%d items, warnings %v", len(res.Items), res.Warnings)
				}
				times = append(times, time.Since(start))
			}
			b.StopTimer()
			reportQuantiles(b, times)
		})
	}
}

// heapInUse returns the bytes of live heap objects after a collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var st runtime.MemStats
	runtime.ReadMemStats(&st)
	return st.HeapAlloc
}

// idleFixture makes total scopes of 10 facts each in a new directory
// under parent: one is filled, the others are copies of its files, as
// the scopes of 10,000 users who each came once would be.
func idleFixture(b *testing.B, parent string, total int) string {
	b.Helper()
	dir := filepath.Join(parent, fmt.Sprintf("scopes-%d", total))
	tmpl := filepath.Join(parent, "template")
	if _, err := os.Stat(tmpl); err != nil {
		ms, err := kgmem.OpenMemories(tmpl, kgmem.WithMemoryOptions(kgmem.WithSync(kgmem.SyncNone)))
		if err != nil {
			b.Fatal(err)
		}
		fillScope(b, ms, "template", 10)
		if err := ms.Close(); err != nil {
			b.Fatal(err)
		}
	}
	src := filepath.Join(tmpl, base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding).EncodeToString([]byte("template")))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	for i := range total {
		copyTree(b, src, filepath.Join(dir, testScopeEncoding.EncodeToString([]byte(idleScope(i)))))
	}
	return dir
}

// idleScope is the name of the i-th scope of idleFixture.
func idleScope(i int) string { return fmt.Sprintf("user:%05d", i) }

// BenchmarkMemoriesIdleScopes measures the heap a Memories holds with 100
// active scopes (each leased, 10 facts) when 100 scopes exist (scopes=100)
// and when 10,000 exist and every one of them was opened once before
// (scopes=10000; WithMaxOpenMemories(100) closed the others). heap-B is
// the heap in use after opening every scope once and leasing the last
// 100, less the heap before OpenMemories; compare the two sub-benchmarks.
// Each iteration is a Retrieve over the 100 active scopes.
func BenchmarkMemoriesIdleScopes(b *testing.B) {
	parent := b.TempDir()
	for _, total := range []int{100, 10_000} {
		dir := idleFixture(b, parent, total)
		b.Run(fmt.Sprintf("scopes=%d/active=100", total), func(b *testing.B) {
			ctx := context.Background()
			opts := []kgmem.MemoriesOption{kgmem.WithMaxOpenMemories(100), kgmem.WithMemoryOptions(kgmem.WithSync(kgmem.SyncNone))}
			before := heapInUse()
			ms, err := kgmem.OpenMemories(dir, opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer ms.Close()
			var active []string
			var releases []func()
			for i := range total {
				s := idleScope(i)
				_, release, err := ms.Memory(ctx, s)
				if err != nil {
					b.Fatal(err)
				}
				if i >= total-100 {
					active = append(active, s)
					releases = append(releases, release)
				} else {
					release()
				}
			}
			held := heapInUse()
			open := ms.NumOpen()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := ms.Retrieve(ctx, "who reviewed person 3", active); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(held)-float64(before), "heap-B")
			b.ReportMetric(float64(open), "open")
			for _, r := range releases {
				r()
			}
		})
	}
}
