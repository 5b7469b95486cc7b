//go:build race

package hnsw

// raceDetector is true under the race detector.
const raceDetector = true
