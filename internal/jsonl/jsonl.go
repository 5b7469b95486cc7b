// Package jsonl reads and writes the lines of kgmem's snapshots: JSON
// Lines, at most MaxLine bytes each, sealed by a checksum line that holds
// the CRC-32C of every byte before it (docs/FORMAT.md, Snapshots and
// Checksums). It knows nothing of what the lines hold: the graph's and the
// store's snapshot code decode entities, relations and pages with it.
//
// Decoding is strict (DecodeStrict): invalid UTF-8, data after the object
// and unknown keys are refused, so that a snapshot or journal record
// written by a newer kgmem fails instead of losing fields.
package jsonl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kgmem/kgmem/internal/errmsg"
	"github.com/kgmem/kgmem/internal/quote"
)

const (
	// MaxLine is the longest line, newline excluded, that a Writer writes
	// or a Reader reads: 64 MiB. It bounds the memory a hostile snapshot
	// can make a reader allocate for one line.
	MaxLine = 64 << 20
	// Checksum is the checksum a snapshot's header declares,
	// "checksum":"crc32c": the snapshot ends with a checksum line holding
	// the CRC-32C (Castagnoli) of every byte before it, and their number.
	Checksum = "crc32c"
	// Prealloc bounds how many items a reader reserves room for on the
	// word of a header alone (see GrowFor).
	Prealloc = 1 << 10
	// maxChecksumLine bounds the length of a checksum line, newline
	// excluded ({"crc32c":"xxxxxxxx","bytes":N} is at most 49 bytes).
	maxChecksumLine = 64
)

// castagnoli is the table of CRC-32C.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Errors are the sentinels the errors of Writers and Readers wrap, so
// that the package using them can export them.
type Errors struct {
	Invalid error // a line that is too long, or not what the snapshot should hold
	Corrupt error // the snapshot fails its checksum
	// Trim lists sentinels whose text is cut from the end of the message
	// of the error that stopped a reading, when the Reader adds to it that
	// the snapshot is damaged (the new error wraps Corrupt and Invalid).
	Trim []error
}

// GrowFor returns s with room for at least one more item: when s is full
// its capacity doubles, but never past announced, the number of items the
// header says are coming, and never by more than Prealloc before that
// many items have been read. So what a reader holds is always in
// proportion to the bytes it has read, whatever the header claims, and
// doubling copies each item once on average.
func GrowFor[T any](s []T, announced int64) []T {
	if len(s) < cap(s) {
		return s
	}
	n := max(len(s), Prealloc)
	if rest := announced - int64(len(s)); rest < int64(n) {
		n = int(max(rest, 1))
	}
	return slices.Grow(s, n)
}

// appendChecksumLine appends the checksum line of the n bytes before it,
// whose CRC-32C is crc, newline excluded:
//
//	{"crc32c":"1a2b3c4d","bytes":1234}
func appendChecksumLine(b []byte, crc uint32, n int64) []byte {
	const hex = "0123456789abcdef"
	b = append(b, `{"crc32c":"`...)
	for shift := 28; shift >= 0; shift -= 4 {
		b = append(b, hex[crc>>shift&0xf])
	}
	b = append(b, `","bytes":`...)
	b = strconv.AppendInt(b, n, 10)
	return append(b, '}')
}

// checksumLine is the JSON form of a snapshot's checksum line.
type checksumLine struct {
	CRC32C string `json:"crc32c"`
	Bytes  int64  `json:"bytes"`
}

var checksumNames = Names(reflect.TypeFor[checksumLine]())

// Writer encodes values as the lines of a snapshot through a buffer. After
// its first error it writes nothing more, and Finish returns that error.
type Writer struct {
	w       *bufio.Writer
	errs    Errors
	buf     bytes.Buffer // Encode's line
	enc     *json.Encoder
	scratch []byte // Seal's line
	n       int64
	crc     uint32 // CRC-32C of the n bytes written
	line    int
	err     error
}

// NewWriter returns a Writer to w whose errors wrap errs' sentinels.
func NewWriter(w io.Writer, errs Errors) *Writer {
	lw := &Writer{w: bufio.NewWriterSize(w, 1<<16), errs: errs}
	lw.enc = json.NewEncoder(&lw.buf)
	lw.enc.SetEscapeHTML(false)
	return lw
}

// Encode writes v, as encoding/json encodes it without HTML escaping, as
// the next line.
func (lw *Writer) Encode(v any) {
	if lw.err != nil {
		return
	}
	lw.buf.Reset()
	if err := lw.enc.Encode(v); err != nil {
		lw.err = fmt.Errorf("kgmem: snapshot line %d: %w", lw.line+1, err)
		return
	}
	lw.WriteLine(lw.buf.Bytes())
}

// WriteLine writes b, a line that ends with its newline, as the next line.
// A line longer than MaxLine is an error wrapping Invalid.
func (lw *Writer) WriteLine(b []byte) {
	if lw.err != nil {
		return
	}
	lw.line++
	if len(b)-1 > MaxLine {
		lw.err = fmt.Errorf("kgmem: snapshot line %d is %d bytes, more than the limit of %d bytes: %w",
			lw.line, len(b)-1, MaxLine, lw.errs.Invalid)
		return
	}
	lw.write(b)
}

// write writes b, counting and hashing it.
func (lw *Writer) write(b []byte) {
	n, err := lw.w.Write(b)
	lw.n += int64(n)
	lw.crc = crc32.Update(lw.crc, castagnoli, b[:n])
	if err != nil {
		lw.err = fmt.Errorf("kgmem: write snapshot line %d: %w", lw.line, err)
	}
}

// Seal writes the checksum line of every byte written before it.
func (lw *Writer) Seal() {
	if lw.err != nil {
		return
	}
	lw.line++
	lw.scratch = append(appendChecksumLine(lw.scratch[:0], lw.crc, lw.n), '\n')
	lw.write(lw.scratch)
}

// Finish flushes the buffer and returns the bytes written and the first
// error.
func (lw *Writer) Finish() (int64, error) {
	if lw.err != nil {
		return lw.n, lw.err
	}
	if err := lw.w.Flush(); err != nil {
		return lw.n, fmt.Errorf("kgmem: write snapshot: %w", err)
	}
	return lw.n, nil
}

// Plain reports whether s is printable ASCII without '"' or '\\', so that
// JSON writes it between quotes unchanged.
func Plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// AppendFloat appends f as encoding/json writes a float64: the shortest
// decimal that reads back as f, in exponent form below 1e-6 or from 1e21
// on, with a one-digit negative exponent written without its leading
// zero.
func AppendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// Reader reads a snapshot line by line, counting lines and bytes, hashing
// them, and refusing lines longer than MaxLine. Its errors name the line
// (and, for damage, its offset) and wrap the sentinels of its Errors.
type Reader struct {
	r    *bufio.Reader
	errs Errors
	what string // "snapshot"
	n    int64  // bytes consumed
	crc  uint32 // CRC-32C of the n bytes consumed
	line int    // number of the last line read; the header is 1
	buf  []byte
	max  int // the longest line read: MaxLine (tests set less)

	// The last line next returned whole, its number and offset, and the
	// CRC-32C of the bytes before it; last is nil when next stopped
	// inside a line.
	last     []byte
	lastLine int
	lastOff  int64
	lastCRC  uint32

	problem  string // what the last invalid line was, for end
	declared bool   // the first header was read
	checksum string // the checksum it declares; "" for none
	ioErr    bool   // reading failed: the rest of the input is unknown
}

// NewReader returns a Reader of r whose errors call the input what (as in
// "snapshot line 3") and wrap errs' sentinels.
func NewReader(r io.Reader, what string, errs Errors) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 1<<16), what: what, errs: errs, max: MaxLine}
}

// What returns what the Reader's errors call the input.
func (lr *Reader) What() string { return lr.what }

// Consumed returns the number of bytes read so far.
func (lr *Reader) Consumed() int64 { return lr.n }

// errEOF reports a clean end of input at a line boundary.
var errEOF = errors.New("end of input")

// consume counts and hashes frag, bytes just read.
func (lr *Reader) consume(frag []byte) {
	lr.n += int64(len(frag))
	lr.crc = crc32.Update(lr.crc, castagnoli, frag)
}

// next returns the next line without its newline. The slice is valid until
// the following call. At a clean end of input it returns errEOF.
func (lr *Reader) next() ([]byte, error) {
	lr.line++
	lr.buf = lr.buf[:0]
	off, crc := lr.n, lr.crc
	line, err := lr.read()
	if err == nil {
		lr.last, lr.lastLine, lr.lastOff, lr.lastCRC = line, lr.line, off, crc
	} else if err != errEOF {
		lr.last = nil
	}
	return line, err
}

// read reads the next line for next.
func (lr *Reader) read() ([]byte, error) {
	tooLong := func() error { return lr.bad(fmt.Sprintf("line longer than the limit of %d bytes", lr.max)) }
	for {
		frag, err := lr.r.ReadSlice('\n')
		lr.consume(frag)
		switch {
		case err == nil:
			if len(lr.buf) == 0 {
				line := frag[:len(frag)-1]
				if len(line) > lr.max {
					return nil, tooLong()
				}
				return line, nil
			}
			lr.buf = append(lr.buf, frag[:len(frag)-1]...)
			if len(lr.buf) > lr.max {
				return nil, tooLong()
			}
			return lr.buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			lr.buf = append(lr.buf, frag...)
			if len(lr.buf) > lr.max {
				return nil, tooLong()
			}
		case errors.Is(err, io.EOF):
			if len(lr.buf)+len(frag) == 0 {
				return nil, errEOF
			}
			return nil, lr.bad(fmt.Sprintf("last line has no newline: the %s is truncated", lr.what))
		default:
			lr.ioErr = true
			return nil, fmt.Errorf("kgmem: read %s line %d: %w", lr.what, lr.line, err)
		}
	}
}

// bad returns the error of a line that is no line of a snapshot, and
// keeps problem for end.
func (lr *Reader) bad(problem string) error {
	lr.problem = problem
	return lr.Invalid("%s", problem)
}

// Header reads the first line into h, a pointer to a header struct, with
// DecodeStrict.
func (lr *Reader) Header(h any) error {
	line, err := lr.next()
	if err == errEOF {
		return lr.Invalid("empty input: no header")
	}
	if err != nil {
		return err
	}
	if err := DecodeStrict(line, h, Names(reflect.TypeOf(h).Elem())); err != nil {
		return lr.Invalid("header: %v", err)
	}
	return nil
}

// Declare takes note of the checksum a header declares, "" or Checksum:
// the first header of a snapshot says whether it ends with a checksum
// line, and a later one (a memory's page header) must say the same.
func (lr *Reader) Declare(checksum string) error {
	switch {
	case checksum != "" && checksum != Checksum:
		return lr.Invalid("header: unsupported checksum %s, want %q", quote.Value(checksum), Checksum)
	case !lr.declared:
		lr.declared, lr.checksum = true, checksum
	case checksum != lr.checksum:
		return lr.Invalid("header: checksum %q, and the snapshot's first header declares %q", checksum, lr.checksum)
	}
	return nil
}

// NextValue returns the next line, which the header announced, without
// its newline; the slice is valid until the following read.
func (lr *Reader) NextValue() ([]byte, error) {
	line, err := lr.next()
	if err == errEOF {
		return nil, lr.Invalid("unexpected end of %s: the header announces more lines", lr.what)
	}
	return line, err
}

// Value reads the next line into v with DecodeStrict; what names the
// value in the error ("entity", "page").
func (lr *Reader) Value(v any, what string, known []string) error {
	line, err := lr.NextValue()
	if err != nil {
		return err
	}
	if err := DecodeStrict(line, v, known); err != nil {
		return lr.Invalid("%s: %v", what, err)
	}
	return nil
}

// Done ends the reading of a snapshot whose lines were read with err:
// when err is nil, it checks the end: nothing after the last announced
// line in a snapshot without a checksum; the checksum line of every byte
// before it, and nothing after it, in one with. Otherwise, when the
// snapshot declares a checksum or its header could not be read, it reads
// the rest of the input to tell damage from a snapshot that is invalid as
// written: when the checksum matches, or when the input ends with no
// checksum line and its header could not be read (it may be no snapshot
// at all), it returns err; else the snapshot is damaged, and the error
// says err and where the checksum fails, and wraps Corrupt and Invalid.
func (lr *Reader) Done(err error) error {
	if err == nil {
		return lr.end()
	}
	if lr.ioErr || (lr.declared && lr.checksum == "") {
		return err
	}
	return lr.verifyRest(err)
}

// end checks what follows the last announced line, for Done.
func (lr *Reader) end() error {
	if lr.checksum == "" {
		_, err := lr.next()
		if err == errEOF {
			lr.line--
			return nil
		}
		if err != nil && !errors.Is(err, lr.errs.Invalid) {
			return err
		}
		return lr.Invalid("data after the last line the header announces")
	}
	off, crc := lr.n, lr.crc
	line, err := lr.next()
	switch {
	case err == errEOF:
		return lr.damaged(off, "the header declares a %s checksum, and the %s ends without its checksum line: it is truncated", lr.checksum, lr.what)
	case lr.ioErr:
		return err
	case err != nil:
		return lr.damaged(off, "where the checksum line should be: %s", lr.problem)
	}
	if problem := checksumProblem(line, off, crc); problem != "" {
		return lr.damaged(off, "%s", problem)
	}
	off = lr.n
	switch _, err := lr.next(); {
	case err == errEOF:
		lr.line--
		return nil
	case lr.ioErr:
		return err
	}
	return lr.damaged(off, "data after the checksum line")
}

// checksumProblem says what is wrong with line, found at offset off where
// the bytes before it have CRC-32C crc, as their checksum line; "" when
// nothing is.
func checksumProblem(line []byte, off int64, crc uint32) string {
	var want [maxChecksumLine]byte
	if bytes.Equal(line, appendChecksumLine(want[:0], crc, off)) {
		return ""
	}
	var c checksumLine
	switch {
	case len(line) > maxChecksumLine || DecodeStrict(line, &c, checksumNames) != nil:
		return "not a checksum line: " + quote.Value(string(line))
	case c.Bytes != off:
		return fmt.Sprintf("the checksum line counts %d bytes before it, and there are %d", c.Bytes, off)
	case c.CRC32C != fmt.Sprintf("%08x", crc):
		return fmt.Sprintf("checksum mismatch: the %d bytes before the checksum line have CRC-32C %08x, and it says %s", off, crc, quote.Value(c.CRC32C))
	}
	return "the checksum line is not written as kgmem writes it: " + quote.Value(string(line))
}

// verifyRest reads the rest of the input after first, for Done. It holds
// no more than a checksum line of the input at a time.
func (lr *Reader) verifyRest(first error) error {
	var last []byte // the line being read while it is short enough to be a checksum line, newline included
	line, off, crc := lr.line, lr.lastOff, lr.lastCRC
	if lr.last != nil {
		line = lr.lastLine
		if len(lr.last) <= maxChecksumLine {
			last = append(append(make([]byte, 0, maxChecksumLine+1), lr.last...), '\n')
		}
	}
	atStart := lr.last != nil // whether the next byte begins a line
	for {
		frag, err := lr.r.ReadSlice('\n')
		if len(frag) > 0 {
			if atStart {
				line, off, crc, last = line+1, lr.n, lr.crc, make([]byte, 0, maxChecksumLine+1)
			}
			if last != nil && len(last)+len(frag) <= maxChecksumLine+1 {
				last = append(last, frag...)
			} else {
				last = nil
			}
			lr.consume(frag)
			atStart = frag[len(frag)-1] == '\n'
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return first // the rest cannot be read: nothing can be told
		}
	}
	problem := "the input does not end with a checksum line"
	if atStart && len(last) > 0 {
		last = last[:len(last)-1]
		if problem = checksumProblem(last, off, crc); problem == "" {
			return first
		}
	} else {
		last = nil
	}
	var c checksumLine
	if !lr.declared && (last == nil || DecodeStrict(last, &c, checksumNames) != nil) {
		return first
	}
	msg := first.Error()
	for _, sentinel := range lr.errs.Trim {
		if errors.Is(first, sentinel) {
			msg = strings.TrimSuffix(msg, ": "+sentinel.Error())
		}
	}
	return fmt.Errorf("%s, and the %s is damaged: line %d (offset %d): %s: %w (%w)",
		msg, lr.what, line, off, problem, lr.errs.Corrupt, lr.errs.Invalid)
}

// damaged returns an error wrapping Corrupt and Invalid that names the
// current line and its offset off: the snapshot fails its checksum.
func (lr *Reader) damaged(off int64, format string, args ...any) error {
	return fmt.Errorf("kgmem: %s line %d (offset %d): %s: %w (%w)", lr.what, lr.line, off, fmt.Sprintf(format, args...), lr.errs.Corrupt, lr.errs.Invalid)
}

// Invalid returns an error wrapping Invalid that names the current line.
func (lr *Reader) Invalid(format string, args ...any) error {
	return fmt.Errorf("kgmem: %s line %d: %s: %w", lr.what, lr.line, fmt.Sprintf(format, args...), lr.errs.Invalid)
}

// Wrap prefixes err's message, which starts with "kgmem: " or not, with
// the current line; the result unwraps to err.
func (lr *Reader) Wrap(err error) error {
	return errmsg.Wrap(fmt.Sprintf("kgmem: %s line %d", lr.what, lr.line), err)
}

// DecodeStrict decodes the JSON object in line into v, a pointer to a
// struct, refusing invalid UTF-8, anything after the object, and a key
// that is not in known, the JSON names of v's fields (see Names; compared
// exactly; keys of nested objects are left to encoding/json).
func DecodeStrict(line []byte, v any, known []string) error {
	if !utf8.Valid(line) {
		return errors.New("not valid UTF-8")
	}
	if err := json.Unmarshal(line, v); err != nil {
		return err
	}
	return checkKeys(line, known)
}

// checkKeys returns an error naming the first key of the JSON object in
// line, which is valid JSON, that is not in known.
func checkKeys(line []byte, known []string) error {
	depth, expectKey := 0, false
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '"':
			j := i + 1
			escaped := false
			for ; line[j] != '"'; j++ {
				if line[j] == '\\' {
					escaped = true
					j++
				}
			}
			if depth == 1 && expectKey {
				key := line[i+1 : j]
				if escaped {
					var k string
					if err := json.Unmarshal(line[i:j+1], &k); err != nil {
						return err
					}
					key = []byte(k)
				}
				if !slices.ContainsFunc(known, func(s string) bool { return s == string(key) }) {
					return fmt.Errorf("unknown field %s", quote.Value(string(key)))
				}
				expectKey = false
			}
			i = j
		case '{':
			depth++
			expectKey = depth == 1
		case '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			expectKey = depth == 1
		}
	}
	return nil
}

// Names returns the JSON names of the fields of struct type t, as
// encoding/json names them (promoted fields of embedded structs included).
func Names(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-":
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			names = append(names, Names(f.Type)...)
		case !f.IsExported():
		case name == "":
			names = append(names, f.Name)
		default:
			names = append(names, name)
		}
	}
	return names
}
