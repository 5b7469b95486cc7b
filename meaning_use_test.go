package kgmem_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/stretchr/testify/require"
)

// The paraphrase evaluation of linking by meaning, with a real sentence
// encoder, the Universal Sentence Encoder lite: a real-model evaluation,
// run as usemodel_test.go says (KGMEM_EVAL=1 and KGMEM_USE_MODULES).
// Unlike TestMeaningEvaluation's, each question paraphrases the project's
// description with none of its words ("who leads the effort on the space
// observatory?" for "the orbital telescope programme"), so a bag of words
// links nothing and only an encoder of meaning can.

// paraphrases pairs a project description with a paraphrase that shares
// none of its terms.
var paraphrases = [][2]string{
	{"orbital telescope programme", "space observatory"},
	{"coral reef restoration", "healing damaged underwater ecosystems"},
	{"malaria vaccine trial", "immunisation against a mosquito-borne disease"},
	{"electric bus fleet rollout", "battery-powered public transport vehicles"},
	{"wildfire early warning network", "alerts about forest blazes"},
	{"children's literacy campaign", "teaching kids to read"},
	{"offshore wind farm construction", "building turbines at sea"},
	{"cancer genome sequencing study", "decoding tumour DNA"},
	{"urban rooftop gardening scheme", "growing vegetables on city buildings"},
	{"earthquake-resistant housing design", "homes that survive seismic shocks"},
	{"river water quality monitoring", "checking pollution in streams"},
	{"elderly loneliness outreach", "visiting isolated senior citizens"},
	{"autonomous delivery drone pilot", "unmanned aircraft bringing parcels"},
	{"quantum computing research lab", "qubit processor experiments"},
	{"antique manuscript digitisation", "scanning old handwritten books"},
	{"bee population recovery drive", "saving pollinating insects"},
	{"desert solar power plant", "sunlight energy station in arid land"},
	{"maternal health clinic network", "care for pregnant women"},
	{"cybersecurity incident response team", "handling hacker attacks on computers"},
	{"high-speed rail link", "fast train line"},
	{"plastic ocean cleanup", "removing rubbish from the sea"},
	{"food bank distribution", "giving groceries to hungry families"},
	{"glacier melt measurement", "tracking shrinking ice in mountains"},
	{"refugee language classes", "teaching displaced people a new tongue"},
	{"volcano eruption forecasting", "predicting when a mountain will spew lava"},
	{"sign language translation app", "software for deaf communication"},
	{"vertical indoor farming", "crops grown in stacked greenhouses"},
	{"medieval castle excavation", "archaeological dig at an old fortress"},
	{"jazz music festival", "concerts of improvised swing"},
	{"smart electricity grid upgrade", "modernising the power network"},
}

// offTopic are questions about nothing the memory holds: linking by
// meaning should link none of them.
var offTopic = []string{
	"who leads the effort on baking sourdough bread?",
	"who leads the effort on organising a chess tournament?",
	"who leads the effort on translating medieval poetry?",
	"who leads the effort on repairing vintage motorcycles?",
	"who leads the effort on breeding racing pigeons?",
	"who leads the effort on the office holiday party?",
	"who leads the effort on renegotiating the cafeteria contract?",
	"who leads the effort on a marathon training plan?",
	"who leads the effort on knitting winter scarves?",
	"who leads the effort on restoring classic films?",
	"what is the capital of Portugal?",
	"how do I reset my password?",
	"when is the quarterly budget review?",
	"who won the football match yesterday?",
	"which printer is out of toner?",
}

// newParaphraseSet builds TestMeaningEvaluation's kind of memory, one
// project per paraphrase, with "meaning" questions only.
func newParaphraseSet(t testing.TB) *meaningEvalSet {
	set := &meaningEvalSet{}
	firsts := []string{"Alma", "Bruno", "Cleo", "Dario", "Elif", "Farid", "Greta", "Hugo", "Ines", "Jonas"}
	lasts := []string{"Okafor", "Lindqvist", "Moreau", "Tanaka", "Novak", "Haddad"}
	codes := []string{"Zorvik", "Talmera", "Qundar", "Belloss", "Kryphon", "Lunxen", "Amarid", "Ulegan", "Vikdar", "Ossbel",
		"Phoqun", "Xenlun", "Ridama", "Ganule", "Merazor", "Darvik", "Lossbel", "Kryzen", "Phomera", "Talqun",
		"Zenrid", "Amagan", "Ulevik", "Belxen", "Qunpho", "Ridzor", "Lunbel", "Ganmera", "Vikoss", "Darule"}
	for i, p := range paraphrases {
		c := codes[i]
		f, l := firsts[i%len(firsts)], lasts[i%len(lasts)]
		pid, lid, charter := "project:"+strings.ToLower(c), fmt.Sprintf("person:%d", i), "charter:"+strings.ToLower(c)
		q := "who leads the effort on " + p[1] + "?"
		desc := "the " + p[0]
		qt := kgmem.Tokenize(q)
		for _, tok := range kgmem.Tokenize(desc) {
			require.False(t, slices.Contains(qt, tok), "%q shares %q with %q", q, tok, desc)
		}
		set.entities = append(set.entities,
			kgmem.Entity{ID: pid, Name: "Project " + c, Type: "project", Description: desc},
			kgmem.Entity{ID: lid, Name: f + " " + l + fmt.Sprint(" ", i), Type: "person"})
		set.relations = append(set.relations, kgmem.Relation{SourceID: lid, TargetID: pid, Type: "leads", SourceIDs: []string{charter}})
		set.pages = append(set.pages, kgmem.KnowledgePage{ID: charter, Title: c + " charter",
			Content: fmt.Sprintf("%s is headed by %s %s since %d.", c, f, l, 2001+i)})
		set.questions = append(set.questions, meaningQuestion{text: q, kind: "meaning", gold: charter,
			relevant: map[string]bool{"page:" + charter: true, "entity:" + lid: true}})
	}
	return set
}

func TestMeaningParaphraseEvaluation(t *testing.T) {
	kgmem.NeedEvaluation(t)
	use := kgmem.NeedUSEModel(t)
	set := newParaphraseSet(t)
	ctx := context.Background()
	g := kgmem.NewInMemoryGraph()
	require.NoError(t, g.AddBatch(ctx, set.entities, set.relations))
	s := kgmem.NewInMemoryKnowledgeStore()
	for _, p := range set.pages {
		require.NoError(t, s.Put(ctx, p))
	}
	var tb strings.Builder
	fmt.Fprintf(&tb, "Paraphrase evaluation: %d questions, none sharing a term with the description it means\n\n", len(set.questions))
	tb.WriteString("| embedder | threshold | linked | right project first | hit@1 | hit@10 | recall@10 | off-topic linked |\n|---|---|---|---|---|---|---|---|\n")
	type key struct {
		emb       string
		threshold float64
	}
	results := map[key][3]float64{}
	for _, c := range []struct {
		name string
		emb  kgmem.Embedder
	}{{"word hash (256)", kgmem.NewWordEmbedder(256)}, {"USE lite (512)", use}} {
		for _, th := range []float64{0.25, 0.3, 0.35, 0.4, 0.5} {
			r := kgmem.NewMemoryRetriever(s, kgmem.RetrieverConfig{MaxResults: 10},
				kgmem.WithKnowledgeGraph(g), kgmem.WithLinkEmbedder(c.emb, th))
			var linked, right, hit1, hit10, recall float64
			for _, q := range set.questions {
				res, err := r.Retrieve(ctx, q.text)
				require.NoError(t, err)
				require.Empty(t, res.Warnings)
				if res.Stats.LinkedByMeaning > 0 {
					linked++
				}
				found := 0
				firstProject := true
				for i, it := range res.Items {
					if it.Kind == kgmem.ItemEntity && it.Entity.Type == "project" && firstProject {
						firstProject = false
						if "charter:"+strings.TrimPrefix(it.ID(), "project:") == q.gold {
							right++
						}
					}
					if q.relevant[it.Kind.String()+":"+it.ID()] {
						found++
						if i == 0 {
							hit1++
						}
					}
					if it.Kind == kgmem.ItemPage && it.ID() == q.gold {
						hit10++
					}
				}
				recall += float64(found) / float64(len(q.relevant))
			}
			var off float64
			for _, q := range offTopic {
				res, err := r.Retrieve(ctx, q)
				require.NoError(t, err)
				if res.Stats.LinkedByMeaning > 0 {
					off++
				}
			}
			n := float64(len(set.questions))
			results[key{c.name, th}] = [3]float64{hit1 / n, hit10 / n, off / float64(len(offTopic))}
			fmt.Fprintf(&tb, "| %s | %.2f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", c.name, th, linked/n, right/n, hit1/n, hit10/n, recall/n, off/float64(len(offTopic)))
		}
	}
	t.Log("\n" + tb.String())
	// A bag of words answers none of these; the encoder, at the default
	// threshold, two in three, linking no off-topic question. Floors a
	// little under the values measured when this test was written.
	require.Zero(t, results[key{"word hash (256)", 0.35}][1])
	got := results[key{"USE lite (512)", 0.35}]
	require.GreaterOrEqual(t, got[1], 0.6, "USE hit@10 at the default threshold")
	require.GreaterOrEqual(t, got[0], 0.6, "USE hit@1 at the default threshold")
	require.LessOrEqual(t, got[2], 0.07, "USE off-topic questions linked at the default threshold")
}
