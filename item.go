package kgmem

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// ItemKind says what a RetrievalItem holds.
type ItemKind uint8

const (
	// ItemPage is a knowledge page; RetrievalItem.Page is set.
	ItemPage ItemKind = iota
	// ItemEntity is a graph entity; RetrievalItem.Entity is set.
	ItemEntity
)

// String returns "page", "entity", or "ItemKind(n)".
func (k ItemKind) String() string {
	switch k {
	case ItemPage:
		return "page"
	case ItemEntity:
		return "entity"
	}
	return fmt.Sprintf("ItemKind(%d)", uint8(k))
}

// RetrievalItem is one answer of MemoryRetriever.Retrieve: a knowledge page
// or a graph entity, with its fused score.
type RetrievalItem struct {
	Kind   ItemKind       // page or entity
	Score  float64        // in [0,1]: the fused score in Hybrid (see Fusion), else the channel's score
	Page   *KnowledgePage // set when Kind == ItemPage
	Entity *Entity        // set when Kind == ItemEntity
	// Path holds, for entities, the entity IDs from the entity the query
	// named to this one (a single ID when the query named this entity), and
	// for pages that found entities cite, the path to the best citing
	// entity. Nil for pages only the text search found.
	Path []string
	// Relations are the len(Path)-1 relations along Path, as stored.
	Relations []Relation
	// PathNames are the display names of the entities along Path (the ID
	// where an entity has no name).
	PathNames []string
	// Matched holds, for each of Relations, the words of the query that
	// asked for that hop, as written ("directed" in "who directed Alien"),
	// or "" for a hop no word asked for.
	Matched []string
	// TypeCue is the query's words that asked for an entity of this one's
	// type ("who", "which films", "什么项目") when there were such words and
	// the entity's type is the one they ask for; "" otherwise.
	TypeCue string
	// AsOfLabel is, for graph items, the time the query's words made the
	// graph channel walk at (see Time and connection questions in the
	// package documentation): a period ("2023", "2021-03"), "just before 2024-03" or
	// "2024-06" for an order relative to a time or a fact, "all time" for
	// history wording, "now" for "currently"; "" when no words of the query
	// set the time, WithAsOf did, or the item is a page only the text
	// search found.
	AsOfLabel string
	// AsOfCue is the query's words that set AsOfLabel, as written ("in
	// 2023", "before Lisbon", "has lived", "去年"); "" with AsOfLabel.
	AsOfCue string
	// Source names the knowledge store or graph the item came from.
	Source string
	// Scope is the scope the item came from in a cross-scope
	// Memories.Retrieve; "" otherwise.
	Scope string
	// TextScore is the score the knowledge stores' text search gave the
	// page, in [0,1]; 0 for entities and for pages it did not return.
	TextScore float64
	// GraphScore is the graph channel's score, in [0,1]: link quality ×
	// path score for entities, and for pages that entities cite,
	// RetrieverConfig.ProvenanceWeight × the best citing entity's score; 0
	// for pages no found entity cites.
	GraphScore float64
}

// ID returns the page ID or entity ID of the item.
func (it RetrievalItem) ID() string {
	switch {
	case it.Kind == ItemPage && it.Page != nil:
		return it.Page.ID
	case it.Kind == ItemEntity && it.Entity != nil:
		return it.Entity.ID
	}
	return ""
}

// Text returns the item's text, the one MMR compares and a Reranker may
// read: a page's title and content, or an entity's name, aliases and
// description (see EntityText).
func (it RetrievalItem) Text() string {
	switch {
	case it.Kind == ItemPage && it.Page != nil:
		if it.Page.Title == "" {
			return it.Page.Content
		}
		return it.Page.Title + "\n" + it.Page.Content
	case it.Kind == ItemEntity && it.Entity != nil:
		return EntityText(*it.Entity)
	}
	return ""
}

// Explain renders the item's path as one readable line, for example
// `张三 —works_on→ 项目A (works_on ← "负责"; project ← "什么项目")`: entity
// names joined by the relation types walked, with the arrow pointing the way
// each relation is stored ("←leads—" for a relation walked from its target
// to its source), then, in parentheses, which words of the query chose each
// hop (Matched), the entity's type (TypeCue) and the time the walk was read
// at (AsOfLabel, `as of 2023 ← "in 2023"`, `all time ← "has lived"`). A page that a found entity
// cites renders as the path to that entity followed by "—mentioned_in→" and
// the page's title (or ID); a page only the text search found renders as
// its title (or ID). A relation with a valid time shows it after the
// entity it leads to: `Alice —works_on→ Apollo (2024-03 → 2025-06)`.
func (it RetrievalItem) Explain() string {
	path := it.pathString()
	var why []string
	for i, m := range it.Matched {
		if m != "" && i < len(it.Relations) {
			why = append(why, fmt.Sprintf("%s ← %q", it.Relations[i].Type, m))
		}
	}
	if it.TypeCue != "" && it.Entity != nil && it.Entity.Type != "" {
		why = append(why, fmt.Sprintf("%s ← %q", it.Entity.Type, it.TypeCue))
	}
	if it.AsOfLabel != "" {
		why = append(why, asOfWhy(it.AsOfLabel, it.AsOfCue))
	}
	if len(why) == 0 {
		return path
	}
	return path + " (" + strings.Join(why, "; ") + ")"
}

// pathString renders the item's path without the words that chose it.
func (it RetrievalItem) pathString() string {
	if len(it.Path) == 0 {
		if it.Page != nil {
			return pageName(it.Page)
		}
		return it.ID()
	}
	name := func(i int) string {
		if i < len(it.PathNames) && it.PathNames[i] != "" {
			return it.PathNames[i]
		}
		return it.Path[i]
	}
	var b strings.Builder
	b.WriteString(name(0))
	for i := 1; i < len(it.Path); i++ {
		if i-1 < len(it.Relations) {
			r := it.Relations[i-1]
			if r.SourceID == it.Path[i-1] {
				fmt.Fprintf(&b, " —%s→ ", r.Type)
			} else {
				fmt.Fprintf(&b, " ←%s— ", r.Type)
			}
		} else {
			b.WriteString(" — ")
		}
		b.WriteString(name(i))
		if i-1 < len(it.Relations) {
			if v := it.Relations[i-1].ValidityString(); v != "" {
				b.WriteString(" (" + v + ")")
			}
		}
	}
	if it.Kind == ItemPage && it.Page != nil {
		b.WriteString(" —mentioned_in→ ")
		b.WriteString(pageName(it.Page))
	}
	return b.String()
}

// RetrievalResult is the answer of MemoryRetriever.Retrieve.
type RetrievalResult struct {
	Items    []RetrievalItem   // best first
	Query    string            // the query as given
	Strategy RetrievalStrategy // what actually ran, e.g. KnowledgeOnly when no graph is set
	Warnings []string          // sources that failed or timed out while others answered, and what was dropped
	// Errors are the errors behind Warnings, one for each, in the same
	// order; a source that panicked gives a *PanicError with its stack.
	Errors []error
	Stats  RetrievalStats // time and candidates per channel
}

// warn records a warning and the error behind it.
func (r *RetrievalResult) warn(err error) {
	r.Warnings = append(r.Warnings, err.Error())
	r.Errors = append(r.Errors, err)
}

// RetrievalStats reports how a Retrieve call spent its time, for users
// tuning their memory.
type RetrievalStats struct {
	Content ChannelStats // the knowledge stores
	Graph   ChannelStats // the knowledge graphs
	// Linked is how many entities the query named (over all graphs).
	Linked int
	// Surfaced is how many pages were added because entities cite them.
	Surfaced int
	// LinkedByMeaning is how many of Linked were linked by meaning (see
	// WithLinkEmbedder).
	LinkedByMeaning int
	// Seeded is how many entities the top content hits seeded the graph
	// channel with (see SeedMode), over all graphs.
	Seeded int
	// Seed is the wall time of the seeded walks, which start once the
	// content channel answered; it is part of Graph.Duration and Total.
	Seed time.Duration
	// Reranked is how many items the Reranker rescored (see WithReranker).
	Reranked int
	// Total is the wall time of the whole call.
	Total time.Duration
}

// ChannelStats describes one channel of a Retrieve call.
type ChannelStats struct {
	Duration   time.Duration // wall time from the channel's first source starting to its last finishing
	Candidates int           // items the channel produced before fusion and cutting
	Sources    int           // sources the channel asked
	Failed     int           // sources that returned an error or timed out
}

// ContextBlock renders the result as a context block for a language
// model, at most maxChars characters (runes) long: one numbered entry per
// item, best first. An item that does not fit is dropped whole, and the
// following items are still tried, so the block never holds half an item and
// never a relation whose endpoint was cut. maxChars <= 0 means no limit.
//
// Every field stays inside its item, whatever the memory holds. Each
// field ContextBlock writes (page IDs, titles and content, entity names,
// types and descriptions, paths with their relation types) goes through
// one rule: line breaks and other control characters (U+2028, U+2029 and
// U+0085 included) become spaces, invalid UTF-8 becomes U+FFFD, and a "["
// that would be the field's first visible character (after spaces,
// format characters such as U+200B, and combining marks) is written as
// `\[`. Page content is confined line by line, each line indented by two
// spaces. So only an item's header has "[" as the first visible character
// of a line, the block holds exactly one header per item, in order, and
// text extracted from a document cannot pass for another item. Aliases,
// properties, matched words and warnings are not written.
func (r RetrievalResult) ContextBlock(maxChars int) string {
	var b strings.Builder
	used, n := 0, 0
	for _, it := range r.Items {
		entry := renderItem(n+1, it)
		if entry == "" {
			continue
		}
		size := utf8.RuneCountInString(entry)
		if maxChars > 0 && used+size > maxChars {
			continue
		}
		b.WriteString(entry)
		used += size
		n++
	}
	return b.String()
}

func renderItem(n int, it RetrievalItem) string {
	var b strings.Builder
	switch {
	case it.Kind == ItemPage && it.Page != nil:
		fmt.Fprintf(&b, "[%d] page %s", n, confine(it.Page.ID))
		if t := confine(it.Page.Title); t != "" {
			fmt.Fprintf(&b, " %q", t)
		}
		if len(it.Path) > 0 {
			fmt.Fprintf(&b, "\nsurfaced by: %s", confine(it.pathString()))
		}
		b.WriteString("\n")
		for line := range strings.Lines(strings.TrimSpace(it.Page.Content)) {
			if line = strings.TrimRight(confine(line), " "); strings.TrimSpace(line) != "" {
				b.WriteString("  ")
				b.WriteString(line)
				b.WriteString("\n")
			}
		}
	case it.Kind == ItemEntity && it.Entity != nil:
		e := it.Entity
		fmt.Fprintf(&b, "[%d] entity %s", n, confine(displayName(e)))
		if t := confine(e.Type); t != "" {
			fmt.Fprintf(&b, " (%s)", t)
		}
		b.WriteString("\n")
		if d := strings.TrimSpace(confine(e.Description)); d != "" {
			b.WriteString(d)
			b.WriteString("\n")
		}
		if len(it.Path) > 1 {
			fmt.Fprintf(&b, "path: %s\n", confine(it.pathString()))
		}
	default:
		return ""
	}
	b.WriteString("\n")
	return b.String()
}

// confine returns a field as ContextBlock writes it: on one line (see
// oneLine), with a backslash before a "[" that is its first visible
// character, so that the field cannot begin a line the way an item's
// header does.
func confine(s string) string {
	s = oneLine(s)
	if i := strings.IndexFunc(s, visible); i >= 0 && s[i] == '[' {
		return s[:i] + `\` + s[i:]
	}
	return s
}

// visible reports whether r shows as a character of its own: not white
// space, not a format character (U+200B, U+FEFF, bidirectional marks) and
// not a combining mark.
func visible(r rune) bool {
	return !unicode.IsSpace(r) && !unicode.In(r, unicode.Cf, unicode.Mn, unicode.Me)
}

// oneLine returns s with every line break and other control character
// (including U+2028, U+2029 and U+0085) replaced by a space and invalid
// UTF-8 by U+FFFD, so that it renders on one line.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, breaksLine) && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s { // ranging replaces invalid bytes by U+FFFD
		if breaksLine(r) {
			r = ' '
		}
		b.WriteRune(r)
	}
	return b.String()
}

func breaksLine(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r == '\u0085'
}

// asOfWhy renders the time a walk was read at and the words that set it.
func asOfWhy(label, cue string) string {
	if label != "all time" {
		label = "as of " + label
	}
	if cue == "" {
		return label
	}
	return fmt.Sprintf("%s ← %q", label, cue)
}

func pageName(p *KnowledgePage) string {
	if p.Title != "" {
		return p.Title
	}
	return p.ID
}

func displayName(e *Entity) string {
	if e.Name != "" {
		return e.Name
	}
	return e.ID
}
