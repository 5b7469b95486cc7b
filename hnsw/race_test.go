//go:build race

package hnsw_test

// raceEnabled is true under the race detector, which slows the building of
// large graphs tenfold.
const raceEnabled = true
