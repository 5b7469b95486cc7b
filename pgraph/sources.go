package pgraph

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/quote"
)

// EntitiesCitedBy returns, for each of pageIDs, the IDs of the entities of
// the namespace whose SourceIDs cite it, sorted; pages nothing cites are
// absent (kgmem.SourceIndex). An empty, whitespace-only or invalid page ID
// returns an error wrapping kgmem.ErrInvalidArgument. Cost: one query over
// the GIN index on source_ids (schema version 4), reading the entities
// that cite any of the pages.
func (g *Graph) EntitiesCitedBy(ctx context.Context, pageIDs []string) (map[string][]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	want := make(map[string]bool, len(pageIDs))
	var ask []string
	for _, id := range pageIDs {
		switch {
		case id == "":
			return nil, fmt.Errorf("pgraph: entities cited by page: empty page ID: %w", kgmem.ErrInvalidArgument)
		case !utf8.ValidString(id):
			return nil, fmt.Errorf("pgraph: entities cited by page %s: not valid UTF-8: %w", quote.Value(id), kgmem.ErrInvalidArgument)
		case strings.TrimSpace(id) == "":
			return nil, fmt.Errorf("pgraph: entities cited by page %s: only white space: %w", quote.Value(id), kgmem.ErrInvalidArgument)
		}
		if storable(id) && !want[id] { // no stored entity can cite an ID with a NUL byte
			want[id] = true
			ask = append(ask, id)
		}
	}
	out := make(map[string][]string)
	if len(ask) == 0 {
		return out, nil
	}
	rows, err := g.pool.Query(ctx, "SELECT id, source_ids FROM "+entitiesTable+
		" WHERE namespace = $1 AND source_ids && $2::text[]", g.ns, ask)
	if err != nil {
		return nil, fail("entities cited by pages", false, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var sources []string
		if err := rows.Scan(&id, &sources); err != nil {
			return nil, fail("entities cited by pages", false, err)
		}
		for _, p := range sources {
			if want[p] && !slices.Contains(out[p], id) {
				out[p] = append(out[p], id)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fail("entities cited by pages", false, err)
	}
	for _, ids := range out {
		slices.Sort(ids)
	}
	return out, nil
}
