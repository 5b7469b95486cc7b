// Command timeline shows facts that change: an agent learns where Alice
// lives and works from a model's extractions over time, each new home
// ending the previous one instead of deleting it or keeping two truths,
// an older fact arriving late going into the history, and a job ending.
// It then answers "where does Alice live?" (now) and "where did Alice live
// in 2023?" (as of that year) from the same graph, and prints Alice's
// timeline. Offline and deterministic: the clock is fixed.
//
//	go run ./examples/timeline
package main

import (
	"context"
	"fmt"
	"log"
	"regexp"
	"time"

	"github.com/kgmem/kgmem"
)

// learned are the model's extractions, in the order the agent read them.
var learned = []struct{ said, output string }{
	{"Alice has lived in Berlin since 2019 and has worked at Acme since April 2018.", `{
  "entities": [{"name": "Alice", "type": "person"}, {"name": "Berlin", "type": "city"}, {"name": "Acme", "type": "company"}],
  "relations": [
    {"source": "Alice", "type": "lives_in", "target": "Berlin", "since": 2019},
    {"source": "Alice", "type": "works_at", "target": "Acme", "start": "2018-04"}
  ]}`},
	{"Alice moved to Lisbon in May 2024.", `{
  "entities": [{"name": "Lisbon", "type": "city"}],
  "relations": [{"source": "Alice", "type": "lives_in", "target": "Lisbon", "valid_from": "2024-05-01"}]}`},
	{"Alice moved to Lisbon in May 2024.", `{
  "relations": [{"source": "Alice", "type": "lives_in", "target": "Lisbon", "valid_from": "2024-05-01"}]}`},
	{"Before Berlin, Alice lived in Paris, from September 2015.", `{
  "entities": [{"name": "Paris", "type": "city"}],
  "relations": [{"source": "Alice", "type": "lives_in", "target": "Paris", "start": "2015-09"}]}`},
	{"Alice left Acme at the end of June 2025.", `{
  "relations": [{"source": "Alice", "type": "works_at", "target": "Acme", "ended": "2025-07"}]}`},
}

func main() {
	ctx := context.Background()
	now := time.Date(2026, 1, 15, 9, 0, 0, 0, time.UTC)
	g := kgmem.NewInMemoryGraph(
		kgmem.WithClock(func() time.Time { return now }),
		kgmem.WithSingleValued("lives_in", "works_at"),
	)
	for _, l := range learned {
		x, err := kgmem.ParseExtraction([]byte(l.output))
		if err != nil {
			log.Fatal(err)
		}
		rep, err := kgmem.Ingest(ctx, g, x)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("learned %q: %d new, %d updated, %d unchanged\n", l.said, rep.RelationsCreated, rep.RelationsUpdated, rep.RelationsUnchanged)
		for _, r := range rep.Ended {
			fmt.Printf("  ended: %s %s %s (%s)\n", r.SourceID, r.Type, r.TargetID, r.ValidityString())
		}
	}

	for _, q := range []string{"Where does Alice live?", "Where did Alice live in 2023?", "Where did Alice live in 2016?", "Where does Alice work?"} {
		at := asOf(q)
		r := kgmem.NewMemoryRetriever(nil, kgmem.RetrieverConfig{MaxResults: 1},
			kgmem.WithKnowledgeGraph(g), kgmem.WithStrategy(kgmem.GraphOnly),
			kgmem.WithAsOf(at))
		res, err := r.Retrieve(ctx, q)
		if err != nil {
			log.Fatal(err)
		}
		answer := "nothing"
		if len(res.Items) > 0 && len(res.Items[0].Path) > 1 {
			answer = res.Items[0].Explain()
		}
		fmt.Printf("Q: %s\nA: %s\n", q, answer)
	}

	fmt.Println("timeline of person:alice:")
	history, err := kgmem.History(ctx, g, "person:alice", kgmem.HistoryOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range history {
		fmt.Printf("  %s %s (%s)\n", r.Type, r.TargetID, r.ValidityString())
	}
}

// year finds a year in a question.
var year = regexp.MustCompile(`\b(1[89]|20)\d\d\b`)

// asOf is the instant a question asks about: the middle of the year it
// names, or now (the zero AsOf) when it names none.
func asOf(q string) kgmem.AsOf {
	y := year.FindString(q)
	if y == "" {
		return kgmem.AsOf{}
	}
	t, err := kgmem.ParseValidTime(y)
	if err != nil {
		log.Fatal(err)
	}
	return kgmem.At(t.AddDate(0, 6, 0))
}
