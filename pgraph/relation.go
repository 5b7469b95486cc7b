package pgraph

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/quote"
)

// GetRelation returns the relation with the given key; ok is false when
// there is none, as kgmem.InMemoryGraph.GetRelation does. kgmem.Ingest
// reads the relations it may merge with through it, self-loops included,
// which a traversal from the source does not return. A part of the key
// that is empty, only white space or not valid UTF-8 returns an error
// wrapping kgmem.ErrInvalidArgument; like GetEntity, it does not check
// lengths. Cost: one primary-key lookup.
func (g *Graph) GetRelation(ctx context.Context, sourceID, targetID, relationType string) (kgmem.Relation, bool, error) {
	if err := ctx.Err(); err != nil {
		return kgmem.Relation{}, false, err
	}
	for _, part := range [...]struct{ what, s string }{
		{"source entity ID", sourceID}, {"target entity ID", targetID}, {"relation type", relationType},
	} {
		switch {
		case part.s == "":
			return kgmem.Relation{}, false, fmt.Errorf("pgraph: get relation: empty %s: %w", part.what, kgmem.ErrInvalidArgument)
		case !utf8.ValidString(part.s):
			return kgmem.Relation{}, false, fmt.Errorf("pgraph: get relation: %s %s is not valid UTF-8: %w", part.what, quote.Value(part.s), kgmem.ErrInvalidArgument)
		case strings.TrimSpace(part.s) == "":
			return kgmem.Relation{}, false, fmt.Errorf("pgraph: get relation: %s %s is only white space: %w", part.what, quote.Value(part.s), kgmem.ErrInvalidArgument)
		}
	}
	if !storable(sourceID) || !storable(targetID) || !storable(relationType) {
		return kgmem.Relation{}, false, nil
	}
	r, err := scanRelation(g.pool.QueryRow(ctx, "SELECT "+relationColumns+" FROM "+relationsTable+
		" WHERE namespace = $1 AND source = $2 AND target = $3 AND type = $4", g.ns, sourceID, targetID, relationType))
	if err == pgx.ErrNoRows {
		return kgmem.Relation{}, false, nil
	}
	if err != nil {
		return kgmem.Relation{}, false, fail("get relation", false, err)
	}
	return r, true, nil
}
