// Package citeindex maps the IDs a graph's entities or relations cite (the
// pages they were read from) to the slots, small integers, of those that
// cite them, so that finding what cites a page costs what cites it.
package citeindex

import "slices"

// Index maps a cited ID to the set of slots citing it, a map its caller
// may read directly. Its zero value (nil) is empty and usable. It never
// holds an empty set. It is not safe for concurrent use: the caller holds
// a lock, exclusively for Add, Remove and Replace.
type Index map[string]map[int32]struct{}

// Add records that slot s cites ids.
func (x *Index) Add(ids []string, s int32) {
	for _, id := range ids {
		if *x == nil {
			*x = make(Index)
		}
		set := (*x)[id]
		if set == nil {
			set = make(map[int32]struct{}, 1)
			(*x)[id] = set
		}
		set[s] = struct{}{}
	}
}

// Remove records that slot s no longer cites ids.
func (x Index) Remove(ids []string, s int32) {
	for _, id := range ids {
		if set := x[id]; set != nil {
			delete(set, s)
			if len(set) == 0 {
				delete(x, id)
			}
		}
	}
}

// Replace records that slot s, citing old, now cites new. When new only
// appends to old, only the appended IDs are added, so that a write costs
// what it adds rather than the length of the list.
func (x *Index) Replace(old, new []string, s int32) {
	if len(old) <= len(new) && slices.Equal(old, new[:len(old)]) {
		x.Add(new[len(old):], s)
		return
	}
	x.Remove(old, s)
	x.Add(new, s)
}

// Count returns the number of slots citing id.
func (x Index) Count(id string) int { return len(x[id]) }

// Slots returns the slots citing id in ascending order.
func (x Index) Slots(id string) []int32 {
	set := x[id]
	out := make([]int32, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}
