package pgraph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/kgmem/kgmem"
	"github.com/kgmem/kgmem/internal/errmsg"
	"github.com/kgmem/kgmem/internal/quote"
	"github.com/kgmem/kgmem/internal/textrule"
)

// DefaultNamespace is the namespace of a Graph made without WithNamespace.
const DefaultNamespace = "default"

// MaxNamespaceBytes is the longest namespace, in bytes: 128. The
// namespace is the first column of every index key, and PostgreSQL refuses
// a B-tree index entry larger than 2,704 bytes: with kgmem's limits on the
// other columns (two entity IDs of kgmem.MaxIDBytes and a relation type of
// kgmem.MaxTypeBytes in a relation's primary key) the longest key, with
// its overhead, comes to 2,456 bytes, however incompressible its text.
const MaxNamespaceBytes = 128

// Option configures a Graph.
type Option interface {
	apply(*config)
}

type config struct {
	namespace  string
	tags       kgmem.TagConstraints
	pathBudget int
	clock      func() time.Time
	embedder   kgmem.Embedder // WithEmbedder: NewStore and OpenMemory only
	schema     *kgmem.Schema  // WithSchema, normalized: OpenMemory only
	schemaErr  error          // why WithSchema is invalid
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithNamespace sets the namespace the Graph reads and writes. Graphs with
// different namespaces share the tables of one database and never see each
// other's entities or relations. The default is DefaultNamespace; an empty
// namespace, one longer than MaxNamespaceBytes, or one that is not valid
// UTF-8 or holds a NUL byte, makes New return an error wrapping
// kgmem.ErrInvalidArgument.
func WithNamespace(ns string) Option {
	return optionFunc(func(c *config) { c.namespace = ns })
}

// WithTagConstraints sets the limits tags are normalised with, as
// kgmem.WithTagConstraints does for the in-memory graph. A MaxTagsPerEntity
// of 0 means the default, 8, as in memory; a negative one makes New fail.
// Every process writing a namespace should use the same constraints.
func WithTagConstraints(tc kgmem.TagConstraints) Option {
	return optionFunc(func(c *config) { c.tags = tc })
}

// WithPathBudget sets the work one FindPaths call may do — relations
// scanned, and so partial paths built, and pairs of them joined — as
// kgmem.WithPathBudget does for the in-memory graph. 0 means kgmem's
// default (2¹⁹ relations); a negative n makes New fail.
func WithPathBudget(n int) Option {
	return optionFunc(func(c *config) { c.pathBudget = n })
}

// WithClock sets the clock that tells the graph what "now" is: the instant
// reads with a zero kgmem.AsOf are answered at, as kgmem.WithClock does for
// the in-memory graph. The default, and a nil clock, is time.Now.
func WithClock(now func() time.Time) Option {
	return optionFunc(func(c *config) { c.clock = now })
}

// Graph is a kgmem.KnowledgeGraph stored in PostgreSQL. Many goroutines and
// many processes may use graphs of the same namespace at once; see the
// package documentation for the consistency each method gives.
//
// The zero value is not usable; call New. A Graph holds no connection of
// its own: it borrows connections from the pool for the length of a call.
type Graph struct {
	// Every field is set by New and never changes.
	pool       *pgxpool.Pool // shared; the Graph never closes it
	ns         string
	tags       kgmem.TagConstraints
	pathBudget int
	clock      func() time.Time
}

var (
	_ kgmem.KnowledgeGraph     = (*Graph)(nil)
	_ kgmem.EntityLinker       = (*Graph)(nil)
	_ kgmem.NameFinder         = (*Graph)(nil)
	_ kgmem.NeighborhoodReader = (*Graph)(nil)
	_ kgmem.SourceIndex        = (*Graph)(nil)
)

// New returns a Graph over pool. It reads the schema version and returns
// an error when the database was migrated by a newer version of this
// package; it does not create the schema (call Migrate for that). Invalid
// options return an error wrapping kgmem.ErrInvalidArgument.
func New(ctx context.Context, pool *pgxpool.Pool, opts ...Option) (*Graph, error) {
	if pool == nil {
		return nil, fmt.Errorf("pgraph: nil pool: %w", kgmem.ErrInvalidArgument)
	}
	cfg := config{namespace: DefaultNamespace}
	for i, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("pgraph: option %d is nil: %w", i, kgmem.ErrInvalidArgument)
		}
		o.apply(&cfg)
	}
	switch {
	case cfg.schemaErr != nil:
		return nil, cfg.schemaErr
	case cfg.tags.MaxTagsPerEntity < 0:
		return nil, fmt.Errorf("pgraph: WithTagConstraints: negative MaxTagsPerEntity %d: %w",
			cfg.tags.MaxTagsPerEntity, kgmem.ErrInvalidArgument)
	case cfg.pathBudget < 0:
		return nil, fmt.Errorf("pgraph: WithPathBudget: negative budget %d: %w", cfg.pathBudget, kgmem.ErrInvalidArgument)
	case cfg.namespace == "" || !storable(cfg.namespace):
		return nil, fmt.Errorf("pgraph: namespace %s is empty, not valid UTF-8 or holds a NUL byte: %w",
			quote.Value(cfg.namespace), kgmem.ErrInvalidArgument)
	case len(cfg.namespace) > MaxNamespaceBytes:
		return nil, fmt.Errorf("pgraph: namespace %s is longer than MaxNamespaceBytes (%d): %w",
			quote.Value(cfg.namespace), MaxNamespaceBytes, kgmem.ErrInvalidArgument)
	}
	if cfg.tags.MaxTagsPerEntity == 0 {
		cfg.tags.MaxTagsPerEntity = textrule.MaxTagsPerEntity
	}
	// A pathBudget of 0 stays: kgmem.TraversePaths reads it as its default.
	if cfg.clock == nil {
		cfg.clock = time.Now
	}
	g := &Graph{pool: pool, ns: cfg.namespace, tags: cfg.tags, pathBudget: cfg.pathBudget, clock: cfg.clock}
	v, err := g.schemaVersion(ctx)
	if err != nil {
		return nil, fail("read schema version", false, err)
	}
	if v > SchemaVersion {
		return nil, fmt.Errorf("pgraph: database schema version %d is newer than version %d, the newest this package knows", v, SchemaVersion)
	}
	return g, nil
}

// Now returns the graph's "now", by its clock (see WithClock); traversals
// and kgmem.Ingest read it.
func (g *Graph) Now() time.Time { return g.clock() }

// Namespace returns the namespace the graph reads and writes.
func (g *Graph) Namespace() string { return g.ns }

// TagConstraints returns the limits tags are normalised with.
func (g *Graph) TagConstraints() kgmem.TagConstraints { return g.tags }

// entityColumns are the columns scanEntity reads, in order.
const entityColumns = "id, name, type, description, aliases, tags, properties, source_ids"

// relationColumns are the columns scanRelation reads, in order.
const relationColumns = "source, target, type, weight, properties, source_ids, valid_from, valid_to"

// AddEntity inserts e, or replaces the entity with e.ID keeping its
// relations, in one INSERT … ON CONFLICT statement. Tags are normalised as
// in SetEntityTags. It returns an error wrapping kgmem.ErrInvalidArgument,
// before touching the database, when e.ID is empty or only white space, a
// field is not valid UTF-8 or a string holds a NUL byte (which PostgreSQL
// cannot store).
func (g *Graph) AddEntity(ctx context.Context, e kgmem.Entity) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	row, err := g.entityRow(&e)
	if err != nil {
		return err
	}
	return g.retry(ctx, func() error {
		_, err := g.pool.Exec(ctx, upsertEntitySQL, row...)
		if err != nil {
			return fail("add entity "+quote.Value(e.ID), true, err)
		}
		return nil
	})
}

const upsertEntitySQL = `INSERT INTO ` + entitiesTable + ` AS e
	(namespace, id, name, type, description, aliases, tags, properties, source_ids, grams, tag_grams, link_keys)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11, $12)
ON CONFLICT (namespace, id) DO UPDATE SET
	name = excluded.name, type = excluded.type, description = excluded.description,
	aliases = excluded.aliases, tags = excluded.tags, properties = excluded.properties,
	source_ids = excluded.source_ids, grams = excluded.grams, tag_grams = excluded.tag_grams,
	link_keys = excluded.link_keys`

// entityRow validates e and returns the arguments of upsertEntitySQL.
func (g *Graph) entityRow(e *kgmem.Entity) ([]any, error) {
	if err := validateEntity(e); err != nil {
		return nil, err
	}
	tags, _ := textrule.NormalizeTags(e.Tags, g.tags.MaxTagsPerEntity, kgmem.ErrInvalidArgument) // validated above
	props, err := encodeProperties(e.Properties)
	if err != nil {
		return nil, fmt.Errorf("pgraph: entity %s: %w", quote.Value(e.ID), err)
	}
	grams, tgrams := entityGrams(e.ID, e.Name, e.Aliases, tags)
	return []any{
		g.ns, e.ID, e.Name, e.Type, e.Description, nonNil(e.Aliases), nonNil(tags), props,
		nonNil(e.SourceIDs), grams, tgrams, entityLinkKeys(e.Name, e.Aliases),
	}, nil
}

// GetEntity returns the entity with the given ID; ok is false when there is
// none. An empty or whitespace-only id, or one that is not valid UTF-8,
// returns an error wrapping kgmem.ErrInvalidArgument, as kgmem's in-memory
// graph does; an ID PostgreSQL cannot hold (a NUL byte) or longer than
// kgmem.MaxIDBytes names no entity.
func (g *Graph) GetEntity(ctx context.Context, id string) (kgmem.Entity, bool, error) {
	if err := ctx.Err(); err != nil {
		return kgmem.Entity{}, false, err
	}
	if err := checkReadID(id); err != nil {
		return kgmem.Entity{}, false, err
	}
	if !storable(id) || len(id) > kgmem.MaxIDBytes {
		return kgmem.Entity{}, false, nil
	}
	e, err := scanEntity(g.pool.QueryRow(ctx,
		"SELECT "+entityColumns+" FROM "+entitiesTable+" WHERE namespace = $1 AND id = $2", g.ns, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return kgmem.Entity{}, false, nil
	}
	if err != nil {
		return kgmem.Entity{}, false, fail("get entity "+quote.Value(id), false, err)
	}
	return e, true, nil
}

// RemoveEntity deletes the entity with the given ID; the foreign keys
// delete every relation that starts or ends at it in the same statement. It
// returns an error wrapping kgmem.ErrNotFound when there is no such entity,
// and one wrapping kgmem.ErrInvalidArgument when id is empty, only white
// space, longer than kgmem.MaxIDBytes or not valid UTF-8.
func (g *Graph) RemoveEntity(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := validateID(id); err != nil {
		return err
	}
	notFound := fmt.Errorf("pgraph: remove entity %s: %w", quote.Value(id), kgmem.ErrNotFound)
	if !storable(id) {
		return notFound
	}
	return g.retry(ctx, func() error {
		tag, err := g.pool.Exec(ctx, "DELETE FROM "+entitiesTable+" WHERE namespace = $1 AND id = $2", g.ns, id)
		switch {
		case err != nil:
			return fail("remove entity "+quote.Value(id), true, err)
		case tag.RowsAffected() == 0:
			return notFound
		}
		return nil
	})
}

// AddRelation inserts r, or replaces the weight, properties and sources of
// the stored relation with the same key, in one INSERT … ON CONFLICT
// statement. A zero Weight is stored as 1 (unweighted), and a self-loop is
// stored like any relation, as kgmem's in-memory graph does. It returns an
// error wrapping kgmem.ErrInvalidArgument, before touching the database,
// when an endpoint or the type is empty or only white space, a string is
// not valid UTF-8 or holds a NUL byte, or the weight is NaN, infinite or
// outside [0,1]; and one wrapping kgmem.ErrNotFound when an endpoint is not
// an entity (the foreign keys decide, so a concurrent RemoveEntity cannot
// slip between the check and the insert).
func (g *Graph) AddRelation(ctx context.Context, r kgmem.Relation) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := validateRelation(&r); err != nil { // sets a zero weight to 1
		return err
	}
	props, err := encodeProperties(r.Properties)
	if err != nil {
		return fmt.Errorf("pgraph: relation %s: %w", quote.Key(r.SourceID, r.Type, r.TargetID), err)
	}
	return g.retry(ctx, func() error {
		_, err := g.pool.Exec(ctx, upsertRelationSQL,
			g.ns, r.SourceID, r.TargetID, r.Type, r.Weight, props, nonNil(r.SourceIDs), nullTime(r.ValidFrom), nullTime(r.ValidTo))
		if isForeignKeyViolation(err) {
			return g.missingEndpoint(ctx, r)
		}
		if err != nil {
			return fail("add relation "+quote.Key(r.SourceID, r.Type, r.TargetID), true, err)
		}
		return nil
	})
}

const upsertRelationSQL = `INSERT INTO ` + relationsTable + `
	(namespace, source, target, type, weight, properties, source_ids, valid_from, valid_to)
VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9)
ON CONFLICT (namespace, source, target, type) DO UPDATE SET
	weight = excluded.weight, properties = excluded.properties, source_ids = excluded.source_ids,
	valid_from = excluded.valid_from, valid_to = excluded.valid_to`

// nullTime is t as a timestamptz parameter: NULL for the zero time, which
// kgmem reads as an unknown start or an open end.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

// errRetry marks an error after which the write is tried again.
var errRetry = errors.New("pgraph: retry")

// missingEndpoint returns the error for a relation whose insert broke a
// foreign key: ErrNotFound naming the source when it is missing, else the
// target. When both exist again (a concurrent writer re-added one), the
// write is retried.
func (g *Graph) missingEndpoint(ctx context.Context, r kgmem.Relation) error {
	rows, err := g.pool.Query(ctx, "SELECT id FROM "+entitiesTable+" WHERE namespace = $1 AND id = ANY($2)",
		g.ns, []string{r.SourceID, r.TargetID})
	if err != nil {
		return fail("add relation "+quote.Key(r.SourceID, r.Type, r.TargetID), true, err)
	}
	found, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fail("add relation "+quote.Key(r.SourceID, r.Type, r.TargetID), true, err)
	}
	for _, end := range []struct{ what, id string }{{"source", r.SourceID}, {"target", r.TargetID}} {
		if !slices.Contains(found, end.id) {
			return fmt.Errorf("pgraph: relation %s: %s entity %s: %w",
				quote.Key(r.SourceID, r.Type, r.TargetID), end.what, quote.Value(end.id), kgmem.ErrNotFound)
		}
	}
	return errRetry
}

// RemoveRelation deletes the relation with the given key. It returns an
// error wrapping kgmem.ErrNotFound when there is none, and one wrapping
// kgmem.ErrInvalidArgument when a part of the key is empty, only white
// space, longer than its limit or not valid UTF-8.
func (g *Graph) RemoveRelation(ctx context.Context, sourceID, targetID, relationType string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := kgmem.ValidateRelationKey(sourceID, targetID, relationType); err != nil {
		return err
	}
	notFound := fmt.Errorf("pgraph: remove relation %s: %w", quote.Key(sourceID, relationType, targetID), kgmem.ErrNotFound)
	if !storable(sourceID) || !storable(targetID) || !storable(relationType) {
		return notFound
	}
	return g.retry(ctx, func() error {
		tag, err := g.pool.Exec(ctx, "DELETE FROM "+relationsTable+
			" WHERE namespace = $1 AND source = $2 AND target = $3 AND type = $4", g.ns, sourceID, targetID, relationType)
		switch {
		case err != nil:
			return fail("remove relation "+quote.Key(sourceID, relationType, targetID), true, err)
		case tag.RowsAffected() == 0:
			return notFound
		}
		return nil
	})
}

// GetRelated walks the graph breadth-first from id with exactly the
// semantics of kgmem.InMemoryGraph.GetRelated: it runs
// kgmem.TraverseRelated, the same traversal code, over this graph. Each hop
// is one query for the whole frontier, and the start check and the final
// entity fetch are one query each, all inside one read-only REPEATABLE READ
// transaction, so the answer is consistent with a single moment of the
// graph even while other processes write. Depth 0 means 1. Invalid options
// and an empty, whitespace-only or invalid id return
// kgmem.ErrInvalidArgument before any query; an unknown id returns
// kgmem.ErrNotFound. Cancelling ctx cancels the running query on the server.
func (g *Graph) GetRelated(ctx context.Context, id string, opts kgmem.TraverseOptions) ([]kgmem.ScoredEntity, error) {
	n := g.neighborhood()
	res, err := kgmem.TraverseRelated(ctx, n, id, opts)
	if cerr := n.close(ctx); err == nil && cerr != nil {
		return nil, cerr
	}
	return res, err
}

// ReadNeighborhood calls read with a kgmem.Neighborhood over this graph
// inside one read-only REPEATABLE READ transaction, so that everything read
// sees one snapshot, and returns read's error. kgmem.MemoryRetriever's graph
// channel uses it to follow the relations a question asks about with one
// query per hop.
func (g *Graph) ReadNeighborhood(ctx context.Context, read func(kgmem.Neighborhood) error) error {
	n := g.neighborhood()
	err := read(n)
	if cerr := n.close(ctx); err == nil {
		err = cerr
	}
	return err
}

// FindPaths returns the best simple paths from sourceID to targetID with
// exactly the semantics of kgmem.InMemoryGraph.FindPaths: it runs
// kgmem.TraversePaths, the same meet-in-the-middle search, over this graph,
// one query per level of each side, inside one read-only REPEATABLE READ
// transaction; MaxHops 0 means 4 and MaxPaths 0 means 3. The graph's path
// budget (WithPathBudget) caps the relations scanned and the partial paths
// built and joined. When the budget cuts the search (PathResult.Truncated), which
// partial paths were explored may differ from the in-memory graph's, since
// the database returns relations in no particular order.
func (g *Graph) FindPaths(ctx context.Context, sourceID, targetID string, opts kgmem.PathOptions) (kgmem.PathResult, error) {
	n := g.neighborhood()
	res, err := kgmem.TraversePaths(ctx, n, sourceID, targetID, opts, g.pathBudget)
	if cerr := n.close(ctx); err == nil && cerr != nil {
		return kgmem.PathResult{}, cerr
	}
	return res, err
}

// FindByKeywords returns the entities whose ID, name, an alias or a tag
// contains at least one of the keywords, compared with kgmem's Unicode case
// folding; entities matching more distinct keywords come first, then by ID
// in byte order. Keywords are trimmed and empty ones ignored; with none
// left the result is empty. A keyword that is not valid UTF-8 returns
// kgmem.ErrInvalidArgument.
//
// One query: the GIN indexes on the entities' grams return the entities
// that may contain a keyword, and the exact test and the ordering run in
// Go. Cost: index lookups for each keyword's grams plus the candidates
// read; a keyword of one or two runes has large posting lists.
func (g *Graph) FindByKeywords(ctx context.Context, keywords []string) ([]kgmem.Entity, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	folded, err := textrule.FoldKeywords(keywords, kgmem.ErrInvalidArgument)
	if err != nil || len(folded) == 0 {
		return nil, err
	}
	sql, args := g.keywordQuery(folded)
	if args == nil {
		return nil, nil // no keyword can occur in stored text
	}
	rows, err := g.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, fail(fmt.Sprintf("find by keywords %s", quoteKeywords(keywords)), false, err)
	}
	candidates, err := collectEntities(rows)
	if err != nil {
		return nil, fail(fmt.Sprintf("find by keywords %s", quoteKeywords(keywords)), false, err)
	}
	type hit struct {
		e     kgmem.Entity
		count int
	}
	var hits []hit
	var buf []string
	for _, e := range candidates {
		if c := textrule.CountKeywords(folded, &buf, e.ID, e.Name, e.Aliases, e.Tags); c > 0 {
			hits = append(hits, hit{e, c})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if a.count != b.count {
			return b.count - a.count
		}
		return strings.Compare(a.e.ID, b.e.ID)
	})
	out := make([]kgmem.Entity, len(hits))
	for i, h := range hits {
		out[i] = h.e
	}
	return out, nil
}

// keywordQuery returns the candidate query for folded keywords and its
// arguments; nil arguments when no keyword can occur in stored text.
func (g *Graph) keywordQuery(folded []string) (string, []any) {
	var conds []string
	args := []any{g.ns}
	for _, k := range folded {
		if !storable(k) {
			continue // stored text holds no NUL byte
		}
		args = append(args, keywordGrams(k))
		n := len(args)
		conds = append(conds, fmt.Sprintf("grams @> $%d OR tag_grams @> $%d", n, n))
	}
	if len(conds) == 0 {
		return "", nil
	}
	return "SELECT " + entityColumns + " FROM " + entitiesTable +
		" WHERE namespace = $1 AND (" + strings.Join(conds, " OR ") + ")", args
}

// LinkEntities returns the entities text names by their name or an alias,
// exactly as kgmem.InMemoryGraph.LinkEntities does: exact matches after
// case folding and full-width narrowing, on word boundaries for alphabetic
// scripts and anywhere for CJK, the longest match winning, a plural linking
// the name its singular spells. It computes the match key of every run of
// up to 16 units of text (and its singular key), fetches the entities
// whose name or alias has one of those keys in one query (a GIN index on
// link_keys), and applies kgmem.LinkWithKeywords' matching rules to them.
// Text that is not valid UTF-8 returns kgmem.ErrInvalidArgument. Cost:
// O(units of text × 16) keys, independent of the number of entities.
func (g *Graph) LinkEntities(ctx context.Context, text string) ([]kgmem.EntityMention, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !utf8.ValidString(text) {
		return nil, fmt.Errorf("pgraph: link entities: text %s is not valid UTF-8: %w", quote.Value(text), kgmem.ErrInvalidArgument)
	}
	spans := textrule.LinkSpanKeys(text)
	if len(spans) == 0 {
		return []kgmem.EntityMention{}, nil // as kgmem's in-memory graph answers
	}
	keys := slices.DeleteFunc(spans, func(k string) bool { return !storable(k) })
	var candidates []kgmem.Entity
	err := g.readPlanned(ctx, func(rows pgx.Rows) (err error) {
		candidates, err = collectEntities(rows)
		return err
	}, linkQuery, g.ns, keys)
	if err != nil {
		return nil, fail("link entities", false, err)
	}
	return kgmem.LinkWithKeywords(ctx, linkCandidates{g, candidates}, text)
}

// readPlanned runs one read query in a transaction of its own under
// genericPlans, in one round trip (BEGIN, the setting, the query and
// COMMIT travel in one pipelined batch), and hands its rows to read, which
// must consume them.
func (g *Graph) readPlanned(ctx context.Context, read func(pgx.Rows) error, sql string, args ...any) error {
	b := &pgx.Batch{}
	queueRead(b, "BEGIN READ ONLY")
	b.Queue(sql, args...)
	b.Queue("COMMIT")
	br := g.pool.SendBatch(ctx, b)
	defer br.Close()
	if err := beginRead(br); err != nil {
		return err
	}
	rows, err := br.Query()
	if err != nil {
		return err
	}
	if err := read(rows); err != nil {
		return err
	}
	_, err = br.Exec()
	return err
}

const linkQuery = "SELECT " + entityColumns + " FROM " + entitiesTable + " WHERE namespace = $1 AND link_keys && $2"

// FindByName returns every entity of the namespace whose name or an alias
// has the same match key as name, once each, ordered by ID in byte order,
// exactly as kgmem.InMemoryGraph.FindByName does: "project apollo" finds
// the entity named "Project Apollo", "spiderman" the one named
// "Spider-Man". A name without a match key (kgmem's linking rule) finds nothing;
// an empty, whitespace-only or invalid name returns an error wrapping
// kgmem.ErrInvalidArgument (kgmem.ValidateName). One query, answered from
// the GIN index on link_keys.
func (g *Graph) FindByName(ctx context.Context, name string) ([]kgmem.Entity, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := kgmem.ValidateName(name); err != nil {
		return nil, err
	}
	key, _, ok := textrule.LinkKey(name)
	if !ok {
		return nil, nil
	}
	rows, err := g.pool.Query(ctx, "SELECT "+entityColumns+" FROM "+entitiesTable+
		" WHERE namespace = $1 AND link_keys @> ARRAY[$2::text]", g.ns, key)
	if err != nil {
		return nil, fail("find by name "+quote.Value(name), false, err)
	}
	found, err := collectEntities(rows)
	if err != nil {
		return nil, fail("find by name "+quote.Value(name), false, err)
	}
	slices.SortFunc(found, func(a, b kgmem.Entity) int { return strings.Compare(a.ID, b.ID) })
	return found, nil
}

// linkCandidates answers kgmem.LinkWithKeywords' keyword search with the
// entities already fetched by link key: every entity the text can link is
// among them, and the matching rules ignore the others.
type linkCandidates struct {
	kgmem.KnowledgeGraph
	entities []kgmem.Entity
}

func (c linkCandidates) FindByKeywords(context.Context, []string) ([]kgmem.Entity, error) {
	return c.entities, nil
}

// FindTags returns, sorted in byte order, every tag in use in the
// namespace that starts with prefix after prefix is lower-cased. An empty
// prefix returns every tag. A prefix that is not valid UTF-8 returns
// kgmem.ErrInvalidArgument. Cost: one query reading the tags of every
// entity of the namespace.
func (g *Graph) FindTags(ctx context.Context, prefix string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !utf8.ValidString(prefix) {
		return nil, fmt.Errorf("pgraph: tag prefix %s is not valid UTF-8: %w", quote.Value(prefix), kgmem.ErrInvalidArgument)
	}
	prefix = textrule.TagPrefix(prefix)
	if !storable(prefix) {
		return nil, nil
	}
	rows, err := g.pool.Query(ctx, "SELECT DISTINCT t FROM "+entitiesTable+
		", unnest(tags) AS t WHERE namespace = $1 AND tags <> '{}' AND starts_with(t, $2)", g.ns, prefix)
	if err != nil {
		return nil, fail("find tags "+quote.Value(prefix), false, err)
	}
	tags, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fail("find tags "+quote.Value(prefix), false, err)
	}
	if len(tags) == 0 {
		return nil, nil
	}
	slices.Sort(tags)
	return tags, nil
}

// SetEntityTags replaces the tags of the entity with the given ID and
// returns how many it kept. Tags are trimmed, lower-cased, de-duplicated
// keeping the first occurrence, emptied ones dropped, then cut to
// MaxTagsPerEntity, as kgmem does. It returns an error wrapping
// kgmem.ErrNotFound for an unknown entity and one wrapping
// kgmem.ErrInvalidArgument for an empty, whitespace-only or invalid ID or
// a tag that is not valid UTF-8 or holds a NUL byte; on error nothing
// changes.
func (g *Graph) SetEntityTags(ctx context.Context, id string, tags []string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := validateID(id); err != nil {
		return 0, err
	}
	norm, err := textrule.NormalizeTags(tags, g.tags.MaxTagsPerEntity, kgmem.ErrInvalidArgument)
	if err != nil {
		return 0, errmsg.Wrap("pgraph: set tags of entity "+quote.Value(id), err)
	}
	for _, t := range norm {
		if !storable(t) {
			return 0, fmt.Errorf("pgraph: set tags of entity %s: tag %s contains a NUL byte, which PostgreSQL cannot store: %w",
				quote.Value(id), quote.Value(t), kgmem.ErrInvalidArgument)
		}
	}
	notFound := fmt.Errorf("pgraph: set tags of entity %s: %w", quote.Value(id), kgmem.ErrNotFound)
	if !storable(id) {
		return 0, notFound
	}
	err = g.retry(ctx, func() error {
		tag, err := g.pool.Exec(ctx, "UPDATE "+entitiesTable+
			" SET tags = $3, tag_grams = $4 WHERE namespace = $1 AND id = $2", g.ns, id, nonNil(norm), tagGrams(norm))
		switch {
		case err != nil:
			return fail("set tags of entity "+quote.Value(id), true, err)
		case tag.RowsAffected() == 0:
			return notFound
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return len(norm), nil
}

// EntityCountByTag returns how many entities of the namespace carry tag,
// after tag is trimmed and lower-cased; 0 for a tag no entity has. A tag
// that is not valid UTF-8 returns kgmem.ErrInvalidArgument. One query,
// answered from the GIN index on tags.
func (g *Graph) EntityCountByTag(ctx context.Context, tag string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if !utf8.ValidString(tag) {
		return 0, fmt.Errorf("pgraph: tag %s is not valid UTF-8: %w", quote.Value(tag), kgmem.ErrInvalidArgument)
	}
	tag = textrule.NormalizeTag(tag)
	if tag == "" || !storable(tag) {
		return 0, nil
	}
	var n int
	err := g.pool.QueryRow(ctx, "SELECT count(*) FROM "+entitiesTable+
		" WHERE namespace = $1 AND tags @> ARRAY[$2::text]", g.ns, tag).Scan(&n)
	if err != nil {
		return 0, fail("count entities with tag "+quote.Value(tag), false, err)
	}
	return n, nil
}

// Clear deletes every entity and relation of the graph's namespace, in one
// transaction. Other namespaces are untouched. The change feed
// (EntityChanges) answers every version issued before with a Reset.
func (g *Graph) Clear(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return g.retry(ctx, func() error {
		err := pgx.BeginFunc(ctx, g.pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "DELETE FROM "+relationsTable+" WHERE namespace = $1", g.ns); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, "DELETE FROM "+entitiesTable+" WHERE namespace = $1", g.ns); err != nil {
				return err
			}
			// The change feed answers every earlier version with a Reset,
			// so the removals need not be kept.
			if _, err := tx.Exec(ctx, "DELETE FROM "+removalsTable+" WHERE namespace = $1", g.ns); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO "+feedTable+" (namespace, floor) VALUES ($1, pg_current_xact_id())"+
				" ON CONFLICT (namespace) DO UPDATE SET floor = greatest("+feedTable+".floor, excluded.floor)", g.ns)
			return err
		})
		if err != nil {
			return fail("clear namespace "+quote.Value(g.ns), true, err)
		}
		return nil
	})
}

// maxAttempts is how many times a write runs when PostgreSQL aborts it
// with a deadlock or a serialization failure, which concurrent writers
// can cause (two RemoveEntity calls cascading over the same relations in
// opposite orders, for example).
const maxAttempts = 5

// retry runs write until it succeeds, fails for a reason other than a
// deadlock, a serialization failure or errRetry, or has run maxAttempts
// times. Each failed attempt rolled back completely.
func (g *Graph) retry(ctx context.Context, write func() error) error {
	for attempt := 1; ; attempt++ {
		err := write()
		if err == nil || !retryable(err) {
			return err
		}
		if attempt == maxAttempts {
			if errors.Is(err, errRetry) {
				return fmt.Errorf("pgraph: write kept conflicting with concurrent writers after %d attempts: %w", attempt, err)
			}
			return err
		}
		pause := time.Duration(1+rand.IntN(1<<attempt)) * time.Millisecond
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
	}
}

func retryable(err error) bool {
	if errors.Is(err, errRetry) {
		return true
	}
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40P01" || pgErr.Code == "40001")
}

func isForeignKeyViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23503"
}

// encodeProperties returns the JSON object of m; "{}" for an empty map.
func encodeProperties(m map[string]string) (string, error) {
	if len(m) == 0 {
		return "{}", nil
	}
	b, err := json.Marshal(m)
	return string(b), err
}

// nonNil returns s, or an empty slice for nil, so that arrays are stored
// as '{}' rather than NULL.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// scanEntity reads the entityColumns of one row. Empty slices and maps
// come back nil, as kgmem's in-memory graph returns them.
func scanEntity(row pgx.Row) (kgmem.Entity, error) {
	var (
		e     kgmem.Entity
		props []byte
	)
	if err := row.Scan(&e.ID, &e.Name, &e.Type, &e.Description, &e.Aliases, &e.Tags, &props, &e.SourceIDs); err != nil {
		return kgmem.Entity{}, err
	}
	var err error
	e.Properties, err = decodeProperties(props)
	e.Aliases, e.Tags, e.SourceIDs = nilIfEmpty(e.Aliases), nilIfEmpty(e.Tags), nilIfEmpty(e.SourceIDs)
	return e, err
}

// scanRelation reads the relationColumns of one row.
func scanRelation(row pgx.Row) (kgmem.Relation, error) {
	var (
		r        kgmem.Relation
		props    []byte
		from, to *time.Time
	)
	if err := row.Scan(&r.SourceID, &r.TargetID, &r.Type, &r.Weight, &props, &r.SourceIDs, &from, &to); err != nil {
		return kgmem.Relation{}, err
	}
	if from != nil {
		r.ValidFrom = from.UTC()
	}
	if to != nil {
		r.ValidTo = to.UTC()
	}
	var err error
	r.Properties, err = decodeProperties(props)
	r.SourceIDs = nilIfEmpty(r.SourceIDs)
	return r, err
}

func collectEntities(rows pgx.Rows) ([]kgmem.Entity, error) {
	defer rows.Close()
	var out []kgmem.Entity
	for rows.Next() {
		e, err := scanEntity(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

func decodeProperties(b []byte) (map[string]string, error) {
	if len(b) == 0 || string(b) == "{}" {
		return nil, nil
	}
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("decode properties: %w", err)
	}
	if len(m) == 0 {
		return nil, nil
	}
	return m, nil
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}
