// Package kgmemgenkit plugs kgmem into Firebase Genkit for Go
// (github.com/firebase/genkit/go): [DefineRetriever] registers a Genkit
// retriever whose documents are what kgmem's hybrid retriever returns for
// the query, best first.
//
// The adapter converts types and maps options; retrieval is kgmem's own.
//
// # Documents
//
// Each kgmem.RetrievalItem becomes one text document, mapped as every
// kgmem adapter maps it: a page's content, or an entity's explanation (its
// path, kgmem.RetrievalItem.Explain) and, on the next line, its
// description. Genkit documents have no ID or score field, so the ID and
// the score are in Metadata, under MetaID and MetaScore, with the other
// keys listed in kgmem's README ("Use it with…"), the same in every kgmem
// adapter, which the Meta* constants name.
//
// # Retriever
//
// The retriever answers with one kgmem.MemoryRetriever: a memory's own
// (RetrieverConfig.Retriever: mem.Retriever(), which links by meaning with
// the memory's embedder and keeps its entity vectors), or one that Func
// builds over a store and a graph. A request's Options become kgmem's
// per-call options of that retriever; no request builds another.
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
	"slices"
	"strings"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/core"
	"github.com/firebase/genkit/go/genkit"
	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/adapters/internal/docmeta"
	"github.com/kgmem/kgmem/internal/errmsg"
)

// Metadata keys of the documents the retriever returns: the same keys,
// with the same values, in every kgmem adapter (see the package
// documentation).
const (
	// MetaID ("kgmem_id") holds the page ID or entity ID.
	MetaID = docmeta.ID
	// MetaKind ("kgmem_kind") holds "page" or "entity"
	// (kgmem.ItemKind.String).
	MetaKind = docmeta.Kind
	// MetaScore ("kgmem_score") holds the item's score (float64, in
	// [0,1]).
	MetaScore = docmeta.Score
	// MetaExplanation ("kgmem_explanation") holds
	// kgmem.RetrievalItem.Explain: the path that explains the item, as one
	// readable line.
	MetaExplanation = docmeta.Explanation
	// MetaPath ("kgmem_path") holds the entity IDs of the item's path
	// ([]string); absent when the item has no path.
	MetaPath = docmeta.Path
	// MetaRelations ("kgmem_relations") holds the relation types along the
	// path ([]string); absent when the item has no path.
	MetaRelations = docmeta.Relations
	// MetaTitle ("kgmem_title") holds a page's title; absent when it has
	// none.
	MetaTitle = docmeta.Title
	// MetaEntityType ("kgmem_entity_type") holds an entity's type; absent
	// when it has none.
	MetaEntityType = docmeta.EntityType
	// MetaEntityName ("kgmem_entity_name") holds an entity's name.
	MetaEntityName = docmeta.EntityName
	// MetaSource ("kgmem_source") names the knowledge store or graph the
	// item came from.
	MetaSource = docmeta.Source
	// MetaPageMetadata ("kgmem_page_metadata") holds a page's Metadata
	// (map[string]string); absent when it has none.
	MetaPageMetadata = docmeta.PageMetadata
	// MetaAsOf ("kgmem_as_of") holds kgmem.RetrievalItem.AsOfLabel, the
	// time the query's words made the graph channel walk at; absent when
	// none.
	MetaAsOf = docmeta.AsOf
	// MetaAsOfCue ("kgmem_as_of_cue") holds kgmem.RetrievalItem.AsOfCue,
	// the words that set it; absent when none.
	MetaAsOfCue = docmeta.AsOfCue
)

// RetrieverConfig says what the retriever searches and how: either a ready
// Retriever, or at least one of Store and Graph.
type RetrieverConfig struct {
	// Retriever is the kgmem retriever to answer with: mem.Retriever() for
	// a kgmem.Memory, which links by meaning with the memory's embedder and
	// keeps its entity vectors from request to request. When it is set,
	// Store, Graph and Config must be empty.
	Retriever *kgmem.MemoryRetriever
	// Store is the content channel; nil for none. Without Retriever, Func
	// builds one kgmem.MemoryRetriever over Store and Graph.
	Store kgmem.KnowledgeStore
	// Graph is the graph channel; nil for none.
	Graph kgmem.KnowledgeGraph
	// Config configures the retriever Func builds; Options.K overrides its
	// MaxResults for one request.
	Config kgmem.RetrieverConfig
	// Strategy is the default strategy (the zero value is kgmem.Hybrid).
	// With Retriever, the zero value keeps that retriever's strategy.
	Strategy kgmem.RetrievalStrategy
	// Expansion is how the graph channel expands the entities a query
	// names (see kgmem.WithExpansion); nil means the retriever's own
	// (kgmem's default: walks of up to kgmem.DefaultWalkHops hops in both
	// directions).
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
// neither Retriever, Store nor Graph, sets Retriever with Store, Graph or
// Config, or name is empty. Like every Genkit Define function, it panics
// when g already holds a retriever of that name.
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
	r, err := docmeta.Retriever("kgmemgenkit: new retriever", cfg.Retriever, cfg.Store, cfg.Graph, cfg.Config)
	if err != nil {
		return nil, err
	}
	var base []kgmem.RetrieverOption
	if cfg.Retriever == nil || cfg.Strategy != kgmem.Hybrid {
		base = append(base, kgmem.WithStrategy(cfg.Strategy))
	}
	if cfg.Expansion != nil {
		exp := *cfg.Expansion
		exp.RelationTypes = slices.Clone(exp.RelationTypes) // the caller may change theirs later
		base = append(base, kgmem.WithExpansion(exp))
	}
	return func(ctx context.Context, req *ai.RetrieverRequest) (*ai.RetrieverResponse, error) {
		return retrieve(ctx, r, base, req)
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

// parseStrategy reads a request's strategy; ok is false for "", which
// keeps the configured one.
func parseStrategy(s string) (strategy kgmem.RetrievalStrategy, ok bool, err error) {
	switch strings.ToLower(s) {
	case "":
		return 0, false, nil
	case "hybrid":
		return kgmem.Hybrid, true, nil
	case "knowledge":
		return kgmem.KnowledgeOnly, true, nil
	case "graph":
		return kgmem.GraphOnly, true, nil
	}
	return 0, false, fmt.Errorf("kgmemgenkit: retrieve: unknown strategy %q (want hybrid, knowledge or graph): %w", s, kgmem.ErrInvalidArgument)
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

func retrieve(ctx context.Context, r *kgmem.MemoryRetriever, base []kgmem.RetrieverOption, req *ai.RetrieverRequest) (*ai.RetrieverResponse, error) {
	query, err := queryText(req)
	if err != nil {
		return nil, err
	}
	o, err := requestOptions(req.Options)
	if err != nil {
		return nil, err
	}
	strategy, setStrategy, err := parseStrategy(o.Strategy)
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
	opts := slices.Clone(base)
	if o.K > 0 {
		opts = append(opts, kgmem.WithMaxResults(o.K))
	}
	if setStrategy {
		opts = append(opts, kgmem.WithStrategy(strategy))
	}
	if o.NoExpansion {
		opts = append(opts, kgmem.WithNoExpansion())
	}
	if o.Depth > 0 {
		opts = append(opts, kgmem.WithDepth(o.Depth))
	}
	if len(o.RelationTypes) > 0 {
		opts = append(opts, kgmem.WithRelationTypes(o.RelationTypes...))
	}
	res, err := r.Retrieve(ctx, query, opts...)
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
// an entity. Its text and Metadata are those of every kgmem adapter (see
// the package documentation).
func Document(it kgmem.RetrievalItem) *ai.Document {
	d, ok := docmeta.FromItem(it)
	if !ok {
		return nil
	}
	return ai.DocumentFromText(d.Content, d.Meta)
}
