package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var (
	errInvalid = errors.New("invalid argument")
	errCorrupt = errors.New("corrupt")
	testErrs   = Errors{Invalid: errInvalid, Corrupt: errCorrupt, Trim: []error{errInvalid}}
)

type header struct {
	Format   string `json:"format"`
	Lines    int    `json:"lines"`
	Checksum string `json:"checksum,omitempty"`
}

type value struct {
	ID string  `json:"id"`
	W  float64 `json:"w,omitempty"`
}

// write returns a snapshot of n values, sealed when checksum is set.
func write(t *testing.T, n int, checksum bool) []byte {
	t.Helper()
	var b bytes.Buffer
	lw := NewWriter(&b, testErrs)
	h := header{Format: "test", Lines: n}
	if checksum {
		h.Checksum = Checksum
	}
	lw.Encode(h)
	for i := range n {
		lw.Encode(value{ID: strings.Repeat("x", i+1), W: float64(i) / 3})
	}
	if checksum {
		lw.Seal()
	}
	written, err := lw.Finish()
	require.NoError(t, err)
	require.Equal(t, int64(b.Len()), written)
	return b.Bytes()
}

// read reads a snapshot that write wrote, and returns its values and the
// bytes consumed.
func read(in []byte) ([]value, int64, error) {
	lr := NewReader(bytes.NewReader(in), "snapshot", testErrs)
	var vals []value
	err := func() error {
		var h header
		if err := lr.Header(&h); err != nil {
			return err
		}
		if err := lr.Declare(h.Checksum); err != nil {
			return err
		}
		names := Names(reflect.TypeFor[value]())
		for range h.Lines {
			var v value
			if err := lr.Value(&v, "value", names); err != nil {
				return err
			}
			vals = append(vals, v)
		}
		return nil
	}()
	err = lr.Done(err)
	return vals, lr.Consumed(), err
}

// TestRoundTrip: what a Writer writes, a Reader reads back whole, sealed
// or not, and it counts every byte.
func TestRoundTrip(t *testing.T) {
	for _, sealed := range []bool{false, true} {
		in := write(t, 5, sealed)
		require.Equal(t, sealed, bytes.Contains(in, []byte(`{"crc32c":"`)))
		vals, n, err := read(in)
		require.NoError(t, err)
		require.Equal(t, int64(len(in)), n)
		require.Len(t, vals, 5)
		require.Equal(t, value{ID: "xxx", W: 2.0 / 3}, vals[2])
	}
}

// TestReadErrors: each way a snapshot can be wrong gives the error that
// names it, wrapping the sentinels the Reader was given.
func TestReadErrors(t *testing.T) {
	sealed, plain := string(write(t, 2, true)), string(write(t, 2, false))
	cases := []struct {
		name, in string
		corrupt  bool
		want     string
	}{
		{"empty", "", false, "snapshot line 1: empty input: no header"},
		{"unknown key", strings.Replace(plain, `"lines"`, `"lines":2,"extra"`, 1), false, `snapshot line 1: header: unknown field "extra"`},
		{"no newline", strings.TrimSuffix(plain, "\n"), false, "snapshot line 3: last line has no newline: the snapshot is truncated"},
		{"too few lines", strings.Replace(plain, `"lines":2`, `"lines":3`, 1), false, "snapshot line 4: unexpected end of snapshot: the header announces more lines"},
		{"data after", plain + "{}\n", false, "snapshot line 4: data after the last line the header announces"},
		{"unsupported checksum", strings.Replace(plain, `"lines":2`, `"lines":2,"checksum":"md5"`, 1), false, `header: unsupported checksum "md5", want "crc32c"`},
		{"checksum line missing", sealed[:strings.LastIndex(sealed[:len(sealed)-1], "\n")+1], true, "the header declares a crc32c checksum, and the snapshot ends without its checksum line: it is truncated"},
		{"damaged value", strings.Replace(sealed, `"xx"`, `"xy"`, 1), true, "checksum mismatch"},
		{"damaged value read as invalid", strings.Replace(sealed, `"xx"`, `"x"}`, 1), true, "snapshot line 3: value: invalid character"},
		{"after the checksum line", sealed + "\n", true, "data after the checksum line"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := read([]byte(c.in))
			require.ErrorIs(t, err, errInvalid)
			require.ErrorContains(t, err, c.want)
			require.Equal(t, c.corrupt, errors.Is(err, errCorrupt), "%v", err)
			require.True(t, strings.HasPrefix(err.Error(), "kgmem: "), "%v", err)
		})
	}
}

// TestDamageKeepsTheFirstError: a snapshot whose value is invalid and
// whose checksum fails says both, without the first error's sentinel
// text in the middle.
func TestDamageKeepsTheFirstError(t *testing.T) {
	in := strings.Replace(string(write(t, 2, true)), `"id":"xx"`, `"id":2`, 1)
	_, _, err := read([]byte(in))
	require.ErrorIs(t, err, errCorrupt)
	require.NotContains(t, err.Error(), "invalid argument, and")
	require.Contains(t, err.Error(), ", and the snapshot is damaged: line 4 (offset")
}

// TestLineLimits: a Writer refuses a line longer than MaxLine, and a
// Reader stops reading one soon after the limit.
func TestLineLimits(t *testing.T) {
	var b bytes.Buffer
	lw := NewWriter(&b, testErrs)
	lw.WriteLine(append(bytes.Repeat([]byte("x"), MaxLine+1), '\n'))
	lw.Encode(header{}) // nothing after the first error
	_, err := lw.Finish()
	require.ErrorIs(t, err, errInvalid)
	require.ErrorContains(t, err, "snapshot line 1 is 67108865 bytes, more than the limit of 67108864 bytes")
	require.Zero(t, b.Len())

	// The reader, with a lower limit (kgmem's tests read a 64 MiB line):
	// a line of a fragment or of several, at the limit and past it.
	for _, n := range []int{100, 1000, 1 << 17, 1<<17 + 1} {
		lr := NewReader(strings.NewReader(strings.Repeat("y", n)+"\n"), "snapshot", testErrs)
		lr.max = 1 << 17
		line, err := lr.next()
		if n <= lr.max {
			require.NoError(t, err)
			require.Len(t, line, n)
			continue
		}
		require.ErrorIs(t, err, errInvalid)
		require.ErrorContains(t, err, "snapshot line 1: line longer than the limit of 131072 bytes")
		require.Less(t, lr.Consumed(), int64(lr.max+1<<16+1), "the reader stopped soon after the limit")
	}
}

// TestDecodeStrict pins what strict decoding refuses.
func TestDecodeStrict(t *testing.T) {
	names := Names(reflect.TypeFor[value]())
	cases := []struct {
		line string
		want string // "" for success
	}{
		{`{"id":"a","w":1}`, ""},
		{`{"id":"a","nested":{}}`, `unknown field "nested"`},
		{`{"i\u0064":"a"}`, ""},
		{`{"i\u0065":"a"}`, `unknown field "ie"`},
		{`{"id":"a"} {}`, "invalid character"},
		{"{\"id\":\"\xff\"}", "not valid UTF-8"},
		{`{"id":"{\"x\":1}"}`, ""},
		{`{"ID":"a"}`, `unknown field "ID"`},
	}
	for _, c := range cases {
		var v value
		err := DecodeStrict([]byte(c.line), &v, names)
		if c.want == "" {
			require.NoError(t, err, c.line)
			continue
		}
		require.ErrorContains(t, err, c.want, c.line)
	}
}

// TestNames follows encoding/json's naming: tags, untagged fields,
// skipped and unexported fields, and embedded structs.
func TestNames(t *testing.T) {
	type Inner struct {
		A int `json:"a"`
		B int
	}
	type outer struct {
		Inner
		C int `json:"c,omitempty"`
		D int `json:"-"`
		e int
	}
	_ = outer{}.e
	require.Equal(t, []string{"a", "B", "c"}, Names(reflect.TypeFor[outer]()))
}

// TestAppendFloat matches encoding/json on the edges of its two forms.
func TestAppendFloat(t *testing.T) {
	for _, f := range []float64{0, 1, -1, 0.5, 1e-6, 9.99e-7, 1e-7, 5e-324, 1e20, 1e21, 123e-9, 1.0 / 3, math.MaxFloat64, -2.5e-8} {
		want, err := json.Marshal(f)
		require.NoError(t, err)
		require.Equal(t, string(want), string(AppendFloat(nil, f)), "%v", f)
	}
	require.True(t, Plain("person:alice x"))
	for _, s := range []string{`a"b`, `a\b`, "tab\t", "é", "\x7f"} {
		require.False(t, Plain(s), "%q", s)
	}
}

// TestGrowFor: capacity follows what was read, never the header's word.
func TestGrowFor(t *testing.T) {
	var s []int
	s = GrowFor(s, 1<<40)
	require.Equal(t, Prealloc, cap(s))
	s = s[:cap(s)]
	s = GrowFor(s, 1<<40)
	require.GreaterOrEqual(t, cap(s), 2*Prealloc)
	require.LessOrEqual(t, cap(s), 3*Prealloc, "doubling, not the header's count")
	small := GrowFor([]int(nil), 3)
	require.Equal(t, 3, cap(small))
	full := make([]int, 3)
	require.GreaterOrEqual(t, cap(GrowFor(full, 3)), 4, "a header that undercounts still lets the next item in")
}
