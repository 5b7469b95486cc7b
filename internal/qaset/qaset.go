// Package qaset generates deterministic synthetic knowledge graphs together
// with natural-language multi-hop questions and their gold answers, for
// evaluating kgmem's question-to-relation matching.
//
// The question wordings in this package were written independently of the
// retriever's matching code, the way users phrase questions, so that an
// evaluation on them does not reward tuning to kgmem's own vocabulary.
//
// Three sets are provided: [Movies] (English, a film database in the spirit
// of WikiMovies), [Org] (English and Chinese, an agent's memory of a
// company) and [Geo] (English, geography and people with Freebase-like and
// camelCase relation names). Every constructor is deterministic: it seeds
// math/rand/v2's PCG with fixed values and never depends on map iteration,
// so two calls return deeply equal sets.
//
// # Gold answers
//
// A question's answers are computed by executing its Path from its Topic
// over the set's relations: at each step, from every entity in the current
// set, every relation of the step's type is followed in the step's
// direction, except the one relation that the entity was reached by in the
// previous step (no immediate backtracking over the same edge; an entity
// reached by two different relations may go back over either). When
// [Question.ExcludesTopic] is set (templates that ask for "other", "the
// same", "share" or "co-" entities) the topic is removed from the result.
// Questions with no answer or more than 30 answers are not generated.
//
// # Paraphrase
//
// [Question.Paraphrase] is true when none of the question's relation
// wordings (one per template fragment, each naming one or two hops) shares
// a stem with the name of the relation it names. Stems are compared by a
// small stemmer in this package: English words share a stem when their
// stems are equal or one stem of at least four letters contains the other
// (so "screenwriter" shares with "writer", "wrote" with "writer",
// "born" with "birth"); Chinese wordings share a stem with a Chinese relation
// name when they contain one of its characters other than function
// characters such as 于 and 给 (so 汇报 and 报告 share with 汇报给, 指导 with
// 导师). A Chinese wording of an English-named
// relation, or an English wording of a Chinese-named one, therefore always
// counts as a paraphrase. For path-style names such as
// "people/person/place_of_birth" only the last segment is the name.
package qaset

import "math/rand/v2"

// Entity is one node.
type Entity struct {
	// ID is unique within a set.
	ID string
	// Name is the entity's display name, the form questions usually use.
	// Names need not be unique: a few films share a title.
	Name string
	// Type is the entity's type, e.g. "movie", "person", "genre"; each set
	// chooses its own type names.
	Type string
	// Aliases are optional other names (an English name of a Chinese city,
	// a title without punctuation, the pinyin of a Chinese person's name).
	Aliases []string
}

// Relation is a directed edge Source -[Type]-> Target (unweighted).
type Relation struct{ Source, Target, Type string }

// Step is one hop of a gold path: the relation type and whether it is
// walked from Source to Target (Forward) or backwards.
type Step struct {
	// Type is the relation type walked.
	Type string
	// Forward is true when the step goes from a relation's Source to its
	// Target, false when it goes from Target to Source.
	Forward bool
}

// Question is one question with its gold answers.
type Question struct {
	// Text is the question as a user would type it.
	Text string
	// Topic is the ID of the one entity the question names.
	Topic string
	// Answers are the IDs of every correct answer, sorted, never empty.
	Answers []string
	// Path is the gold relation path from Topic to the answers.
	Path []Step
	// Hops is len(Path).
	Hops int
	// Lang is "en" or "zh".
	Lang string
	// Template is a short name of the phrasing template, for per-template
	// reports: the fragment names from the outermost (the one that asks) to
	// the innermost (the one next to the topic), joined by "/". A fragment
	// name is a unit code (relation abbreviation, ">" forward or "<"
	// backward, "~" for a two-hop pivot), a colon and the phrasing's name;
	// a generic wrapper such as "list" or "who-is" is prefixed with "+".
	Template string
	// Paraphrase is true when no content word of the question's relation
	// wording shares a stem with the relation type's name (a synonym rather
	// than an inflection). For a multi-hop question it is true only when
	// that holds for every hop. See the package documentation for how stems
	// are compared.
	Paraphrase bool
	// ExcludesTopic is true for pivot templates ("films that share actors
	// with X", "who co-starred with X", "other films by X's director"):
	// their answers are the walk's result with the topic itself removed.
	// For every other question the topic stays among the answers when the
	// walk reaches it.
	ExcludesTopic bool
}

// Set is one generated knowledge graph with its questions.
type Set struct {
	// Name names the set: "movies", "org" or "geo".
	Name string
	// Entities are sorted by ID.
	Entities []Entity
	// Relations are sorted by (Source, Target, Type), without duplicates.
	Relations []Relation
	// Vocabulary is the small vocabulary a user of the library would
	// register for this graph: for each relation type, 2–5 words or short
	// phrases that name it in questions (English and, where the set has
	// Chinese questions, Chinese). It is what a user would plausibly
	// register after glancing at their data, not every paraphrase the
	// templates use: it covers about two thirds of the templates' relation
	// wordings.
	Vocabulary map[string][]string
	// InverseVocabulary holds, for relation types that users naturally
	// name in the reverse direction with other words (a "parents" relation
	// asked as "children"), phrases naming the relation walked backwards.
	// Most types have none.
	InverseVocabulary map[string][]string
	// TypeWords holds, for each entity type, 1–4 words users use for it in
	// questions ("film", "movie").
	TypeWords map[string][]string
	// Questions are the generated questions, ordered by hop count, then
	// language, then generation order.
	Questions []Question
}

// Seeded returns the set named name ("movies", "org" or "geo") generated
// from seed instead of the set's fixed seed: the same generator, entity
// counts, relation types and wordings, with other entities, relations and
// questions. It is for checking on data that no figure was tuned on. It
// returns nil for another name.
func Seeded(name string, seed uint64) *Set {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	switch name {
	case "movies":
		return moviesSet(rng)
	case "org":
		return orgSet(rng)
	case "geo":
		return geoSet(rng)
	}
	return nil
}
