// Package kgmemgenkit plugs kgmem into Firebase Genkit for Go
// (github.com/firebase/genkit/go): [DefineRetriever] registers a Genkit
// retriever whose documents are what kgmem's hybrid retriever returns for
// the query, best first.
//
// The adapter converts types and maps options; retrieval is kgmem's own.
//
// # Documents
//
// Each kgmem.RetrievalItem becomes one text document: a page's content, or
// an entity's explanation (its path, kgmem.RetrievalItem.Explain) and
// description. Genkit documents have no score field, so the score is in
// Metadata under MetaScore, with the other Meta* keys.
//
// # Options
//
// A request's Options may be an [Options], a *Options, or, from Genkit's
// developer UI and other JSON callers, the same fields as a JSON object;
// nil means the defaults.
//
// # Errors
//
// Bad arguments and options return errors that wrap kgmem.ErrInvalidArgument
// and start with "kgmemgenkit: "; errors from kgmem are wrapped, so
// errors.Is sees their sentinels.
package kgmemgenkit

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/core"
	"github.com/firebase/genkit/go/genkit"
	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/errmsg"
)

// Metadata keys of the documents the retriever returns.
const (
	// MetaScore holds the item's score (float64, in [0,1]).
	MetaScore = "score"
	// MetaID holds the page ID or entity ID.
	MetaID = "kgmem_id"
	// MetaKind holds "page" or "entity" (kgmem.ItemKind.String).
	MetaKind = "kgmem_kind"
	// MetaExplanation holds kgmem.RetrievalItem.Explain.
	MetaExplanation = "kgmem_explanation"
	// MetaPath holds the entity IDs of the item's path ([]string); absent
	// when the item has no path.
	MetaPath = "kgmem_path"
	// MetaTitle holds a page's title; absent when it has none.
	MetaTitle = "kgmem_title"
	// MetaEntityType holds an entity's type; absent when it has none.
	MetaEntityType = "kgmem_entity_type"
)

// RetrieverConfig says what the retriever searches and how. At least one of
// Store and Graph must be set.
type RetrieverConfig struct {
	// Store is the content channel; nil for none (mem.Store() for a
	// kgmem.Memory).
	Store kgmem.KnowledgeStore
	// Graph is the graph channel; nil for none (mem.Graph() for a
	// kgmem.Memory).
	Graph kgmem.KnowledgeGraph
	// Config configures kgmem's retriever; Options.K overrides its
	// MaxResults for one request.
	Config kgmem.RetrieverConfig
	// Strategy is the default strategy (the zero value is kgmem.Hybrid).
	Strategy kgmem.RetrievalStrategy
	// Expansion is how the graph channel expands the entities a query
	// names (see kgmem.WithExpansion); nil means kgmem's default, walks of
	// up to kgmem.DefaultWalkHops hops in both directions.
	Expansion *kgmem.TraverseOptions
}

// Options are the per-request options of the retriever. Zero fields keep
// the configuration's values.
type Options struct {
	// K is how many documents to return at most; 0 keeps the
	// configuration's MaxResults.
	K int `json:"k,omitempty"`
	// Strategy is "hybrid", "knowledge" or "graph"; "" keeps the
	// configuration's.
	Strategy string `json:"strategy,omitempty"`
	// Depth, when positive, is how many hops the graph channel walks from
	// the entities the query names; 0 keeps the configuration's.
	Depth int `json:"depth,omitempty"`
	// NoExpansion makes the graph channel return only the entities the
	// query names (kgmem.RetrieverConfig.NoExpansion).
	NoExpansion bool `json:"no_expansion,omitempty"`
	// RelationTypes, when not empty, are the only relation types the graph
	// channel walks.
	RelationTypes []string `json:"relation_types,omitempty"`
	// ScoreThreshold drops documents scoring below it; 0 keeps all.
	ScoreThreshold float64 `json:"score_threshold,omitempty"`
}

// DefineRetriever registers a retriever named name with g and returns it.
// It fails with an error wrapping kgmem.ErrInvalidArgument when cfg sets
// neither Store nor Graph or name is empty. Like every Genkit Define
// function, it panics when g already holds a retriever of that name.
func DefineRetriever(g *genkit.Genkit, name string, cfg RetrieverConfig) (ai.Retriever, error) {
	fn, err := Func(cfg)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(name) == "" {
		return nil, fmt.Errorf("kgmemgenkit: define retriever: empty name: %w", kgmem.ErrInvalidArgument)
	}
	return genkit.DefineRetriever(g, name, &ai.RetrieverOptions{
		Label:        "kgmem: " + name,
		ConfigSchema: core.InferSchemaMap(Options{}),
	}, fn), nil
}

// Func returns the retriever function DefineRetriever registers, for use
// with ai.NewRetriever. It fails as DefineRetriever does for cfg.
func Func(cfg RetrieverConfig) (ai.RetrieverFunc, error) {
	if cfg.Store == nil && cfg.Graph == nil {
		return nil, fmt.Errorf("kgmemgenkit: new retriever: neither Store nor Graph is set: %w", kgmem.ErrInvalidArgument)
	}
	var exp *kgmem.TraverseOptions
	if cfg.Expansion != nil {
		e := *cfg.Expansion
		e.RelationTypes = slices.Clone(e.RelationTypes)
		exp = &e
	}
	return func(ctx context.Context, req *ai.RetrieverRequest) (*ai.RetrieverResponse, error) {
		return retrieve(ctx, cfg, exp, req)
	}, nil
}

// requestOptions reads a request's Options.
func requestOptions(v any) (Options, error) {
	switch o := v.(type) {
	case nil:
		return Options{}, nil
	case Options:
		return o, nil
	case *Options:
		if o == nil {
			return Options{}, nil
		}
		return *o, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return Options{}, fmt.Errorf("kgmemgenkit: retrieve: options of type %T: %v: %w", v, err, kgmem.ErrInvalidArgument)
	}
	var o Options
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return Options{}, fmt.Errorf("kgmemgenkit: retrieve: options: %v: %w", err, kgmem.ErrInvalidArgument)
	}
	return o, nil
}

func parseStrategy(s string, def kgmem.RetrievalStrategy) (kgmem.RetrievalStrategy, error) {
	switch strings.ToLower(s) {
	case "":
		return def, nil
	case "hybrid":
		return kgmem.Hybrid, nil
	case "knowledge":
		return kgmem.KnowledgeOnly, nil
	case "graph":
		return kgmem.GraphOnly, nil
	}
	return 0, fmt.Errorf("kgmemgenkit: retrieve: unknown strategy %q (want hybrid, knowledge or graph): %w", s, kgmem.ErrInvalidArgument)
}

// queryText joins the text parts of the query document.
func queryText(req *ai.RetrieverRequest) (string, error) {
	if req == nil || req.Query == nil {
		return "", fmt.Errorf("kgmemgenkit: retrieve: no query document: %w", kgmem.ErrInvalidArgument)
	}
	var parts []string
	for _, p := range req.Query.Content {
		if p != nil && p.IsText() {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, " "), nil
}

func retrieve(ctx context.Context, cfg RetrieverConfig, base *kgmem.TraverseOptions, req *ai.RetrieverRequest) (*ai.RetrieverResponse, error) {
	query, err := queryText(req)
	if err != nil {
		return nil, err
	}
	o, err := requestOptions(req.Options)
	if err != nil {
		return nil, err
	}
	strategy, err := parseStrategy(o.Strategy, cfg.Strategy)
	if err != nil {
		return nil, err
	}
	if o.Depth < 0 {
		return nil, fmt.Errorf("kgmemgenkit: retrieve: negative depth %d: %w", o.Depth, kgmem.ErrInvalidArgument)
	}
	if o.K < 0 {
		return nil, fmt.Errorf("kgmemgenkit: retrieve: negative k %d: %w", o.K, kgmem.ErrInvalidArgument)
	}
	if !(o.ScoreThreshold >= 0 && o.ScoreThreshold <= 1) {
		return nil, fmt.Errorf("kgmemgenkit: retrieve: score threshold %v outside [0,1]: %w", o.ScoreThreshold, kgmem.ErrInvalidArgument)
	}
	rc := cfg.Config
	if o.K > 0 {
		rc.MaxResults = o.K
	}
	rc.NoExpansion = rc.NoExpansion || o.NoExpansion
	opts := []kgmem.RetrieverOption{kgmem.WithStrategy(strategy)}
	if base != nil || o.Depth > 0 || len(o.RelationTypes) > 0 {
		// kgmem's default, unless configured, modified by the request.
		exp := kgmem.TraverseOptions{Depth: kgmem.DefaultWalkHops, Direction: kgmem.Both}
		if base != nil {
			exp = *base
		}
		if o.Depth > 0 {
			exp.Depth = o.Depth
		}
		if len(o.RelationTypes) > 0 {
			exp.RelationTypes = o.RelationTypes
		}
		opts = append(opts, kgmem.WithExpansion(exp))
	}
	if cfg.Graph != nil {
		opts = append(opts, kgmem.WithKnowledgeGraph(cfg.Graph))
	}
	res, err := kgmem.NewMemoryRetriever(cfg.Store, rc, opts...).Retrieve(ctx, query)
	if err != nil {
		if ctx.Err() != nil && err == ctx.Err() {
			return nil, err
		}
		return nil, errmsg.Wrap("kgmemgenkit: retrieve", err)
	}
	resp := &ai.RetrieverResponse{Documents: []*ai.Document{}}
	for _, it := range res.Items {
		if it.Score < o.ScoreThreshold {
			continue
		}
		if d := Document(it); d != nil {
			resp.Documents = append(resp.Documents, d)
		}
	}
	return resp, nil
}

// Document converts one retrieval item into a Genkit text document, as the
// retriever does; it returns nil for an item that holds neither a page nor
// an entity.
func Document(it kgmem.RetrievalItem) *ai.Document {
	meta := map[string]any{
		MetaScore:       math.Min(1, math.Max(0, it.Score)),
		MetaID:          it.ID(),
		MetaKind:        it.Kind.String(),
		MetaExplanation: it.Explain(),
	}
	if len(it.Path) > 0 {
		meta[MetaPath] = slices.Clone(it.Path)
	}
	var text string
	switch {
	case it.Kind == kgmem.ItemPage && it.Page != nil:
		text = it.Page.Content
		if it.Page.Title != "" {
			meta[MetaTitle] = it.Page.Title
		}
	case it.Kind == kgmem.ItemEntity && it.Entity != nil:
		text = it.Explain()
		if d := strings.TrimSpace(it.Entity.Description); d != "" {
			text += "\n" + d
		}
		if it.Entity.Type != "" {
			meta[MetaEntityType] = it.Entity.Type
		}
	default:
		return nil
	}
	return ai.DocumentFromText(text, meta)
}
