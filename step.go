package kgmem

// A graph and a store each have one write step: check validates the write
// on its own, outside every lock; commitWrite takes the part's write lock,
// resolves the write against the contents, calls journal — which records
// the write, or commits the store's step inside the graph's for a write
// that spans both — and applies it. A write that resolve rejects, or whose
// journal fails, changes nothing; one that changes nothing (removing a
// source no entity cites) calls no journal. A graph's and a store's own
// writes are this step (apply: check, then commitWrite with the part's
// journal); a Memory's Ingest composes the two (Memory.writeBoth).

// commitWrite takes g's write lock, resolves m, checked, against the graph,
// records it with journal (nil: nothing is recorded) unless it changes
// nothing, and applies it; a write whose record fails is not applied.
func (g *InMemoryGraph) commitWrite(m *mutation, journal func() error) error {
	if err := g.lock(); err != nil {
		return err
	}
	defer g.mu.Unlock()
	if err := g.resolve(m); err != nil {
		return err
	}
	if m.noop {
		return nil
	}
	if journal != nil {
		if err := journal(); err != nil {
			return err
		}
	}
	g.do(m)
	return nil
}

// commitWrite takes s's write lock, resolves m, checked, against the
// store, records it with journal (nil: nothing is recorded) and applies
// it; a write whose record fails is not applied.
func (s *InMemoryKnowledgeStore) commitWrite(m *pageMutation, journal func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.commitLocked(m, journal)
}

// commitLocked is commitWrite with s.mu held for writing, for a batch of
// writes under one lock (PutBatch).
func (s *InMemoryKnowledgeStore) commitLocked(m *pageMutation, journal func() error) error {
	if err := s.resolve(m); err != nil {
		return err
	}
	if journal != nil {
		if err := journal(); err != nil {
			return err
		}
	}
	s.do(m)
	return nil
}
