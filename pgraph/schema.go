package pgraph

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// SchemaVersion is the version of the database schema this package reads
// and writes; Migrate brings a database up to it.
const SchemaVersion = 11

// migrationLock is the key of the transaction-level advisory lock that
// serialises migrations: two processes migrating at once take turns, and
// the second finds the work done.
const migrationLock int64 = 0x6b676d656d706772 // "kgmempgr"

// Table names. Every graph of a database shares them; the namespace column
// keeps the graphs apart.
const (
	versionTable   = "kgmem_schema_version"
	entitiesTable  = "kgmem_entities"
	relationsTable = "kgmem_relations"
	removalsTable  = "kgmem_entity_removals"
	feedTable      = "kgmem_entity_feed"
	pagesTable     = "kgmem_pages"
	pageTermsTable = "kgmem_page_terms"
	pageStatsTable = "kgmem_page_stats"
	vectorsTable   = "kgmem_page_vectors"
	termDFsTable   = "kgmem_page_term_dfs"
	memSchemaTable = "kgmem_memory_schemas"
)

// migrations[i] brings the schema from version i to version i+1. A
// migration, once released, never changes; later versions append.
var migrations = []migration{
	// Version 1: entities, relations and their indexes.
	//
	// The primary key of kgmem_relations, (namespace, source, target, type),
	// also serves outgoing traversals; kgmem_relations_target serves
	// incoming ones. Both foreign keys cascade, so deleting an entity
	// deletes its relations in the same statement and no writer can leave
	// a relation whose endpoint is gone.
	//
	// grams and tag_grams hold the 1- to 3-rune substrings of the folded ID,
	// name, aliases and tags (see text.go) for FindByKeywords; link_keys the
	// match keys of the name and aliases for LinkEntities.
	//
	// GIN indexes gather new entries in a pending list that every search
	// reads sequentially until VACUUM or an overflow merges it. Capping the
	// list at 256 kB (the default is 4 MB) keeps searches right after a
	// burst of writes cheap, and the planner on the index, for about twice
	// the write cost of the default in bulk loads.
	{sql: `
CREATE TABLE kgmem_entities (
	namespace   text    NOT NULL,
	id          text    NOT NULL,
	name        text    NOT NULL DEFAULT '',
	type        text    NOT NULL DEFAULT '',
	description text    NOT NULL DEFAULT '',
	aliases     text[]  NOT NULL DEFAULT '{}',
	tags        text[]  NOT NULL DEFAULT '{}',
	properties  jsonb   NOT NULL DEFAULT '{}',
	source_ids  text[]  NOT NULL DEFAULT '{}',
	grams       text[]  NOT NULL DEFAULT '{}',
	tag_grams   text[]  NOT NULL DEFAULT '{}',
	link_keys   text[]  NOT NULL DEFAULT '{}',
	PRIMARY KEY (namespace, id)
);
CREATE INDEX kgmem_entities_tags ON kgmem_entities USING gin (tags) WITH (gin_pending_list_limit = 256);
CREATE INDEX kgmem_entities_grams ON kgmem_entities USING gin (grams) WITH (gin_pending_list_limit = 256);
CREATE INDEX kgmem_entities_tag_grams ON kgmem_entities USING gin (tag_grams) WITH (gin_pending_list_limit = 256);
CREATE INDEX kgmem_entities_link_keys ON kgmem_entities USING gin (link_keys) WITH (gin_pending_list_limit = 256);

CREATE TABLE kgmem_relations (
	namespace  text             NOT NULL,
	source     text             NOT NULL,
	target     text             NOT NULL,
	type       text             NOT NULL,
	weight     double precision NOT NULL CHECK (weight >= 0 AND weight <= 1),
	properties jsonb            NOT NULL DEFAULT '{}',
	source_ids text[]           NOT NULL DEFAULT '{}',
	PRIMARY KEY (namespace, source, target, type),
	FOREIGN KEY (namespace, source) REFERENCES kgmem_entities (namespace, id) ON DELETE CASCADE,
	FOREIGN KEY (namespace, target) REFERENCES kgmem_entities (namespace, id) ON DELETE CASCADE
);
CREATE INDEX kgmem_relations_target ON kgmem_relations (namespace, target);
`},
	// Version 2: link_keys also hold the key of a name whose words are
	// joined by a hyphen, apostrophe or dot, run together ("spiderman" for
	// Spider-Man), as kgmem links them; the keys are recomputed in Go.
	{backfill: backfillLinkKeys},
	// Version 3: a relation's weight lies in (0,1], a stored 0 having
	// always meant "unweighted" to kgmem's in-memory graph; rows written
	// with weight 0 before become 1, and the check refuses 0 from now on.
	{sql: `
UPDATE kgmem_relations SET weight = 1 WHERE weight = 0;
ALTER TABLE kgmem_relations
	DROP CONSTRAINT kgmem_relations_weight_check,
	ADD CONSTRAINT kgmem_relations_weight_check CHECK (weight > 0 AND weight <= 1);
`},
	// Version 4: an index of the pages entities cite, for EntitiesCitedBy
	// (kgmem.SourceIndex), which the retriever's content-seeded expansion
	// asks on every seeded query.
	{sql: `
CREATE INDEX kgmem_entities_source_ids ON kgmem_entities USING gin (source_ids) WITH (gin_pending_list_limit = 256);
`},
	// Version 5: valid time on relations. NULL is kgmem's zero time: an
	// unknown start (valid_from) or an open end (valid_to). kgmem stores
	// times in UTC to the microsecond, timestamptz's precision, so every
	// instant round-trips exactly. Rows written before have neither, and
	// stay valid at every instant.
	{sql: `
ALTER TABLE kgmem_relations
	ADD COLUMN valid_from timestamptz,
	ADD COLUMN valid_to   timestamptz,
	ADD CONSTRAINT kgmem_relations_valid_check CHECK (valid_from IS NULL OR valid_to IS NULL OR valid_to >= valid_from);
`},
	// Version 6: the entity change feed (kgmem.EntityChangeFeed, see
	// changes.go). change_xid is the ID of the transaction that last wrote
	// the entity, set by a trigger on every insert and update, whatever
	// statement makes it (AddEntity, AddBatch's upsert from COPY,
	// SetEntityTags, and any later write path); rows written before get the
	// migration's own. A statement trigger records every deleted entity,
	// cascades and Clear included, in kgmem_entity_removals. That table is
	// trimmed to the last removalWindow removals of the database, every
	// 1,024 removals, and kgmem_entity_feed keeps, per namespace, the floor:
	// the newest transaction whose removal was trimmed (or that cleared the
	// namespace), at or below which a change feed version is served as a
	// Reset. xid8 and pg_current_xact_id need PostgreSQL 13.
	{sql: `
ALTER TABLE kgmem_entities ADD COLUMN change_xid xid8;
UPDATE kgmem_entities SET change_xid = pg_current_xact_id();
ALTER TABLE kgmem_entities ALTER COLUMN change_xid SET NOT NULL;
CREATE INDEX kgmem_entities_change_xid ON kgmem_entities (namespace, change_xid);

CREATE TABLE kgmem_entity_removals (
	seq        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	namespace  text   NOT NULL,
	id         text   NOT NULL,
	change_xid xid8   NOT NULL
);
CREATE INDEX kgmem_entity_removals_change_xid ON kgmem_entity_removals (namespace, change_xid);

CREATE TABLE kgmem_entity_feed (
	namespace text PRIMARY KEY,
	floor     xid8 NOT NULL
);

CREATE FUNCTION kgmem_entity_written() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW.change_xid := pg_current_xact_id();
	RETURN NEW;
END
$$;
CREATE TRIGGER kgmem_entities_written BEFORE INSERT OR UPDATE ON kgmem_entities
	FOR EACH ROW EXECUTE FUNCTION kgmem_entity_written();

CREATE FUNCTION kgmem_entity_removed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	lo bigint;
	hi bigint;
BEGIN
	WITH ins AS (
		INSERT INTO kgmem_entity_removals (namespace, id, change_xid)
		SELECT namespace, id, pg_current_xact_id() FROM removed
		RETURNING seq
	)
	SELECT min(seq), max(seq) INTO lo, hi FROM ins;
	IF hi IS NOT NULL AND hi / 1024 > (lo - 1) / 1024 THEN
		WITH trimmed AS (
			DELETE FROM kgmem_entity_removals WHERE seq <= hi - 65536
			RETURNING namespace, change_xid
		)
		INSERT INTO kgmem_entity_feed (namespace, floor)
		SELECT namespace, max(change_xid) FROM trimmed GROUP BY namespace ORDER BY namespace
		ON CONFLICT (namespace) DO UPDATE SET floor = greatest(kgmem_entity_feed.floor, excluded.floor);
	END IF;
	RETURN NULL;
END
$$;
CREATE TRIGGER kgmem_entities_removed AFTER DELETE ON kgmem_entities
	REFERENCING OLD TABLE AS removed
	FOR EACH STATEMENT EXECUTE FUNCTION kgmem_entity_removed();
`},
	// Version 7: an index of the pages relations cite, for RemoveSource.
	{sql: `
CREATE INDEX kgmem_relations_source_ids ON kgmem_relations USING gin (source_ids) WITH (gin_pending_list_limit = 256);
`},
	// Version 8: knowledge pages (Store, see store.go). kgmem_pages holds
	// each page and its length in terms (title_len, content_len: the terms
	// kgmem.Tokenize cuts from its title and content, computed in Go);
	// tags and metadata are NULL when the page has none, so that nil and
	// empty round-trip. kgmem_page_terms is the inverted index: one row
	// per distinct term of a page, with its BM25 frequency (title
	// occurrences count twice) and the page's length, so that a search
	// reads only the rows of its terms; the primary key includes the
	// frequency and length, so that once VACUUM has marked the table's
	// pages all-visible a search reads the index alone. Page writes delete
	// a page's rows through kgmem_page_terms_page; there is no foreign key,
	// whose row-by-row check would be most of a bulk load's cost.
	// kgmem_page_stats keeps, per namespace, the page count and term
	// totals the average length comes from; every page write updates it,
	// and so the page writers of a namespace take turns on its row.
	{sql: `
CREATE TABLE kgmem_pages (
	namespace   text    NOT NULL,
	id          text    NOT NULL,
	title       text    NOT NULL DEFAULT '',
	content     text    NOT NULL DEFAULT '',
	tags        text[],
	metadata    jsonb,
	title_len   integer NOT NULL,
	content_len integer NOT NULL,
	PRIMARY KEY (namespace, id)
);

CREATE TABLE kgmem_page_terms (
	namespace text             NOT NULL,
	term      text             NOT NULL,
	page_id   text             NOT NULL,
	tf        double precision NOT NULL,
	length    double precision NOT NULL,
	PRIMARY KEY (namespace, term, page_id) INCLUDE (tf, length)
);
CREATE INDEX kgmem_page_terms_page ON kgmem_page_terms (namespace, page_id);

CREATE TABLE kgmem_page_stats (
	namespace     text   PRIMARY KEY,
	pages         bigint NOT NULL DEFAULT 0,
	title_terms   bigint NOT NULL DEFAULT 0,
	content_terms bigint NOT NULL DEFAULT 0
);
`},
	// Version 9: page vectors (a Store with WithEmbedder, see vector.go).
	// kgmem_page_vectors holds each page's unit vector, float32 values
	// little-endian in a bytea. kgmem_page_stats records the model of the
	// namespace's vectors (its name and dimensions; NULL without vectors)
	// and written, the ID of the last transaction that wrote a page of the
	// namespace, by which a Store knows whether the vectors it keeps in
	// memory for Search are current. Rows written before have written 0.
	{sql: `
ALTER TABLE kgmem_page_stats
	ADD COLUMN model   text,
	ADD COLUMN dims    integer,
	ADD COLUMN written bigint NOT NULL DEFAULT 0;

CREATE TABLE kgmem_page_vectors (
	namespace text  NOT NULL,
	page_id   text  NOT NULL,
	vector    bytea NOT NULL,
	PRIMARY KEY (namespace, page_id)
);
`},
	// Version 10: the term dictionary (see terms.go). kgmem_page_term_dfs
	// holds, per namespace and term of kgmem_page_terms, the number of
	// pages that have the term (df; 0 once the last is gone, until Clear)
	// and written, the ID of the last transaction that changed the term's
	// rows of kgmem_page_terms, by which a Store knows whether the rows it
	// keeps in memory for the most frequent terms are current. Search reads
	// a query's document frequencies from it instead of counting index
	// rows. The backfill counts the rows written before (written 0).
	{sql: `
CREATE TABLE kgmem_page_term_dfs (
	namespace text   NOT NULL,
	term      text   NOT NULL,
	df        bigint NOT NULL,
	written   bigint NOT NULL DEFAULT 0,
	PRIMARY KEY (namespace, term)
);
INSERT INTO kgmem_page_term_dfs (namespace, term, df)
	SELECT namespace, term, count(*) FROM kgmem_page_terms GROUP BY namespace, term;
`},
	// Version 11: the schema of a Memory (see memschema.go).
	// kgmem_memory_schemas holds, per namespace whose memory was given a
	// schema, the kgmem.Schema in its normalized form (kgmem.Schema.Normalize)
	// as JSON: the single-valued relation types Ingest supersedes and the
	// vocabulary the retriever reads questions with. A namespace without a
	// row has the empty schema.
	{sql: `
CREATE TABLE kgmem_memory_schemas (
	namespace text  PRIMARY KEY,
	schema    jsonb NOT NULL
);
`},
	// Version 12: link keys are bare of the accents of Latin letters
	// ("akinoshu kenji" for Akinoshū Kenji), as kgmem links them; the keys
	// are recomputed in Go.
	{backfill: backfillLinkKeys},
}

// removalWindow is how many entity removals, across every namespace of
// the database, kgmem_entity_removals keeps (give or take the 1,024
// between two trims and the removals of transactions still running):
// about 100 bytes each. Schema version 6 writes it into its trigger
// (a test checks they agree); a change needs a new migration.
const removalWindow = 65536

// migration is one step of the schema: SQL, or a backfill run in Go
// inside the migration's transaction.
type migration struct {
	sql      string
	backfill func(ctx context.Context, tx pgx.Tx) error
}

// backfillLinkKeys recomputes the link keys of every entity.
func backfillLinkKeys(ctx context.Context, tx pgx.Tx) error {
	rows, err := tx.Query(ctx, "SELECT namespace, id, name, aliases FROM "+entitiesTable)
	if err != nil {
		return err
	}
	type row struct {
		ns, id, name string
		aliases      []string
	}
	var all []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.ns, &r.id, &r.name, &r.aliases); err != nil {
			rows.Close()
			return err
		}
		all = append(all, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	b := &pgx.Batch{}
	for _, r := range all {
		b.Queue("UPDATE "+entitiesTable+" SET link_keys = $3 WHERE namespace = $1 AND id = $2",
			r.ns, r.id, entityLinkKeys(r.name, r.aliases))
	}
	return tx.SendBatch(ctx, b).Close()
}

// Migrate creates the schema, or upgrades it to SchemaVersion. It is
// idempotent and safe to call from several processes at once: each
// migration runs in its own transaction under a transaction-level advisory
// lock, and records its version in kgmem_schema_version, so every
// migration is applied exactly once. Creating tables needs the CREATE
// privilege on the current schema; no extension is required.
//
// Migrate returns an error when the database's schema is newer than this
// package knows.
func (g *Graph) Migrate(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	for {
		done, err := g.migrateOnce(ctx)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
	}
}

// migrateOnce applies the next pending migration, if any, and reports
// whether the schema was already current.
func (g *Graph) migrateOnce(ctx context.Context) (done bool, err error) {
	err = pgx.BeginFunc(ctx, g.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", migrationLock); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+versionTable+` (
	version    integer     PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
)`); err != nil {
			return err
		}
		var v int
		if err := tx.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM "+versionTable).Scan(&v); err != nil {
			return err
		}
		switch {
		case v > SchemaVersion:
			return fmt.Errorf("database schema version %d is newer than version %d, the newest this package knows", v, SchemaVersion)
		case v == SchemaVersion:
			done = true
			return nil
		}
		m := migrations[v]
		if m.sql != "" {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("to version %d: %w", v+1, err)
			}
		}
		if m.backfill != nil {
			if err := m.backfill(ctx, tx); err != nil {
				return fmt.Errorf("to version %d: %w", v+1, err)
			}
		}
		_, err := tx.Exec(ctx, "INSERT INTO "+versionTable+" (version) VALUES ($1)", v+1)
		return err
	})
	if err != nil {
		return false, fail("migrate", true, err)
	}
	return done, nil
}

// schemaVersion returns the version recorded in the database, 0 when
// Migrate has never run.
func (g *Graph) schemaVersion(ctx context.Context) (int, error) {
	var v int
	err := g.pool.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM "+versionTable).Scan(&v)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P01" { // undefined_table
		return 0, nil
	}
	return v, err
}
