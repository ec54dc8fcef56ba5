package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// tracedStore is a SQLite store holding one customer, and a context under
// a recording span whose ended spans rec keeps.
func tracedStore(t *testing.T) (s *sqlStore, ctx context.Context, rec *tracetest.SpanRecorder) {
	t.Helper()
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "t.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.CreateCustomer(context.Background(), &Customer{Number: "01019912345", Name: "Kari Nordmann", Type: "PRIVATE"}); err != nil {
		t.Fatal(err)
	}
	rec = tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	ctx, parent := tp.Tracer("test").Start(context.Background(), "request")
	t.Cleanup(func() { parent.End() })
	return st.(*sqlStore), ctx, rec
}

func TestQuerySpans(t *testing.T) {
	s, ctx, rec := tracedStore(t)
	parent := rec.Started()[0]
	if _, err := s.GetCustomerByNumber(ctx, "", "01019912345"); err != nil {
		t.Fatal(err)
	}
	err := s.Atomically(ctx, func(v Store) error {
		_, err := v.ListCustomers(ctx, "")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.q.ExecContext(ctx, `UPDATE missing_table SET a = $1`, "01019912345"); err == nil {
		t.Fatal("no error from a missing table")
	}

	type span struct {
		name  string
		attrs map[string]string
		err   bool
	}
	var got []span
	for _, sp := range rec.Ended() {
		if sp.Parent().SpanID() != parent.SpanContext().SpanID() {
			t.Errorf("%s is not a child of the request's span", sp.Name())
		}
		m := map[string]string{}
		for _, a := range sp.Attributes() {
			m[string(a.Key)] = a.Value.String()
			if strings.Contains(a.Value.String(), "01019912345") || strings.Contains(a.Value.String(), "Nordmann") {
				t.Errorf("%s: attribute %s carries a value: %s", sp.Name(), a.Key, a.Value.String())
			}
		}
		got = append(got, span{sp.Name(), m, sp.Status().Code == codes.Error})
	}
	want := []struct {
		name, op, table, query string
		err                    bool
	}{
		{"SELECT customers", "SELECT", "customers", "WHERE owner = $1 AND number = $2", false},
		{"SELECT customers", "SELECT", "customers", "ORDER BY", false},
		{"transaction atomic update", "", "", "", false},
		{"UPDATE missing_table", "UPDATE", "missing_table", "UPDATE missing_table SET a = $1", true},
	}
	if len(got) != len(want) {
		t.Fatalf("spans %v, want %d", got, len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.name != w.name || g.attrs["db.system.name"] != "sqlite" || g.attrs["db.operation.name"] != w.op ||
			g.attrs["db.collection.name"] != w.table || !strings.Contains(g.attrs["db.query.text"], w.query) || g.err != w.err {
			t.Errorf("span %d: %+v, want %+v", i, g, w)
		}
		if w.err && g.attrs["error.type"] == "" {
			t.Errorf("span %d: failed without error.type", i)
		}
	}
}

// TestQuerySpansCostNothingUntraced: without a recording span the wrapper
// allocates nothing of its own and makes no span.
func TestQuerySpansCostNothingUntraced(t *testing.T) {
	s, _, rec := tracedStore(t)
	ctx := context.Background()
	const q = `SELECT name FROM customers WHERE number = $1`
	run := func(qr querier) func() {
		return func() {
			var name string
			if err := qr.QueryRowContext(ctx, q, "01019912345").Scan(&name); err != nil {
				t.Fatal(err)
			}
		}
	}
	run(s.q)() // prepare
	plain := testing.AllocsPerRun(200, run(s.queries.q))
	traced := testing.AllocsPerRun(200, run(s.q))
	if traced > plain {
		t.Errorf("%.0f allocations through the tracing wrapper, %.0f without it", traced, plain)
	}
	if n := len(rec.Ended()); n != 0 {
		t.Errorf("%d spans without a recording span", n)
	}
}

func TestQuerySummary(t *testing.T) {
	for _, tc := range []struct{ query, op, table string }{
		{"SELECT a, b FROM accounts WHERE id = $1", "SELECT", "accounts"},
		{"select 1", "SELECT", ""},
		{"INSERT INTO consents (id, tpp) VALUES ($1, $2)", "INSERT", "consents"},
		{"UPDATE sca_flows SET status = $1", "UPDATE", "sca_flows"},
		{"DELETE FROM balances WHERE account_id = $1", "DELETE", "balances"},
		{"\n\tSELECT x\n\tFROM transactions\n", "SELECT", "transactions"},
		{"PRAGMA wal_checkpoint(PASSIVE)", "PRAGMA", ""},
		{"", "", ""},
	} {
		if op, table := querySummary(tc.query); op != tc.op || table != tc.table {
			t.Errorf("querySummary(%q) = %q, %q; want %q, %q", tc.query, op, table, tc.op, tc.table)
		}
	}
}
