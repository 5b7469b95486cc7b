package kgmem

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/quote"
)

// normalizeTags returns tags trimmed, lower-cased, de-duplicated (first
// occurrence kept), without empties and cut to max. It returns an error
// wrapping ErrInvalidArgument when a tag, kept or not, is not valid UTF-8
// or is longer than MaxTagBytes once normalised. The result never aliases
// tags. Cost: linear in the total length of tags, whatever max is.
func normalizeTags(tags []string, max int) ([]string, error) {
	var out uniqueStrings
	for _, t := range tags {
		if !utf8.ValidString(t) {
			return nil, fmt.Errorf("kgmem: tag %s is not valid UTF-8: %w", quote.Value(t), ErrInvalidArgument)
		}
		norm := normalizeTag(t)
		if len(norm) > MaxTagBytes {
			return nil, fmt.Errorf("kgmem: tag %s: %w", tagTooLong(t, len(norm)), ErrInvalidArgument)
		}
		if norm == "" || len(out.items) == max {
			continue
		}
		out.add(norm)
	}
	return out.items, nil
}

// uniqueStrings collects distinct strings in first-seen order. While it
// holds few, a new string is compared with each; past scanLimit it keeps a
// set, so that adding n strings costs O(n) whatever n is. The zero value
// is empty and ready to use.
type uniqueStrings struct {
	items []string
	set   map[string]struct{} // items as a set, once there are more than scanLimit
}

// scanLimit is the number of strings up to which uniqueStrings scans
// rather than hashes: up to it a scan is as fast, and past it the cost of
// scanning for every new string would grow quadratically.
const scanLimit = 16

// add appends s unless it is already there, and reports whether it did.
func (u *uniqueStrings) add(s string) bool {
	if u.set != nil {
		if _, dup := u.set[s]; dup {
			return false
		}
		u.set[s] = struct{}{}
	} else {
		if slices.Contains(u.items, s) {
			return false
		}
		if len(u.items) == scanLimit {
			u.set = make(map[string]struct{}, 2*scanLimit)
			for _, it := range u.items {
				u.set[it] = struct{}{}
			}
			u.set[s] = struct{}{}
		}
	}
	u.items = append(u.items, s)
	return true
}

func normalizeTag(t string) string { return strings.ToLower(strings.TrimSpace(t)) }

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
	prefix = strings.ToLower(prefix)
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
	return len(g.tagIndex[normalizeTag(tag)]), nil
}

// foldKeywords trims and case-folds keywords, dropping empty ones and
// duplicates.
func foldKeywords(keywords []string) ([]string, error) {
	var out uniqueStrings
	for _, k := range keywords {
		if !utf8.ValidString(k) {
			return nil, fmt.Errorf("kgmem: keyword %s is not valid UTF-8: %w", quote.Value(k), ErrInvalidArgument)
		}
		if k = foldString(strings.TrimSpace(k)); k != "" {
			out.add(k)
		}
	}
	return out.items, nil
}

// countKeywordMatches returns how many of the folded keywords occur in n's
// ID, name, an alias or a tag. buf is scratch space reused across calls.
func (n *node) countKeywordMatches(folded []string, buf *[]string) int {
	return keywordMatches(folded, buf, n.id, n.name, n.aliases(), n.tags())
}

// keywordMatches returns how many of the folded keywords occur in the
// folded form of id, name, an alias or a tag. buf is scratch space.
func keywordMatches(folded []string, buf *[]string, id, name string, aliases, tags []string) int {
	texts := append((*buf)[:0], foldString(id), foldString(name))
	for _, a := range aliases {
		texts = append(texts, foldString(a))
	}
	for _, t := range tags {
		texts = append(texts, foldString(t))
	}
	*buf = texts
	count := 0
	for _, k := range folded {
		for _, t := range texts {
			if strings.Contains(t, k) {
				count++
				break
			}
		}
	}
	return count
}
