package kgmem

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/question"
	"github.com/kgmem/kgmem/internal/quote"
)

// Question analysis: the graph channel reads a question without a model by
// matching its words to the names of relation types and entity types it
// meets in the graph. A relation type's name is split into words
// (snake_case, camelCase and paths such as "people/person/spouse_s", whose
// last segment counts most), each compared with the question's words by
// spelling, by stem (directed, director, directs), by the built-in lexicon
// (couple and spouse, 负责 and works_on) and by the phrases a Vocabulary
// registers. Chinese is compared by substring. What each hop of an answer's
// path matched is kept for its explanation.
//
// The analysis is internal/question's; this file holds the words a user
// registers, and their validation.

// Vocabulary is the words a user registers for the relation types and
// entity types of their graph, for questions whose wording the names and
// the built-in lexicon do not cover: "directed_by" asked as "who made", a
// "film" type asked as "movie" or 电影. Every entry is optional; the zero
// value registers nothing.
//
// Phrases are compared like question words: case-insensitively, by stem
// for English (so "direct" also matches directed and director) and by
// exact substring for Chinese; English stop words in a phrase are ignored
// unless the phrase has nothing else.
type Vocabulary struct {
	// Relations maps a relation type, as stored, to words and phrases that
	// name it in questions: {"directed_by": {"direct", "who made", "导演"}}.
	Relations map[string][]string `json:"relations,omitempty"`
	// InverseRelations maps a relation type to words that name it walked
	// from its target to its source: {"parent_of": {"child", "son",
	// "daughter"}} lets "Ann's son" follow parent_of backwards.
	InverseRelations map[string][]string `json:"inverse_relations,omitempty"`
	// Types maps an entity type, as stored in Entity.Type, to words that
	// name it: {"movie": {"film", "picture", "电影"}}.
	Types map[string][]string `json:"types,omitempty"`
}

// validate reports the first entry that is empty or not valid UTF-8.
func (v Vocabulary) validate() error {
	for _, m := range []struct {
		field string
		m     map[string][]string
	}{{"Relations", v.Relations}, {"InverseRelations", v.InverseRelations}, {"Types", v.Types}} {
		for _, k := range slices.Sorted(maps.Keys(m.m)) {
			if strings.TrimSpace(k) == "" || !utf8.ValidString(k) {
				return fmt.Errorf("kgmem: vocabulary: %s key %s is empty or not valid UTF-8: %w", m.field, quote.Value(k), ErrInvalidArgument)
			}
			for _, p := range m.m[k] {
				if !utf8.ValidString(p) {
					return fmt.Errorf("kgmem: vocabulary: %s[%s] phrase %s is not valid UTF-8: %w", m.field, quote.Value(k), quote.Value(p), ErrInvalidArgument)
				}
			}
		}
	}
	return nil
}

// compileVocabulary compiles v for matching (question.CompileVocab).
func compileVocabulary(v Vocabulary) *question.Vocab {
	return question.CompileVocab(v.Relations, v.InverseRelations, v.Types)
}
