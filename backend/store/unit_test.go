package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestFail(t *testing.T) {
	s := &sqlStore{}
	tests := []struct {
		name string
		err  error
		want error // nil: none of the package's errors
	}{
		{"no rows", sql.ErrNoRows, ErrNotFound},
		{"unique violation", &pgconn.PgError{Code: "23505"}, ErrConflict},
		{"foreign key violation", &pgconn.PgError{Code: "23503"}, ErrNotFound},
		{"connection failure", &pgconn.PgError{Code: "08006"}, ErrUnavailable},
		{"too many connections", &pgconn.PgError{Code: "53300"}, ErrUnavailable},
		{"admin shutdown", &pgconn.PgError{Code: "57P01"}, ErrUnavailable},
		{"serialization failure", &pgconn.PgError{Code: "40001"}, ErrUnavailable},
		{"undefined table", &pgconn.PgError{Code: "42P01"}, nil},
		{"check violation", &pgconn.PgError{Code: "23514"}, nil},
		{"network", &net.OpError{Op: "dial", Err: errors.New("connection refused")}, ErrUnavailable},
		{"bad conn", driver.ErrBadConn, ErrUnavailable},
		{"deadline", fmt.Errorf("query: %w", context.DeadlineExceeded), ErrUnavailable},
		{"already classified", fmt.Errorf("%w: x", ErrConflict), ErrConflict},
		{"other", errors.New("boom"), nil},
	}
	for _, tt := range tests {
		got := s.fail("op", tt.err)
		for _, sentinel := range []error{ErrNotFound, ErrConflict, ErrUnavailable, ErrInvalid} {
			if errors.Is(got, sentinel) != (sentinel == tt.want) {
				t.Errorf("%s: fail(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
			}
		}
		if tt.name != "already classified" && !strings.Contains(got.Error(), "op") {
			t.Errorf("%s: %q does not name the operation", tt.name, got)
		}
	}
	if s.fail("op", nil) != nil {
		t.Error("fail(nil) != nil")
	}
}

func TestParseLocation(t *testing.T) {
	tests := []struct {
		url     string
		dialect *dialect
		target  string
		ok      bool
	}{
		{"", sqliteDialect, DefaultSQLitePath, true},
		{"/var/lib/obgw/store.db", sqliteDialect, "/var/lib/obgw/store.db", true},
		{"data.db", sqliteDialect, "data.db", true},
		{":memory:", sqliteDialect, ":memory:", true},
		{"sqlite:data.db", sqliteDialect, "data.db", true},
		{"sqlite:///abs/data.db", sqliteDialect, "/abs/data.db", true},
		{"postgres://u@h/db", postgresDialect, "postgres://u@h/db", true},
		{"postgresql://u@h:5433/db?sslmode=verify-full", postgresDialect, "postgresql://u@h:5433/db?sslmode=verify-full", true},
		{"sqlite:", nil, "", false},
		{"mysql://u@h/db", nil, "", false},
		{"http://example.com/x.db", nil, "", false},
		{"bad\x00path", nil, "", false},
	}
	for _, tt := range tests {
		loc, err := parseLocation(tt.url)
		if (err == nil) != tt.ok || loc.dialect != tt.dialect || loc.target != tt.target {
			t.Errorf("parseLocation(%q) = %v %q, %v; want %v %q ok=%v", tt.url, loc.dialect, loc.target, err,
				tt.dialect, tt.target, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Errorf("parseLocation(%q) error %v is not ErrInvalid", tt.url, err)
		}
	}
}

func FuzzParseLocation(f *testing.F) {
	for _, s := range []string{"", "x.db", "sqlite:x", "sqlite://", "postgres://u:p@h/db", "a://b", ":memory:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, url string) {
		loc, err := parseLocation(url)
		if err != nil {
			if !errors.Is(err, ErrInvalid) || len(err.Error()) > 200 {
				t.Fatalf("error %q: want ErrInvalid, under 200 characters", err)
			}
			return
		}
		isPG := strings.HasPrefix(url, "postgres://") || strings.HasPrefix(url, "postgresql://")
		if (loc.dialect == postgresDialect) != isPG || loc.target == "" || strings.IndexByte(loc.target, 0) >= 0 && !isPG {
			t.Fatalf("parseLocation(%q) = %v %q", url, loc.dialect.name, loc.target)
		}
		if !isPG && strings.Contains(url, "://") && !strings.HasPrefix(url, "sqlite:") {
			t.Fatalf("parseLocation(%q) took a foreign URL for a file", url)
		}
	})
}

func TestValidSchema(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"t_0123abcd", true}, {"_x", true}, {"public", true}, {strings.Repeat("a", 63), true},
		{"", false}, {"1abc", false}, {"Abc", false}, {"a-b", false}, {`a"b`, false}, {"a b", false},
		{strings.Repeat("a", 64), false}, {"æ", false},
	}
	for _, tt := range tests {
		if got := validSchema(tt.name); got != tt.ok {
			t.Errorf("validSchema(%q) = %v, want %v", tt.name, got, tt.ok)
		}
	}
}

func TestNewID(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		id := newID()
		raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(id, idPrefix))
		if !strings.HasPrefix(id, idPrefix) || err != nil || len(raw) != 18 || strings.ContainsAny(id, "=+/") {
			t.Fatalf("newID() = %q: want %q + unpadded base64url of 18 bytes", id, idPrefix)
		}
		if seen[id] {
			t.Fatalf("newID() repeated %q", id)
		}
		seen[id] = true
	}
}

func TestPlaceholders(t *testing.T) {
	tests := []struct {
		from, n int
		want    string
	}{
		{1, 1, "$1"}, {2, 3, "$2, $3, $4"}, {9, 2, "$9, $10"}, {0, 0, ""},
	}
	for _, tt := range tests {
		if got := placeholders(tt.from, tt.n); got != tt.want {
			t.Errorf("placeholders(%d, %d) = %q, want %q", tt.from, tt.n, got, tt.want)
		}
	}
}

func TestCheckDate(t *testing.T) {
	tests := []struct {
		d  string
		ok bool
	}{
		{"", true}, {"2025-01-31", true}, {"2024-02-29", true},
		{"2025-02-29", false}, {"2025-1-31", false}, {"31.01.2025", false}, {"2025-01-31T00:00:00Z", false},
		{"+025-01-31", false},
	}
	for _, tt := range tests {
		err := checkDate("d", tt.d)
		if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrInvalid)) {
			t.Errorf("checkDate(%q) = %v, want ok=%v", tt.d, err, tt.ok)
		}
	}
}

func TestInstantScan(t *testing.T) {
	want := time.Date(2025, 3, 1, 11, 0, 0, 123456000, time.UTC)
	tests := []struct {
		src  any
		want time.Time
		ok   bool
	}{
		{"2025-03-01T11:00:00.123456Z", want, true},
		{[]byte("2025-03-01T11:00:00.123456Z"), want, true},
		{want.In(time.FixedZone("CET", 3600)), want, true},
		{nil, time.Time{}, true},
		{"yesterday", time.Time{}, false},
		{int64(5), time.Time{}, false},
	}
	for _, tt := range tests {
		var got time.Time
		err := instantScan{&got}.Scan(tt.src)
		if (err == nil) != tt.ok || !got.Equal(tt.want) || (tt.ok && !got.IsZero() && got.Location() != time.UTC) {
			t.Errorf("Scan(%v) = %v, %v; want %v ok=%v", tt.src, got, err, tt.want, tt.ok)
		}
	}
	if got := sqliteDialect.instant(want.Add(789)); got != "2025-03-01T11:00:00.123456Z" {
		t.Errorf("sqlite instant = %v", got)
	}
}
