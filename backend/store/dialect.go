package store

import (
	"strings"
	"time"
)

// dialect holds what differs between SQLite and PostgreSQL. Everything else
// (every query's text, the schema apart from column types) is shared: both
// engines accept $N parameters, ON CONFLICT, partial indexes, TRUE/FALSE.
type dialect struct {
	// name is "sqlite" or "postgres".
	name string
	// instantType is the column type of instants (times with a zone).
	instantType string
	// sortedTextType is the column type of text compared bytewise.
	sortedTextType string
	// noLimit is the LIMIT argument that means "every row".
	noLimit any
	// lockCustomer selects a customer row and, where transactions are not
	// already serialised, locks it until the transaction ends.
	lockCustomer string
	// lockAccount does the same for an account row.
	lockAccount string
	// lockSandbox does the same for a sandbox row: two resets of one
	// sandbox run one after the other.
	lockSandbox string
	// instant converts a time to the value bound for an instant column.
	instant func(time.Time) any
}

// instantLayout is the fixed-width UTC text form of instants on SQLite: it
// sorts like the instants it stands for and keeps microseconds.
const instantLayout = "2006-01-02T15:04:05.000000Z"

// sqliteDialect: instants are fixed-width UTC text, LIMIT -1 is no limit,
// and transactions are serialised by BEGIN IMMEDIATE, so no row locks.
var sqliteDialect = &dialect{
	name:           "sqlite",
	instantType:    "TEXT",
	sortedTextType: "TEXT",
	noLimit:        int64(-1),
	lockCustomer:   `SELECT id FROM customers WHERE id = $1`,
	lockAccount:    `SELECT id FROM accounts WHERE id = $1`,
	lockSandbox:    `SELECT owner FROM sandboxes WHERE owner = $1`,
	instant: func(t time.Time) any {
		if t.IsZero() {
			return nil
		}
		return t.UTC().Format(instantLayout)
	},
}

// postgresDialect: instants are TIMESTAMPTZ, LIMIT NULL is no limit, and
// READ COMMITTED transactions need an explicit row lock to serialise.
var postgresDialect = &dialect{
	name:           "postgres",
	instantType:    "TIMESTAMPTZ",
	sortedTextType: `TEXT COLLATE "C"`,
	noLimit:        nil,
	lockCustomer:   `SELECT id FROM customers WHERE id = $1 FOR UPDATE`,
	lockAccount:    `SELECT id FROM accounts WHERE id = $1 FOR UPDATE`,
	lockSandbox:    `SELECT owner FROM sandboxes WHERE owner = $1 FOR UPDATE`,
	instant: func(t time.Time) any {
		if t.IsZero() {
			return nil
		}
		return t.UTC().Truncate(time.Microsecond)
	},
}

// ddl fills the dialect's column types into a schema statement.
func (d *dialect) ddl(stmt string) string {
	return strings.NewReplacer("{{instant}}", d.instantType, "{{sorted_text}}", d.sortedTextType).Replace(stmt)
}
