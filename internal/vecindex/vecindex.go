// Package vecindex holds the exact vector machinery of kgmem's knowledge
// store: the dot product every similarity is computed with, the flat array
// of vectors the exact search scans, and the encoding of a vector in a
// snapshot line or a journal record.
//
// It works on plain []float32 and knows nothing of embedders or models.
package vecindex

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// Dot returns the dot product of a and b, which have the same length,
// summed in a fixed order (four running sums over eight-value strides,
// then the tail) so that the same vectors always give the same bits.
func Dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		aa, bb := a[i:i+8:i+8], b[i:i+8:i+8]
		s0 += aa[0]*bb[0] + aa[4]*bb[4]
		s1 += aa[1]*bb[1] + aa[5]*bb[5]
		s2 += aa[2]*bb[2] + aa[6]*bb[6]
		s3 += aa[3]*bb[3] + aa[7]*bb[7]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// Unit returns v scaled to unit length, with the arithmetic every kgmem
// store uses (the squared length summed in float64 in order, each value
// times 1/√length), so that the same vector gives the same bits in any of
// them. bad is the index of the first NaN or infinite value, or -1; u is
// nil when there is one, or when v's length is zero or overflows (zero
// then tells which).
func Unit(v []float32) (u []float32, bad int, zero bool) {
	norm := 0.0
	for i, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, i, false
		}
		norm += f * f
	}
	if norm == 0 || math.IsInf(norm, 0) {
		return nil, -1, norm == 0
	}
	inv := 1 / math.Sqrt(norm)
	u = make([]float32, len(v))
	for i, x := range v {
		u[i] = float32(float64(x) * inv)
	}
	return u, -1, false
}

// Flat holds vectors of Dims dimensions by number, contiguously, so that
// comparing a query with all of them reads one array. Numbers are small
// and dense (a store's page numbers); a number never set holds zeros.
// The zero value holds nothing; set Dims before the first Set.
type Flat struct {
	Dims int
	vecs []float32 // vecs[n*Dims:(n+1)*Dims] is vector n
}

// Set copies v, of Dims values, as vector num.
func (f *Flat) Set(num int32, v []float32) {
	d := f.Dims
	end := (int(num) + 1) * d
	if end > len(f.vecs) {
		f.vecs = slices.Grow(f.vecs, end-len(f.vecs))[:end]
	}
	copy(f.vecs[end-d:end], v)
}

// Clear sets vector num, which Set set, to zeros.
func (f *Flat) Clear(num int32) {
	clear(f.vecs[int(num)*f.Dims : int(num+1)*f.Dims])
}

// At returns vector num, which Set set, sharing f's memory: a later Set or
// Clear of num changes it.
func (f *Flat) At(num int32) []float32 {
	off := int(num) * f.Dims
	return f.vecs[off : off+f.Dims]
}

// Len returns the number of values held: Dims × (one more than the largest
// number set).
func (f *Flat) Len() int { return len(f.vecs) }

// Vector is a vector in a journal record or a snapshot line: the base64
// (standard, padded) of its float32 values, little-endian. Values are
// written bit for bit, so a vector reads back exactly.
type Vector []float32

// MarshalJSON writes v as a base64 string.
func (v Vector) MarshalJSON() ([]byte, error) {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return json.Marshal(base64.StdEncoding.EncodeToString(b))
}

// UnmarshalJSON reads v from a base64 string of a multiple of 4 bytes.
func (v *Vector) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return fmt.Errorf("vector: %v", err)
	}
	if len(b)%4 != 0 {
		return fmt.Errorf("vector: %d bytes, not a multiple of 4", len(b))
	}
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	*v = out
	return nil
}
