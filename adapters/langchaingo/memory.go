package kgmemlangchain

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/errmsg"
	"github.com/tmc/langchaingo/memory"
	"github.com/tmc/langchaingo/schema"
)

// DefaultMemoryKey is the memory variable Memory fills unless
// MemoryConfig.MemoryKey says otherwise: "history", the variable
// langchaingo's conversation chain puts in its prompt.
const DefaultMemoryKey = "history"

// TurnExtractFunc returns what a model extracted from one conversation
// turn, to ingest with the turn's page. It may return an empty Extraction.
type TurnExtractFunc func(ctx context.Context, input, output string) (kgmem.Extraction, error)

// MemoryConfig configures a Memory. The zero value is valid.
type MemoryConfig struct {
	// MemoryKey is the memory variable to fill; "" means DefaultMemoryKey.
	// kgmem has no namespaces or tenants: a Memory is one kgmem.Memory
	// directory, and the key only names the prompt variable.
	MemoryKey string
	// InputKey names the input that holds the user's message, as in
	// langchaingo's memory.ConversationBuffer: "" means the only input.
	InputKey string
	// OutputKey names the output that holds the model's answer; "" means
	// the only output.
	OutputKey string
	// MaxChars bounds the context block (kgmem.RetrievalResult.ContextBlock);
	// 0 means no bound.
	MaxChars int
	// Retriever configures the retrieval behind the context block
	// (MaxResults, fusion, …); the zero value is kgmem's default. When it
	// sets nothing but MaxResults and NoExpansion, the memory's own
	// retriever (mem.Retriever(), which links by meaning with the memory's
	// embedder) answers, with those two as per-call options; any other
	// setting makes NewMemory build one retriever over mem.Store() and
	// mem.Graph() with it, which does not link by meaning.
	Retriever kgmem.RetrieverConfig
	// Extract, when set, turns each saved turn into an extraction that is
	// ingested with the turn's page. Nil saves the page alone.
	Extract TurnExtractFunc
	// NoSave makes SaveContext do nothing: the memory is read-only for the
	// chain.
	NoSave bool
}

// Memory is a langchaingo schema.Memory over a durable kgmem.Memory. Its
// one memory variable is kgmem's context block (the ranked pages and
// entities, each with the path that explains it) for the chain's input;
// SaveContext stores each turn as a knowledge page, and, with
// MemoryConfig.Extract, the entities and relations a model extracted from
// it.
type Memory struct {
	mem  *kgmem.Memory
	r    *kgmem.MemoryRetriever
	call []kgmem.RetrieverOption // options of each Retrieve
	cfg  MemoryConfig
}

var _ schema.Memory = (*Memory)(nil)

// NewMemory returns a Memory over mem. A nil mem or a negative MaxChars
// fails with an error wrapping kgmem.ErrInvalidArgument.
func NewMemory(mem *kgmem.Memory, cfg MemoryConfig) (*Memory, error) {
	if mem == nil {
		return nil, fmt.Errorf("kgmemlangchain: new memory: nil memory: %w", kgmem.ErrInvalidArgument)
	}
	if cfg.MaxChars < 0 {
		return nil, fmt.Errorf("kgmemlangchain: new memory: negative MaxChars %d: %w", cfg.MaxChars, kgmem.ErrInvalidArgument)
	}
	if cfg.MemoryKey == "" {
		cfg.MemoryKey = DefaultMemoryKey
	}
	m := &Memory{mem: mem, cfg: cfg}
	rest := cfg.Retriever
	rest.MaxResults, rest.NoExpansion = 0, false
	if reflect.ValueOf(rest).IsZero() {
		m.r = mem.Retriever()
		if n := cfg.Retriever.MaxResults; n != 0 {
			m.call = append(m.call, kgmem.WithMaxResults(n))
		}
		if cfg.Retriever.NoExpansion {
			m.call = append(m.call, kgmem.WithNoExpansion())
		}
	} else {
		m.r = kgmem.NewMemoryRetriever(mem.Store(), cfg.Retriever, kgmem.WithKnowledgeGraph(mem.Graph()))
	}
	return m, nil
}

// GetMemoryKey returns the memory variable's name.
func (m *Memory) GetMemoryKey(context.Context) string { return m.cfg.MemoryKey }

// MemoryVariables returns the one memory variable.
func (m *Memory) MemoryVariables(context.Context) []string { return []string{m.cfg.MemoryKey} }

// LoadMemoryVariables retrieves what the memory knows about the chain's
// input and returns it as the memory variable: kgmem's context block, ""
// when nothing matches. The input is chosen as langchaingo's
// memory.GetInputValue chooses it, and its errors (wrapping
// memory.ErrInvalidInputValues) are returned as they are.
func (m *Memory) LoadMemoryVariables(ctx context.Context, inputs map[string]any) (map[string]any, error) {
	q, err := memory.GetInputValue(inputs, m.cfg.InputKey)
	if err != nil {
		return nil, err
	}
	res, err := m.r.Retrieve(ctx, q, m.call...)
	if err != nil {
		if ctx.Err() != nil && err == ctx.Err() {
			return nil, err
		}
		return nil, errmsg.Wrap("kgmemlangchain: load memory", err)
	}
	return map[string]any{m.cfg.MemoryKey: res.ContextBlock(m.cfg.MaxChars)}, nil
}

// TurnPage returns the knowledge page SaveContext stores for a turn: its
// ID is "turn-" and the first 16 hex digits of the SHA-256 of the input and
// output (saving the same turn twice stores one page), and its content is
// "Human: " input, a line break, "AI: " output.
func TurnPage(input, output string) kgmem.KnowledgePage {
	h := sha256.New()
	h.Write([]byte(input))
	h.Write([]byte{0})
	h.Write([]byte(output))
	return kgmem.KnowledgePage{
		ID:      "turn-" + hex.EncodeToString(h.Sum(nil))[:16],
		Title:   "conversation turn",
		Content: "Human: " + input + "\nAI: " + output,
	}
}

// SaveContext stores the turn as a knowledge page (see TurnPage) and, with
// MemoryConfig.Extract, ingests what was extracted from it in the same
// journal record. Inputs and outputs are chosen as
// memory.GetInputValue chooses them. With NoSave it does nothing.
func (m *Memory) SaveContext(ctx context.Context, inputs, outputs map[string]any) error {
	if m.cfg.NoSave {
		return nil
	}
	in, err := memory.GetInputValue(inputs, m.cfg.InputKey)
	if err != nil {
		return err
	}
	out, err := memory.GetInputValue(outputs, m.cfg.OutputKey)
	if err != nil {
		return err
	}
	var x kgmem.Extraction
	if m.cfg.Extract != nil {
		if x, err = m.cfg.Extract(ctx, in, out); err != nil {
			return fmt.Errorf("kgmemlangchain: extract from turn: %w", err)
		}
	}
	if _, err := m.mem.Ingest(ctx, TurnPage(in, out), x); err != nil {
		return errmsg.Wrap("kgmemlangchain: save turn", err)
	}
	return nil
}

// Clear does nothing and returns nil: a kgmem memory is long-term, and
// forgetting it wholesale because a chain starts over would lose what other
// conversations stored. Forget pages with the graph's RemoveSource and the
// store's Delete, or remove the memory directory.
func (m *Memory) Clear(context.Context) error { return nil }
