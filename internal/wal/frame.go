package wal

import (
	"bufio"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
)

// frameHeader is the size of a frame's length and CRC.
const frameHeader = 8

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// appendFrame appends payload, framed, to b.
func appendFrame(b, payload []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(payload)))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(payload, castagnoli))
	return append(b, payload...)
}

// sealFrame fills in the length and CRC of the frame in b, whose first
// frameHeader bytes were reserved for them.
func sealFrame(b []byte) {
	payload := b[frameHeader:]
	binary.LittleEndian.PutUint32(b, uint32(len(payload)))
	binary.LittleEndian.PutUint32(b[4:], crc32.Checksum(payload, castagnoli))
}

// validLength reports whether n can be the payload length of a frame.
func validLength(n uint32) bool { return n >= 2 && n <= MaxRecordSize }

// frameAt reports whether b holds a valid frame at its start.
func frameAt(b []byte) bool {
	if len(b) < frameHeader {
		return false
	}
	n := binary.LittleEndian.Uint32(b)
	if !validLength(n) || uint64(n) > uint64(len(b)-frameHeader) {
		return false
	}
	payload := b[frameHeader : frameHeader+int(n)]
	return payload[0] == '{' && crc32.Checksum(payload, castagnoli) == binary.LittleEndian.Uint32(b[4:])
}

// errBadFrame reports a frame that is incomplete or does not match its CRC.
var errBadFrame = errors.New("bad frame")

// readFrame reads the frame at the reader's position; left is how many
// bytes remain in the file. It returns io.EOF at the end of the file and
// errBadFrame for a frame that is incomplete or damaged.
func readFrame(r *bufio.Reader, left int64) ([]byte, error) {
	if left == 0 {
		return nil, io.EOF
	}
	if left < frameHeader {
		return nil, errBadFrame
	}
	var hdr [frameHeader]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint32(hdr[:])
	if !validLength(n) || int64(n) > left-frameHeader {
		return nil, errBadFrame
	}
	payload := make([]byte, n)
	if _, err := io.ReadFull(r, payload); err != nil {
		return nil, err
	}
	if crc32.Checksum(payload, castagnoli) != binary.LittleEndian.Uint32(hdr[4:]) {
		return nil, errBadFrame
	}
	return payload, nil
}

// isTorn reports whether b, the bytes from a bad frame to the end of the
// journal, look like an append that a crash interrupted: a prefix of a
// frame (a short header, or a payload that runs past the end of the file),
// or zeros, which some file systems show for blocks that were allocated but
// never written. Anything else (above all a whole frame whose CRC does not
// match) is damage to bytes that were once written whole.
func isTorn(b []byte) bool {
	if len(b) < frameHeader {
		return true
	}
	if n := binary.LittleEndian.Uint32(b); validLength(n) && int64(n) > int64(len(b)-frameHeader) {
		return true
	}
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
