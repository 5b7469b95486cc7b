package pgraph

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/kgmem/kgmem/internal/errmsg"
	"github.com/kgmem/kgmem/internal/quote"
)

// ErrConnectionLost is wrapped by the error of a call that could not reach
// PostgreSQL or whose connection broke before the answer arrived: the
// server went away, restarted or terminated the session, or the network
// failed. The error says whether the statement was sent; a write whose
// connection broke after it was sent may or may not have been applied, so
// read before writing again when that matters. The error also wraps the
// driver's own error.
//
// Like kgmem's sentinels, its own text carries no package prefix; the
// errors that wrap it start with "pgraph: ".
var ErrConnectionLost = errors.New("connection to PostgreSQL lost")

// connError is the error of a call whose connection failed.
type connError struct {
	op    string // what failed, such as `add entity "x"`
	write bool   // the call writes
	sent  bool   // the statement may have reached the server
	err   error  // the driver's error
}

func (e *connError) Error() string {
	var what string
	switch {
	case !e.sent:
		what = "no connection to PostgreSQL, nothing was sent"
	case e.write:
		what = "connection to PostgreSQL lost during the write, which may or may not have been applied"
	default:
		what = "connection to PostgreSQL lost"
	}
	return "pgraph: " + e.op + ": " + what + ": " + e.err.Error()
}

func (e *connError) Unwrap() []error { return []error{ErrConnectionLost, e.err} }

// fail returns the error of the call op (`add entity "x"`) that failed with
// err, a driver or database error: a *connError wrapping
// ErrConnectionLost when the connection failed, and err prefixed with op
// otherwise.
func fail(op string, write bool, err error) error {
	if connectionLost(err) {
		var connect *pgconn.ConnectError
		sent := !errors.As(err, &connect) && !pgconn.SafeToRetry(err)
		return &connError{op: op, write: write, sent: sent, err: err}
	}
	return errmsg.Wrap("pgraph: "+op, err)
}

// connectionLost reports whether err says that the connection to the
// server could not be made or broke: PostgreSQL's connection exceptions
// (SQLSTATE class 08) and shutdown errors (57P01 to 57P03, sent before the
// server closes the session), a failed connection attempt, or the end or
// failure of the network stream. A cancelled or expired context is not
// one: it is the caller's doing.
func connectionLost(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "57P01", "57P02", "57P03": // admin_shutdown, crash_shutdown, cannot_connect_now
			return true
		}
		return strings.HasPrefix(pgErr.Code, "08")
	}
	var (
		netErr  net.Error
		connect *pgconn.ConnectError
	)
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.As(err, &netErr) || errors.As(err, &connect)
}

// quoteKeywords quotes the first few keywords, each cut to a prefix, for
// an error message.
func quoteKeywords(keywords []string) string {
	const shown = 5
	q := make([]string, 0, min(len(keywords), shown)+1)
	for i, k := range keywords {
		if i == shown {
			q = append(q, fmt.Sprintf("and %d more", len(keywords)-shown))
			break
		}
		q = append(q, quote.Value(k))
	}
	return "[" + strings.Join(q, " ") + "]"
}
