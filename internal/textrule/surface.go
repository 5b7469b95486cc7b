package textrule

import (
	"strings"
	"unicode"
)

// Surface returns s trimmed, with full-width ASCII forms narrowed, every
// rune case-folded (FoldRune) and every run of white space inside
// replaced by sep. No other Unicode normalisation is applied. It is the
// form kgmem.Ingest and Merge compare names and types in (NameKey,
// TypeKey) and kgmem.DeriveEntityID builds IDs from.
func Surface(s string, sep byte) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		r = Narrow(r)
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(sep)
			space = false
		}
		b.WriteRune(FoldRune(r))
	}
	return b.String()
}

// NameKey is the form in which Ingest and Merge compare names and aliases:
// Surface with one space for white space.
func NameKey(s string) string { return Surface(s, ' ') }

// TypeKey is the form in which Ingest stores and compares entity types:
// Surface with '_' for white space.
func TypeKey(s string) string { return Surface(s, '_') }

// RelationTypeKey is the form in which Ingest stores relation types:
// TypeKey of the type with its camel-case words split and hyphens read as
// white space, so that "WorksAt", "works-at", "works at" and "Works_At"
// are all works_at. Runs of separators collapse to one '_'.
func RelationTypeKey(s string) string {
	s = SplitCamel(s)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r == '-' || r == '_' {
			r = ' '
		}
		b.WriteRune(r)
	}
	return TypeKey(b.String())
}

// SplitCamel inserts a space at each lower-to-upper case change, so that
// "directedBy" reads as "directed By".
func SplitCamel(s string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range s {
		if unicode.IsUpper(r) && prevLower {
			b.WriteByte(' ')
		}
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		b.WriteRune(r)
	}
	return b.String()
}

// UnionAliases returns the aliases of existing and then of added, trimmed,
// without empty ones, duplicates or ones equal to name, all compared by
// NameKey: how Ingest and Merge combine two entities' aliases.
func UnionAliases(name string, existing, added []string) []string {
	seen := map[string]bool{NameKey(name): true}
	var out []string
	for _, list := range [2][]string{existing, added} {
		for _, a := range list {
			a = strings.TrimSpace(a)
			if k := NameKey(a); k != "" && !seen[k] {
				seen[k] = true
				out = append(out, a)
			}
		}
	}
	return out
}

// LooseNameKey is the form in which Ingest's drift rules compare names:
// the match key of linking (LinkKey: case and width folded, punctuation
// between and around words ignored, so "ACME Corp." and "Acme Corp"
// agree), "" for a name without one.
func LooseNameKey(s string) string {
	k, _, ok := LinkKey(s)
	if !ok {
		return ""
	}
	return k
}

// typeFamilies groups entity types (TypeKey) that name one kind of thing,
// as models and the common named-entity label sets spell it.
var typeFamilies = func() map[string]string {
	m := make(map[string]string)
	for fam, types := range map[string][]string{
		"person":       {"person", "human", "people", "individual", "per", "man", "woman"},
		"organization": {"organization", "organisation", "org", "company", "corporation", "business", "firm", "enterprise", "institution", "agency", "university", "college", "school", "educational_institution"},
		"location":     {"location", "place", "loc", "gpe", "city", "town", "country", "nation", "region", "area", "geo"},
		"work":         {"work", "work_of_art", "creative_work", "film", "movie", "book", "novel", "literary_work", "song", "album"},
		"time":         {"date", "time", "year"},
		"event":        {"event"},
		"人":            {"人", "人物", "人员"},
		"组织":           {"组织", "机构", "公司", "企业"},
		"地点":           {"地点", "地方", "城市", "国家", "地区"},
	} {
		for _, t := range types {
			m[t] = fam
		}
	}
	return m
}()

// TypeFamily returns the family of an entity type (TypeKey), "" for a
// type in none: a mention of one type of a family merges into an entity
// of another by Ingest's drift rules ("Tom"/person and "Tom"/human).
func TypeFamily(typ string) string { return typeFamilies[typ] }
