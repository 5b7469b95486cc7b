package hashembed

import (
	"math"
	"testing"
)

func dot(a, b []float32) float64 {
	s := 0.0
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestEmbed(t *testing.T) {
	a := Embed("Alice leads Project Apollo", 64)
	b := Embed("alice leads project apollo!", 64)
	c := Embed("quantum chromodynamics lattice", 64)
	if len(a) != 64 {
		t.Fatalf("len %d", len(a))
	}
	if d := dot(a, a); math.Abs(d-1) > 1e-6 {
		t.Fatalf("norm² %v, want 1", d)
	}
	if d := dot(a, b); math.Abs(d-1) > 1e-6 {
		t.Fatalf("case and punctuation changed the vector: cos %v", d)
	}
	if dot(a, c) >= dot(a, Embed("Apollo project lead", 64)) {
		t.Fatalf("unrelated text as close as related text")
	}
	if d := dot(Embed(" ,.!", 8), Embed("", 8)); math.Abs(d-1) > 1e-6 {
		t.Fatalf("texts without words: cos %v, want 1", d)
	}
}
