package store

import (
	"context"
	"errors"
	"io"
	"net"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// IsUnavailable tells whether err means the database cannot serve requests right now (PostgreSQL down,
// restarting or unreachable; an SQLite file that is locked, read-only, on a full disk or failing I/O), as opposed
// to a fault of the request or a bug. The server answers such errors with 503 and Retry-After: the caller can
// try again, and the service recovers by itself when the database does (pgx reconnects on the next use).
//
// A request's own context ending is not the database's fault and is not reported here.
func IsUnavailable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var connect *pgconn.ConnectError
	var netErr net.Error
	if errors.As(err, &connect) || errors.As(err, &netErr) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		pgconn.SafeToRetry(err) || pgconn.Timeout(err) {
		return true
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		// Class 08: connection exception; 57P01-57P03: administrator or crash shutdown, cannot connect now;
		// 53: insufficient resources (disk full, out of memory, too many connections).
		return len(pg.Code) == 5 && (pg.Code[:2] == "08" || pg.Code[:2] == "53" ||
			pg.Code == "57P01" || pg.Code == "57P02" || pg.Code == "57P03")
	}
	var lite *sqlite.Error
	if errors.As(err, &lite) {
		switch lite.Code() & 0xff { // the primary result code, without the extended bits
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_FULL,
			sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN:
			return true
		}
	}
	return false
}
