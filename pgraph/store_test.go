package pgraph

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
)

// newTestStore returns a Store over a namespace no other test uses,
// cleared at the end of the test.
func newTestStore(tb testing.TB) *Store {
	tb.Helper()
	pool := needDB(tb)
	s, err := NewStore(context.Background(), pool, WithNamespace(randomNamespace("store")))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := s.Clear(context.Background()); err != nil {
			tb.Errorf("clearing the pages of %q: %v", s.Namespace(), err)
		}
	})
	return s
}

// sameSearch requires the answers of Search on ref and s to be the same
// pages in the same order, with scores equal within float rounding.
func sameSearch(t *testing.T, ref kgmem.KnowledgeStore, s *Store, query string, limit int) int {
	t.Helper()
	want, werr := ref.Search(t.Context(), query, limit)
	got, gerr := s.Search(t.Context(), query, limit)
	if (werr == nil) != (gerr == nil) || werr != nil && !errors.Is(gerr, kgmem.ErrInvalidArgument) {
		t.Fatalf("Search(%q, %d): error %v, want %v", query, limit, gerr, werr)
	}
	if len(got) != len(want) {
		t.Fatalf("Search(%q, %d): %d pages, want %d:\ngot  %v\nwant %v", query, limit, len(got), len(want), pageIDs(got), pageIDs(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i].Page, want[i].Page) {
			t.Fatalf("Search(%q, %d): result %d is\n%+v, want\n%+v", query, limit, i, got[i].Page, want[i].Page)
		}
		if d := math.Abs(got[i].Score - want[i].Score); d > 1e-12 {
			t.Fatalf("Search(%q, %d): result %d (%s) scores %.17g, want %.17g", query, limit, i, want[i].Page.ID, got[i].Score, want[i].Score)
		}
	}
	return len(want)
}

func pageIDs(ps []kgmem.ScoredPage) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = fmt.Sprintf("%s:%.6f", p.Page.ID, p.Score)
	}
	return out
}

// storeWords are the words random pages and queries are made of: English
// (with plurals the tokeniser folds), Chinese (cut into bigrams), stop
// words and punctuation.
var storeWords = []string{
	"graph", "graphs", "memory", "agent", "agents", "retrieval", "the", "of", "and", "policy",
	"policies", "classes", "class", "status", "Raft", "consensus", "leader", "election",
	"张三", "负责", "知识图谱", "检索", "增强", "生成", "的", "了", "项目", "阿波罗",
	"API", "ＡＰＩ", "go", "Go", "x", "42", "v1.2", ",", "。", "？", "—",
}

func randomPageText(rng *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 && rng.IntN(4) > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(storeWords[rng.IntN(len(storeWords))])
	}
	return b.String()
}

// TestStoreMatchesInMemory applies one random sequence of puts, batches,
// deletes and searches to kgmem's in-memory store and to a Store, and
// requires every answer to be the same.
func TestStoreMatchesInMemory(t *testing.T) {
	ctx := t.Context()
	for history := range uint64(3) {
		t.Run(fmt.Sprint("history=", history), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(history, 0x5707e))
			ref := kgmem.NewInMemoryKnowledgeStore()
			s := newTestStore(t)
			page := func() kgmem.KnowledgePage {
				p := kgmem.KnowledgePage{ID: fmt.Sprintf("p%d", rng.IntN(60)), Content: randomPageText(rng, 1+rng.IntN(40))}
				if rng.IntN(3) > 0 {
					p.Title = randomPageText(rng, 1+rng.IntN(5))
				}
				switch rng.IntN(4) {
				case 0:
					p.Tags = []string{"a", randomPageText(rng, 1)}
				case 1:
					p.Tags = []string{}
					p.Metadata = map[string]string{}
				case 2:
					p.Metadata = map[string]string{"k": randomPageText(rng, 2)}
				}
				return p
			}
			searches, results := 0, 0
			for step := range 300 {
				switch op := rng.IntN(10); {
				case op < 4:
					p := page()
					if err, gerr := ref.Put(ctx, p), s.Put(ctx, p); (err == nil) != (gerr == nil) {
						t.Fatalf("step %d: Put: %v, want %v", step, gerr, err)
					}
				case op < 5:
					var ps []kgmem.KnowledgePage
					for range rng.IntN(8) {
						ps = append(ps, page())
					}
					if err, gerr := ref.PutBatch(ctx, ps), s.PutBatch(ctx, ps); (err == nil) != (gerr == nil) {
						t.Fatalf("step %d: PutBatch: %v, want %v", step, gerr, err)
					}
				case op < 6:
					id := fmt.Sprintf("p%d", rng.IntN(60))
					err, gerr := ref.Delete(ctx, id), s.Delete(ctx, id)
					if errors.Is(err, kgmem.ErrNotFound) != errors.Is(gerr, kgmem.ErrNotFound) || (err == nil) != (gerr == nil) {
						t.Fatalf("step %d: Delete(%q): %v, want %v", step, id, gerr, err)
					}
				case op < 7:
					id := fmt.Sprintf("p%d", rng.IntN(60))
					want, wok, _ := ref.Get(ctx, id)
					got, gok, err := s.Get(ctx, id)
					if err != nil || wok != gok || !reflect.DeepEqual(want, got) {
						t.Fatalf("step %d: Get(%q) = %+v, %v, %v; want %+v, %v", step, id, got, gok, err, want, wok)
					}
				default:
					searches++
					results += sameSearch(t, ref, s, randomPageText(rng, 1+rng.IntN(6)), rng.IntN(15))
				}
				if n, err := s.Len(ctx); err != nil || n != ref.Len() {
					t.Fatalf("step %d: Len = %d, %v; want %d", step, n, err, ref.Len())
				}
			}
			if searches == 0 || results == 0 {
				t.Fatalf("%d searches found %d pages", searches, results)
			}
			t.Logf("%d searches compared, %d pages found", searches, results)
		})
	}
}

// TestStoreRejects checks the pages and queries a Store refuses, and that
// a refused batch stores nothing.
func TestStoreRejects(t *testing.T) {
	ctx := t.Context()
	s := newTestStore(t)
	for _, tc := range []struct {
		name string
		page kgmem.KnowledgePage
		want error
	}{
		{"empty ID", kgmem.KnowledgePage{Content: "x"}, kgmem.ErrInvalidArgument},
		{"blank ID", kgmem.KnowledgePage{ID: " \t", Content: "x"}, kgmem.ErrInvalidArgument},
		{"invalid title", kgmem.KnowledgePage{ID: "p", Title: "\xff"}, kgmem.ErrInvalidArgument},
		{"NUL in content", kgmem.KnowledgePage{ID: "p", Content: "a\x00b"}, kgmem.ErrInvalidArgument},
		{"NUL in metadata", kgmem.KnowledgePage{ID: "p", Metadata: map[string]string{"k": "\x00"}}, kgmem.ErrInvalidArgument},
		{"long ID", kgmem.KnowledgePage{ID: strings.Repeat("x", kgmem.MaxIDBytes+1)}, kgmem.ErrInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := s.PutBatch(ctx, []kgmem.KnowledgePage{{ID: "ok", Content: "fine"}, tc.page})
			if !errors.Is(err, tc.want) {
				t.Fatalf("PutBatch: %v, want %v", err, tc.want)
			}
			if n, err := s.Len(ctx); err != nil || n != 0 {
				t.Fatalf("after a refused batch Len = %d, %v", n, err)
			}
		})
	}
	if _, err := s.Search(ctx, "bad\xff", 3); !errors.Is(err, kgmem.ErrInvalidArgument) {
		t.Fatalf("Search(invalid UTF-8): %v", err)
	}
	if err := s.Delete(ctx, "missing"); !errors.Is(err, kgmem.ErrNotFound) {
		t.Fatalf("Delete(missing): %v", err)
	}
	// A term longer than an index entry may be is stored by its hash and
	// still found.
	long := strings.Repeat("ab", 2000)
	ref := kgmem.NewInMemoryKnowledgeStore()
	for _, st := range []kgmem.KnowledgeStore{ref, s} {
		if err := st.(interface {
			Put(context.Context, kgmem.KnowledgePage) error
		}).Put(ctx, kgmem.KnowledgePage{ID: "long", Content: long + " tail"}); err != nil {
			t.Fatal(err)
		}
	}
	if n := sameSearch(t, ref, s, long, 3); n != 1 {
		t.Fatalf("the long term found %d pages", n)
	}
}

// TestStoreCranfield stores the Cranfield collection in a Store and in
// kgmem's in-memory store, and requires every one of its 225 queries to
// give the same top 100 with the same scores. It is an evaluation
// (KGMEM_EVAL=1), reading KGMEM_DATA (default ../../shared/data).
func TestStoreCranfield(t *testing.T) {
	if os.Getenv("KGMEM_EVAL") == "" {
		t.Skip("an evaluation: set KGMEM_EVAL=1 to run it")
	}
	root := os.Getenv("KGMEM_DATA")
	if root == "" {
		root = filepath.Join("..", "..", "shared", "data")
	}
	dir := filepath.Join(root, "cranfield")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("cranfield not available (KGMEM_DATA=%q): %v", root, err)
	}
	docs := readSMART(t, filepath.Join(dir, "cran.all.1400"))
	queries := readSMART(t, filepath.Join(dir, "cran.qry"))
	if len(docs) != 1400 || len(queries) != 225 {
		t.Fatalf("%d documents and %d queries, want 1400 and 225", len(docs), len(queries))
	}
	var pages []kgmem.KnowledgePage
	for _, d := range docs {
		pages = append(pages, kgmem.KnowledgePage{ID: d.id, Title: d.fields["T"], Content: d.fields["W"]})
	}
	ref := kgmem.NewInMemoryKnowledgeStore()
	s := newTestStore(t)
	must(t, ref.PutBatch(t.Context(), pages))
	must(t, s.PutBatch(t.Context(), pages))
	found := 0
	for _, q := range queries {
		found += sameSearch(t, ref, s, q.fields["W"], 100)
	}
	t.Logf("225 queries, %d results compared", found)
}

type smartRecord struct {
	id     string
	fields map[string]string
}

// readSMART parses ".I n" records whose fields start with a line ".X", as
// kgmem's Cranfield evaluation does.
func readSMART(t *testing.T, path string) []smartRecord {
	t.Helper()
	f, err := os.Open(path)
	must(t, err)
	defer f.Close()
	var recs []smartRecord
	var field string
	var text strings.Builder
	end := func() {
		if len(recs) > 0 && field != "" {
			fields := recs[len(recs)-1].fields
			fields[field] = strings.TrimSpace(fields[field] + "\n" + text.String())
		}
		field = ""
		text.Reset()
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, ".I "):
			end()
			recs = append(recs, smartRecord{id: strings.TrimSpace(line[3:]), fields: map[string]string{}})
		case len(line) == 2 && line[0] == '.' && strings.Contains("TABW", line[1:]):
			end()
			field = line[1:]
		default:
			text.WriteString(line)
			text.WriteByte('\n')
		}
	}
	end()
	must(t, sc.Err())
	return recs
}
