// Package extractset generates deterministic evaluation sets for passage
// retrieval over graphs that a language model extracted from the passages:
// a synthetic world of people, films, books, companies, universities,
// cities and countries with one-valued facts between them; passages that
// state those facts in varied wording, several per passage; for each
// passage an "extraction" that imitates what an LLM returns for it (named
// entities and [subject, predicate, object] triples, as in HippoRAG's
// OpenIE output); and multi-hop questions in MuSiQue's style ("Who is the
// spouse of the director of The Silent Harbor?") whose gold passages are
// the passages that state each hop's fact.
//
// # Extraction noise
//
// The extractions are wrong the ways real ones are, each in a share that
// [Noise] sets: predicates in free text, paraphrased and sometimes stated
// from the other end ("directed by", "director", "is the director of");
// triples to generic phrase nodes shared across passages ("film
// director", "1998", "director"); subjects left unresolved ("the
// company", a first name); the same entity under several surface forms
// ("Acme Corp." / "Acme Corp" / "ACME CORP." / "Acme"); entity types that
// drift ("person" / "human" / "PER") or are absent; triples the model
// missed and triples it got wrong (another entity of the passage as
// object). The passage text always states every fact it is said to state,
// whatever its extraction holds.
//
// # Questions
//
// A question follows 2, 3 or 4 facts from a topic entity that it names;
// each fact is stated in exactly one passage, the question's gold
// passages are those of its facts (all different), and neither a bridge
// entity's or the answer's name or form nor a distinctive word of one (see
// [NameWords]) appears in the question, so that a text search finds a
// later hop's passage by name only where that passage also mentions an
// earlier hop's entity (see Passage.Mentions), as articles in MuSiQue do.
//
// # Determinism
//
// [Generate] seeds math/rand/v2's PCG with Config.Seed and never depends on
// map iteration order: two calls with the same Config return deeply equal
// sets. [Large] and [Small] are the two sets the evaluations use.
package extractset

import (
	"fmt"
	"math/rand/v2"
)

// Kind is the kind of a world entity.
type Kind string

// The kinds of entities.
const (
	Person     Kind = "person"
	Film       Kind = "film"
	Book       Kind = "book"
	Company    Kind = "company"
	University Kind = "university"
	City       Kind = "city"
	Country    Kind = "country"
)

// Relation names a kind of fact: Subject Relation Object, such as a film
// DirectedBy a person.
type Relation string

// The relations of the world. All but Starring are one-valued: a subject
// has at most one object of each (Spouse is also symmetric: a question may
// follow it from either end). Starring facts are stated but never asked.
const (
	DirectedBy    Relation = "directed_by"      // film → person
	ProducedBy    Relation = "produced_by"      // film → company
	Starring      Relation = "starring"         // film → person, two per film
	WrittenBy     Relation = "written_by"       // book → person
	PublishedBy   Relation = "published_by"     // book → company
	Spouse        Relation = "spouse"           // person → person
	BornIn        Relation = "born_in"          // person → city
	EducatedAt    Relation = "educated_at"      // person → university
	Employer      Relation = "employer"         // person → company
	Father        Relation = "father"           // person → person
	FoundedBy     Relation = "founded_by"       // company → person
	Headquartered Relation = "headquartered_in" // company → city
	CEO           Relation = "ceo"              // company → person
	LocatedIn     Relation = "located_in"       // university → city
	InCountry     Relation = "country"          // city → country
	Mayor         Relation = "mayor"            // city → person
	Capital       Relation = "capital"          // country → city
	HeadOfState   Relation = "head_of_state"    // country → person
)

// Entity is one entity of the world.
type Entity struct {
	// ID is unique within a set, such as "person:0042".
	ID string
	// Kind is the entity's kind.
	Kind Kind
	// Name is the canonical name: passage titles and questions use it.
	Name string
	// Forms are other surface forms of the name that passages and
	// extractions use ("Acme Corp", "Acme"; "J. Dahlgren"), without Name.
	Forms []string

	female                              bool
	first, last                         string
	year                                int // birth, release, publication or founding year
	occupation, nationality, genre, ind string
}

// Fact is one fact of the world, stated by exactly one passage.
type Fact struct {
	// Subject and Object are entity IDs.
	Subject, Object string
	// Relation says what the fact is.
	Relation Relation
	// Passage is the ID of the passage that states the fact.
	Passage string
	// Extracted says that the passage's extraction holds a triple for
	// this fact whose ends are the two entities' names or forms as the
	// text used them (up to case), in either direction. It is false when
	// the imitated model missed the fact, got its object wrong, or kept an
	// unresolved reference to the passage's topic ("the company", a first
	// or last name) as an end.
	Extracted bool
	// objectSide means the passage about the object states the fact
	// ("Dahlgren directed Silent Harbor").
	objectSide bool
}

// Passage is one passage of the corpus.
type Passage struct {
	// ID is unique within a set, such as "g00042".
	ID string
	// Title is the name of the entity the passage is about (several
	// passages may share one), or a distractor's headline.
	Title string
	// Text is the passage.
	Text string
	// Topic is the ID of the entity the passage is about; "" for
	// distractors.
	Topic string
	// Facts are the indexes in Set.Facts of the facts the passage states.
	Facts []int
	// Mentions are the indexes of facts stated by another passage that
	// this one, about the fact's object, mentions too, as an article links
	// back to what its subject is known for ("She is best known for The
	// Silent Harbor" in the director's passage): a question's later hop
	// can then be found by the name of an earlier hop's entity, as in
	// MuSiQue.
	Mentions []int
}

// Mention is a named entity as an extraction lists it.
type Mention struct {
	// Name is the surface form the model used.
	Name string
	// Type is the type the model gave, drifting between spellings; ""
	// when the set's extractions are untyped.
	Type string
}

// Extraction is what the imitated model extracted from one passage: its
// named entities and its [subject, predicate, object] triples.
type Extraction struct {
	// Entities are the named entities the model listed.
	Entities []Mention
	// Triples are its [subject, predicate, object] triples, in the
	// model's words.
	Triples [][3]string
}

// Question is one multi-hop question.
type Question struct {
	// ID is unique within a set, such as "3hop_0017".
	ID string
	// Text is the question.
	Text string
	// Answer is the canonical name of the answer entity.
	Answer string
	// Hops is the number of facts the question follows.
	Hops int
	// Gold are the IDs of the passages that state the facts, in hop
	// order, all different.
	Gold []string
	// Facts are the indexes in Set.Facts of the facts, in hop order.
	Facts []int
	// Chain holds the entity IDs from the topic (named in Text) through
	// the bridges to the answer: Hops+1 of them.
	Chain []string
}

// Set is one generated evaluation set.
type Set struct {
	// Name names the set, such as "gen".
	Name string
	// Noise is the extraction noise the set was generated with.
	Noise Noise
	// Entities is the world, Facts what holds in it.
	Entities []Entity
	Facts    []Fact
	// Passages and Extractions are the corpus, one extraction per
	// passage in the same order.
	Passages    []Passage
	Extractions []Extraction
	// Questions are the questions, 2-hop ones first, then 3 and 4.
	Questions []Question
}

// Noise sets how the imitated extraction errs. Each field is a
// probability in [0,1].
type Noise struct {
	// MissTriple is the chance that a stated fact has no triple.
	MissTriple float64
	// WrongTriple is the chance that a fact's triple names a wrong
	// object: another entity of the object's kind, from the same passage
	// when there is one.
	WrongTriple float64
	// Inverse is the chance that a triple is stated from the object's
	// end with an inverse predicate ("Dahlgren", "directed", "Silent
	// Harbor").
	Inverse float64
	// ShortSubject is the chance that a triple whose subject the text
	// referred to by pronoun or short form keeps that short form ("the
	// company", "the film", a first or last name) instead of the name.
	ShortSubject float64
	// SurfaceDrift is the chance that the text (and so the extraction)
	// names an entity other than the passage's topic by another of its
	// forms.
	SurfaceDrift float64
	// CaseDrift is the chance that the extraction changes the case of a
	// name ("ACME CORP.", "silent harbor").
	CaseDrift float64
	// Generic is the chance of each extra triple to a generic phrase node
	// for a value the text states (year, occupation, nationality, genre);
	// a tenth of it, that of a triple to a bare kind or role word
	// ("director", "city", "spouse").
	Generic float64
	// MissEntity is the chance that a mentioned entity is left out of the
	// extraction's named entities (its triples still name it).
	MissEntity float64
	// Typed says whether extractions give entity types.
	Typed bool
	// TypeDrift is the chance that a type is one of the kind's other
	// spellings ("human" for "person").
	TypeDrift float64
}

// Config says what Generate makes.
type Config struct {
	// Name names the set.
	Name string
	// Seed seeds the generator.
	Seed uint64
	// People, Films, Books, Companies, Universities, Cities and Countries
	// are how many entities of each kind the world has. Countries is at
	// most len(countryNames) (40), Cities at most 800.
	People, Films, Books, Companies, Universities, Cities, Countries int
	// Distractors is how many passages about no entity (festivals,
	// business news, lists) the corpus adds.
	Distractors int
	// Backlinks is the chance that a fact stated on its subject's side is
	// also mentioned by the passage about its object (see
	// Passage.Mentions); an entity's passage mentions at most 3.
	Backlinks float64
	// Questions is how many questions of 2, 3 and 4 hops to make.
	Questions [3]int
	// Noise is the extraction noise.
	Noise Noise
}

// LargeConfig is the configuration of [Large]: about 10,000 passages and
// 300 questions, typed extractions with drifting types, moderate noise
// (about four in five of the questions' hop facts come out of the
// extraction between forms of the right entities).
func LargeConfig() Config {
	return Config{
		Name: "gen", Seed: 0x6b676d656d01,
		People: 3600, Films: 2000, Books: 900, Companies: 900, Universities: 250, Cities: 400, Countries: 40,
		Distractors: 1300, Backlinks: 0.5,
		Questions: [3]int{150, 100, 50},
		Noise: Noise{
			MissTriple: 0.08, WrongTriple: 0.04, Inverse: 0.3, ShortSubject: 0.05,
			SurfaceDrift: 0.25, CaseDrift: 0.1, Generic: 0.5, MissEntity: 0.1,
			Typed: true, TypeDrift: 0.3,
		},
	}
}

// SmallConfig is the configuration of [Small]: about 4,000 passages and
// 150 questions, another seed and another noise mix: untyped entities (as
// HippoRAG's OpenIE gives them), more unresolved subjects, surface drift,
// generic nodes and wrong triples, fewer missed ones.
func SmallConfig() Config {
	return Config{
		Name: "gen2", Seed: 0x6b676d656d02,
		People: 1400, Films: 800, Books: 350, Companies: 350, Universities: 100, Cities: 160, Countries: 24,
		Distractors: 500, Backlinks: 0.35,
		Questions: [3]int{70, 50, 30},
		Noise: Noise{
			MissTriple: 0.06, WrongTriple: 0.1, Inverse: 0.45, ShortSubject: 0.3,
			SurfaceDrift: 0.4, CaseDrift: 0.2, Generic: 0.8, MissEntity: 0.2,
		},
	}
}

// SparseConfig is the configuration of [Sparse]: about 6,000 passages and
// 200 questions, a third seed and the sparsest extraction: untyped
// entities and nearly half the stated facts without a triple, so that about
// a third of the named entities take part in no triple, as in the
// MuSiQue passages' GPT-3.5 extraction (5,778 of 17,658).
func SparseConfig() Config {
	return Config{
		Name: "gen3", Seed: 0x6b676d656d03,
		People: 2200, Films: 1200, Books: 500, Companies: 500, Universities: 150, Cities: 250, Countries: 32,
		Distractors: 800, Backlinks: 0.4,
		Questions: [3]int{100, 60, 40},
		Noise: Noise{
			MissTriple: 0.45, WrongTriple: 0.06, Inverse: 0.35, ShortSubject: 0.15,
			SurfaceDrift: 0.3, CaseDrift: 0.15, Generic: 0.6, MissEntity: 0.15,
		},
	}
}

// Sparse generates the set of SparseConfig.
func Sparse() *Set { return Generate(SparseConfig()) }

// Large generates the set of LargeConfig.
func Large() *Set { return Generate(LargeConfig()) }

// Small generates the set of SmallConfig.
func Small() *Set { return Generate(SmallConfig()) }

// Generate makes the set cfg describes. It panics when cfg asks for more
// countries or cities than there are names, or for a world too small to
// hold the questions.
func Generate(cfg Config) *Set {
	if cfg.Countries > len(countryNames) || cfg.Cities > len(cityHeads)*len(cityTails) || cfg.Countries < 1 || cfg.Cities < 1 {
		panic(fmt.Sprintf("extractset: %d countries and %d cities asked, at most %d and %d exist",
			cfg.Countries, cfg.Cities, len(countryNames), len(cityHeads)*len(cityTails)))
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x65787472616374))
	w := newWorld(cfg, rng)
	set := &Set{Name: cfg.Name, Noise: cfg.Noise}
	w.write(set)
	w.ask(set)
	set.Entities = w.entities
	set.Facts = w.facts
	return set
}
