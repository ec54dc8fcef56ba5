package store

import (
	"encoding/json"
	"fmt"
	"testing"
)

// seedTransactions adds n booked transactions over 100 days and 10 pending
// ones to a new account.
func seedTransactions(b *testing.B, s Store, n int) *Account {
	c := mustCustomer(b, s, "01017012345", CustomerPrivate)
	a := mustAccount(b, s, c.ID, "NO9312345678903")
	txs := make([]Transaction, 0, n+10)
	for i := 0; i < n; i++ {
		txs = append(txs, Transaction{Booked: true, Amount: int64(-100 * i), Currency: "NOK",
			BookingDate: fmt.Sprintf("2025-%02d-%02d", 1+i%100/28, 1+i%28), ValueDate: "2025-01-01",
			Details: json.RawMessage(`{"remittanceInformationUnstructured":"Varekjøp","creditorName":"Butikken AS"}`)})
	}
	for i := 0; i < 10; i++ {
		txs = append(txs, Transaction{Amount: -1, Currency: "NOK"})
	}
	if err := s.AddTransactions(ctx, a.ID, txs); err != nil {
		b.Fatal(err)
	}
	if ss := s.(*sqlStore); ss.d == postgresDialect {
		// As autovacuum would on a live database: without statistics the
		// planner sorts every row instead of walking the index.
		if _, err := ss.db.Exec(`ANALYZE transactions`); err != nil {
			b.Fatal(err)
		}
	}
	return a
}

// BenchmarkListTransactions lists a page of 200 booked transactions (and
// the pending ones) out of 2000.
func BenchmarkListTransactions(b *testing.B) {
	for _, be := range backends() {
		b.Run(be.name, func(b *testing.B) {
			s := be.newDB(b, nil).open(b)
			a := seedTransactions(b, s, 2000)
			f := TransactionFilter{Booked: true, Pending: true, Limit: 200, Offset: 400}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				txs, total, err := s.ListTransactions(ctx, a.ID, f)
				if err != nil || len(txs) != 210 || total != 2000 {
					b.Fatalf("got %d transactions, total %d, %v", len(txs), total, err)
				}
			}
		})
	}
}

// BenchmarkGetAccount reads one account by id: the per-request lookup.
func BenchmarkGetAccount(b *testing.B) {
	for _, be := range backends() {
		b.Run(be.name, func(b *testing.B) {
			s := be.newDB(b, nil).open(b)
			c := mustCustomer(b, s, "01017012345", CustomerPrivate)
			a := mustAccount(b, s, c.ID, "NO9312345678903")
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := s.GetAccount(ctx, a.ID); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPSUID resolves an existing PSU-ID (the common case).
func BenchmarkPSUID(b *testing.B) {
	for _, be := range backends() {
		b.Run(be.name, func(b *testing.B) {
			s := be.newDB(b, nil).open(b)
			c := mustCustomer(b, s, "01017012345", CustomerPrivate)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := s.PSUID(ctx, "PSDNO-FSA-111111111", c.ID); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
