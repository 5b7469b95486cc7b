package kgmem

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/quote"
	"github.com/kgmem/kgmem/internal/textrule"
)

// indexTags adds slot s under each of tags; the caller holds g.mu for writing.
func (g *InMemoryGraph) indexTags(s int32, tags []string) {
	for _, t := range tags {
		set := g.tagIndex[t]
		if set == nil {
			set = make(map[int32]struct{})
			g.tagIndex[t] = set
		}
		set[s] = struct{}{}
	}
}

// unindexTags removes slot s from each of tags, dropping tags left with no
// entity; the caller holds g.mu for writing.
func (g *InMemoryGraph) unindexTags(s int32, tags []string) {
	for _, t := range tags {
		set := g.tagIndex[t]
		delete(set, s)
		if len(set) == 0 {
			delete(g.tagIndex, t)
		}
	}
}

// SetEntityTags replaces the tags of the entity with the given ID and returns
// how many it kept. Tags are trimmed, lower-cased, de-duplicated keeping the
// first occurrence, emptied ones dropped, then cut to MaxTagsPerEntity. It
// returns an error wrapping ErrNotFound for an unknown entity and one wrapping
// ErrInvalidArgument for an empty, whitespace-only, over-long or invalid ID
// or a tag, kept or not, that is not valid UTF-8 or is longer than
// MaxTagBytes once normalised; on error nothing changes.
func (g *InMemoryGraph) SetEntityTags(ctx context.Context, id string, tags []string) (int, error) {
	m := &mutation{Op: opSetTags, ID: id, Tags: tags}
	if err := g.apply(ctx, m); err != nil {
		return 0, err
	}
	return len(m.Tags), nil
}

// setTags replaces the tags of the entity in slot s by tags, normalised;
// the caller holds g.mu for writing.
func (g *InMemoryGraph) setTags(s int32, tags []string) {
	n := &g.nodes[s]
	g.unindexTags(s, n.tags())
	switch {
	case n.more != nil:
		more := *n.more // entityMore values are never shared, but copy for clarity of ownership
		more.tags = tags
		n.more = &more
	case len(tags) > 0:
		n.more = &entityMore{tags: tags}
	}
	g.indexTags(s, tags)
	g.changes.record(n.id)
}

// FindTags returns, sorted, every tag in use that starts with prefix after
// prefix is lower-cased. An empty prefix returns every tag. A prefix that is
// not valid UTF-8 returns ErrInvalidArgument. Cost: O(tags in use).
func (g *InMemoryGraph) FindTags(ctx context.Context, prefix string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !utf8.ValidString(prefix) {
		return nil, fmt.Errorf("kgmem: tag prefix %s is not valid UTF-8: %w", quote.Value(prefix), ErrInvalidArgument)
	}
	prefix = textrule.TagPrefix(prefix)
	var out []string
	if err := g.rlock(); err != nil {
		return nil, err
	}
	for t := range g.tagIndex {
		if strings.HasPrefix(t, prefix) {
			out = append(out, t)
		}
	}
	g.mu.RUnlock()
	slices.Sort(out)
	return out, nil
}

// EntityCountByTag returns how many entities carry tag, after tag is trimmed
// and lower-cased; 0 for a tag no entity has. A tag that is not valid UTF-8
// returns ErrInvalidArgument.
func (g *InMemoryGraph) EntityCountByTag(ctx context.Context, tag string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if !utf8.ValidString(tag) {
		return 0, fmt.Errorf("kgmem: tag %s is not valid UTF-8: %w", quote.Value(tag), ErrInvalidArgument)
	}
	if err := g.rlock(); err != nil {
		return 0, err
	}
	defer g.mu.RUnlock()
	return len(g.tagIndex[textrule.NormalizeTag(tag)]), nil
}

// countKeywordMatches returns how many of the folded keywords occur in n's
// ID, name, an alias or a tag. buf is scratch space reused across calls.
func (n *node) countKeywordMatches(folded []string, buf *[]string) int {
	return textrule.CountKeywords(folded, buf, n.id, n.name, n.aliases(), n.tags())
}
