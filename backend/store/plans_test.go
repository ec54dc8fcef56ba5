package store

import (
	"context"
	"strings"
	"testing"
)

// explain is the plan the database gives the booked transactions listing
// (listBooked) for an account, one line of text per row: on PostgreSQL
// the plan of a statement prepared as pgx prepares it, executed in the
// store's own session; on SQLite its query plan.
func explain(t *testing.T, s *sqlStore, accountID string) string {
	t.Helper()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	from, to := dateBounds("2025-01-01", "")
	var q string
	var args []any
	if s.d == postgresDialect {
		if _, err := conn.ExecContext(ctx, `PREPARE list_booked AS `+listBooked); err != nil {
			t.Fatal(err)
		}
		defer conn.ExecContext(context.Background(), `DEALLOCATE list_booked`)
		q = `EXPLAIN EXECUTE list_booked('` + accountID + `', '` + from + `', '` + to + `', 11, 0)`
	} else {
		q, args = `EXPLAIN QUERY PLAN `+listBooked, []any{accountID, from, to, 11, 0}
	}
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var plan strings.Builder
	for rows.Next() {
		vals := make([]any, len(cols))
		for i := range vals {
			vals[i] = new(any)
		}
		if err := rows.Scan(vals...); err != nil {
			t.Fatal(err)
		}
		plan.WriteString(stringOf(*vals[len(vals)-1].(*any)))
		plan.WriteByte('\n')
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return plan.String()
}

// stringOf is a scanned text column as a string.
func stringOf(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	return ""
}

// TestTransactionsReadPlan: the booked transactions listing reads the
// index transactions_list with its date bounds in the index condition (a
// range, not a filter of every row of the account), on both engines; on
// PostgreSQL from a generic plan (parameters, not values, in the plan:
// planned once per connection), because the store's sessions set
// plan_cache_mode to force_generic_plan, unless the URL sets it. Fails
// when a date bound is written as an "empty means any" test, or when the
// sessions plan per execution.
func TestTransactionsReadPlan(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t).(*sqlStore)
		c := mustCustomer(t, s, "01017012345", CustomerPrivate)
		a := mustAccount(t, s, c.ID, "NO9312345678903")
		wantErr(t, "AddTransactions", s.AddTransactions(ctx, a.ID, []Transaction{
			{Booked: true, Amount: -1, Currency: "NOK", BookingDate: "2025-01-10"},
		}), nil)
		plan := explain(t, s, a.ID)
		if s.d == postgresDialect {
			var mode string
			if err := s.db.QueryRowContext(ctx, `SHOW plan_cache_mode`).Scan(&mode); err != nil {
				t.Fatal(err)
			}
			if mode != "force_generic_plan" {
				t.Errorf("the store's sessions plan with plan_cache_mode %q", mode)
			}
			if !strings.Contains(plan, "Index Scan using transactions_list") ||
				!strings.Contains(plan, "(booking_date >= $2) AND (booking_date <= $3)") {
				t.Errorf("the listing is not a generic index range scan:\n%s", plan)
			}
			other := db
			other.url += "&plan_cache_mode=auto"
			o := other.open(t).(*sqlStore)
			if err := o.db.QueryRowContext(ctx, `SHOW plan_cache_mode`).Scan(&mode); err != nil {
				t.Fatal(err)
			}
			if mode != "auto" {
				t.Errorf("plan_cache_mode=auto in the URL: the sessions plan with %q", mode)
			}
			return
		}
		if !strings.Contains(plan, "USING INDEX transactions_list (account_id=? AND booked=? AND booking_date>? AND booking_date<?)") {
			t.Errorf("the listing is not an index range scan:\n%s", plan)
		}
	})
}

// TestDateBounds: no dates span every date; given ones are kept.
func TestDateBounds(t *testing.T) {
	for _, tc := range [][4]string{
		{"", "", "", lastDate},
		{"2025-01-01", "", "2025-01-01", lastDate},
		{"", "2025-02-01", "", "2025-02-01"},
		{"2025-01-01", "2025-02-01", "2025-01-01", "2025-02-01"},
	} {
		if from, to := dateBounds(tc[0], tc[1]); from != tc[2] || to != tc[3] {
			t.Errorf("dateBounds(%q, %q) = %q, %q; want %q, %q", tc[0], tc[1], from, to, tc[2], tc[3])
		}
	}
	if checkDate("date", lastDate) != nil || lastDate < "2999-12-31" {
		t.Errorf("lastDate %q is not the last date checkDate admits", lastDate)
	}
}
