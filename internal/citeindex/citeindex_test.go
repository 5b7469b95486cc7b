package citeindex

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIndex(t *testing.T) {
	var x Index
	assert.Zero(t, x.Count("p"))
	assert.Empty(t, x.Slots("p"))
	x.Remove([]string{"p"}, 1) // nothing to remove

	x.Add([]string{"p", "q"}, 3)
	x.Add([]string{"p"}, 1)
	x.Add([]string{"p"}, 1) // twice is once
	assert.Equal(t, []int32{1, 3}, x.Slots("p"))
	assert.Equal(t, []int32{3}, x.Slots("q"))
	assert.Equal(t, 2, x.Count("p"))

	x.Remove([]string{"q", "p"}, 3)
	assert.Equal(t, []int32{1}, x.Slots("p"))
	_, ok := x["q"]
	assert.False(t, ok, "an emptied set is dropped")
}

func TestReplace(t *testing.T) {
	for _, tc := range []struct {
		name     string
		old, new []string
		want     map[string][]int32
	}{
		{"append", []string{"a"}, []string{"a", "b"}, map[string][]int32{"a": {7}, "b": {7}}},
		{"same", []string{"a", "b"}, []string{"a", "b"}, map[string][]int32{"a": {7}, "b": {7}}},
		{"shrink", []string{"a", "b"}, []string{"b"}, map[string][]int32{"b": {7}}},
		{"other", []string{"a"}, []string{"c"}, map[string][]int32{"c": {7}}},
		{"to nothing", []string{"a"}, nil, map[string][]int32{}},
		{"from nothing", nil, []string{"a"}, map[string][]int32{"a": {7}}},
	} {
		var x Index
		x.Add(tc.old, 7)
		x.Add([]string{"z"}, 2) // another slot, untouched
		x.Replace(tc.old, tc.new, 7)
		got := map[string][]int32{}
		for id := range x {
			if id != "z" {
				got[id] = x.Slots(id)
			}
		}
		assert.Equal(t, tc.want, got, tc.name)
		assert.Equal(t, []int32{2}, x.Slots("z"), tc.name)
	}
}
