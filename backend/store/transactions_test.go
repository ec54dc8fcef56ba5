package store

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"
)

func TestTransactionsRoundTrip(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		c := mustCustomer(t, s, "01017012345", CustomerPrivate)
		a := mustAccount(t, s, c.ID, "NO9312345678903")
		b := mustAccount(t, s, c.ID, "NO0212345678901")
		placed := time.Date(2024, 12, 24, 18, 0, 0, 1000, time.UTC)
		txs := []Transaction{
			{Booked: true, Amount: bigMoney, Currency: "NOK", BookingDate: "2025-01-02", ValueDate: "2025-01-03",
				Details: json.RawMessage(`{"remittanceInformationUnstructured":"Lønn","creditorName":"Å"}`)},
			{Booked: true, Amount: -bigMoney, Currency: "NOK", BookingDate: "2025-01-02"},
			{Booked: true, Amount: math.MaxInt64, Currency: "NOK", BookingDate: "2025-01-02", CreatedAt: placed},
			{Booked: false, Amount: math.MinInt64, Currency: "EUR"},
		}
		wantErr(t, "AddTransactions", s.AddTransactions(ctx, a.ID, txs), nil)
		if !txs[2].CreatedAt.Equal(placed) {
			t.Fatalf("a CreatedAt given was replaced: %v", txs[2].CreatedAt)
		}
		if !txs[1].CreatedAt.After(txs[0].CreatedAt) {
			t.Fatalf("batch CreatedAt %v, %v: want later elements newer", txs[0].CreatedAt, txs[1].CreatedAt)
		}
		for i := range txs {
			if txs[i].ID == "" || txs[i].AccountID != a.ID {
				t.Fatalf("tx %d: ID %q AccountID %q not assigned", i, txs[i].ID, txs[i].AccountID)
			}
			got, err := s.GetTransaction(ctx, a.ID, txs[i].ID)
			wantErr(t, "GetTransaction", err, nil)
			if !reflect.DeepEqual(*got, txs[i]) {
				t.Fatalf("GetTransaction = %+v, want %+v", *got, txs[i])
			}
		}
		_, err := s.GetTransaction(ctx, b.ID, txs[0].ID)
		wantErr(t, "GetTransaction of another account", err, ErrNotFound)

		bad := []Transaction{
			{Booked: true, Amount: 1, Currency: "NOK", BookingDate: "2025-01-05"},
			{Booked: true, Amount: 2, Currency: "NOK", BookingDate: "2025-01-05"},
			{Booked: true, Amount: 3, Currency: "NOK", BookingDate: "2025-01-05", Details: json.RawMessage(`{`)},
		}
		wantErr(t, "AddTransactions with a bad element", s.AddTransactions(ctx, b.ID, bad), ErrInvalid)
		if bad[0].ID != "" {
			t.Fatalf("a failed batch assigned ID %q", bad[0].ID)
		}
		got, total, err := s.ListTransactions(ctx, b.ID, TransactionFilter{Booked: true, Pending: true})
		wantErr(t, "ListTransactions", err, nil)
		if len(got) != 0 || total != 0 {
			t.Fatalf("a failed batch left %d transactions (total %d): not atomic", len(got), total)
		}
		wantErr(t, "AddTransactions bad date",
			s.AddTransactions(ctx, b.ID, []Transaction{{Booked: true, BookingDate: "02.01.2025"}}), ErrInvalid)
		wantErr(t, "AddTransactions unknown account", s.AddTransactions(ctx, "enc!!nope", txs[:1]), ErrNotFound)
		wantErr(t, "AddTransactions none", s.AddTransactions(ctx, b.ID, nil), nil)
	})
}

func TestListTransactions(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		c := mustCustomer(t, s, "01017012345", CustomerPrivate)
		a := mustAccount(t, s, c.ID, "NO9312345678903")
		other := mustAccount(t, s, c.ID, "NO0212345678901")
		names := []string{"b1", "b2", "b3", "b4", "b5", "p1", "p2"}
		txs := []Transaction{
			{Booked: true, Amount: -100, Currency: "NOK", BookingDate: "2025-01-10"},
			{Booked: true, Amount: -200, Currency: "NOK", BookingDate: "2025-01-12"},
			{Booked: true, Amount: -300, Currency: "NOK", BookingDate: "2025-01-12"}, // same day, newer than b2
			{Booked: true, Amount: -400, Currency: "NOK", BookingDate: "2025-01-15"},
			{Booked: true, Amount: -500, Currency: "NOK", BookingDate: "2025-01-01"},
			{Booked: false, Amount: -600, Currency: "NOK"},
			{Booked: false, Amount: -700, Currency: "NOK", ValueDate: "2024-06-01"}, // newer than p1
		}
		wantErr(t, "AddTransactions", s.AddTransactions(ctx, a.ID, txs), nil)
		wantErr(t, "AddTransactions other", s.AddTransactions(ctx, other.ID, []Transaction{
			{Booked: true, Amount: 1, Currency: "NOK", BookingDate: "2025-01-11"},
			{Booked: false, Amount: 2, Currency: "NOK"},
		}), nil)
		idName := map[string]string{}
		for i, tx := range txs {
			idName[tx.ID] = names[i]
		}

		tests := []struct {
			name  string
			f     TransactionFilter
			want  []string
			total int
		}{
			{"both", TransactionFilter{Booked: true, Pending: true},
				[]string{"b4", "b3", "b2", "b1", "b5", "p2", "p1"}, 5},
			{"booked", TransactionFilter{Booked: true}, []string{"b4", "b3", "b2", "b1", "b5"}, 5},
			{"pending", TransactionFilter{Pending: true}, []string{"p2", "p1"}, 0},
			{"neither", TransactionFilter{}, nil, 0},
			{"dateFrom", TransactionFilter{Booked: true, Pending: true, DateFrom: "2025-01-10"},
				[]string{"b4", "b3", "b2", "b1", "p2", "p1"}, 4},
			{"dateTo", TransactionFilter{Booked: true, DateTo: "2025-01-12"}, []string{"b3", "b2", "b1", "b5"}, 4},
			{"one day", TransactionFilter{Booked: true, DateFrom: "2025-01-12", DateTo: "2025-01-12"},
				[]string{"b3", "b2"}, 2},
			{"no booked in range, pending still all", TransactionFilter{Booked: true, Pending: true, DateTo: "2024-12-31"},
				[]string{"p2", "p1"}, 0},
			{"pending ignore dates and paging", TransactionFilter{Pending: true, DateFrom: "2030-01-01", Limit: 1, Offset: 5},
				[]string{"p2", "p1"}, 0},
			{"first page", TransactionFilter{Booked: true, Pending: true, Limit: 2},
				[]string{"b4", "b3", "p2", "p1"}, 5},
			{"second page", TransactionFilter{Booked: true, Pending: true, Limit: 2, Offset: 2},
				[]string{"b2", "b1", "p2", "p1"}, 5},
			{"last page short", TransactionFilter{Booked: true, Limit: 2, Offset: 4}, []string{"b5"}, 5},
			{"offset without limit", TransactionFilter{Booked: true, Offset: 3}, []string{"b1", "b5"}, 5},
			{"past the end", TransactionFilter{Booked: true, Pending: true, Limit: 2, Offset: 10},
				[]string{"p2", "p1"}, 5},
			{"past the end, booked only", TransactionFilter{Booked: true, Offset: 5}, nil, 5},
			{"paged within dates", TransactionFilter{Booked: true, DateFrom: "2025-01-10", Limit: 1, Offset: 1},
				[]string{"b3"}, 4},
			// Card accounts: pending items dated and paged too; an
			// undated one passes date bounds.
			{"pending filtered by dates", TransactionFilter{Pending: true, PendingFiltered: true, DateFrom: "2024-07-01"},
				[]string{"p1"}, 0},
			{"pending filtered, dateTo", TransactionFilter{Pending: true, PendingFiltered: true, DateTo: "2024-06-01"},
				[]string{"p2", "p1"}, 0},
			{"pending paged", TransactionFilter{Pending: true, PendingFiltered: true, Limit: 1}, []string{"p2"}, 0},
			{"pending paged, second page", TransactionFilter{Pending: true, PendingFiltered: true, Limit: 1, Offset: 1}, []string{"p1"}, 0},
		}
		for _, tt := range tests {
			got, total, err := s.ListTransactions(ctx, a.ID, tt.f)
			wantErr(t, tt.name, err, nil)
			var gotNames []string
			for _, tx := range got {
				n, ok := idName[tx.ID]
				if !ok {
					t.Fatalf("%s: transaction %q (amount %d) is not the account's", tt.name, tx.ID, tx.Amount)
				}
				if tx.AccountID != a.ID || tx.Booked != (n[0] == 'b') {
					t.Fatalf("%s: %s has AccountID %q Booked %v", tt.name, n, tx.AccountID, tx.Booked)
				}
				gotNames = append(gotNames, n)
			}
			if !reflect.DeepEqual(gotNames, tt.want) || total != tt.total {
				t.Fatalf("%s: got %v total %d, want %v total %d", tt.name, gotNames, total, tt.want, tt.total)
			}
		}

		errs := []struct {
			name string
			id   string
			f    TransactionFilter
			want error
		}{
			{"unknown account", "enc!!nope", TransactionFilter{Booked: true, Pending: true}, ErrNotFound},
			{"bad dateFrom", a.ID, TransactionFilter{Booked: true, DateFrom: "2025-13-01"}, ErrInvalid},
			{"bad dateTo", a.ID, TransactionFilter{Booked: true, DateTo: "yesterday"}, ErrInvalid},
			{"negative limit", a.ID, TransactionFilter{Booked: true, Limit: -1}, ErrInvalid},
		}
		for _, tt := range errs {
			_, _, err := s.ListTransactions(ctx, tt.id, tt.f)
			wantErr(t, tt.name, err, tt.want)
		}
	})
}

// TestBookedDetails: an account's booked transactions with their whole
// details, the members the listing leaves out included; pending ones and
// another account's are not among them.
func TestBookedDetails(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		c := mustCustomer(t, s, "01017012345", CustomerPrivate)
		a := mustAccount(t, s, c.ID, "NO9312345678903")
		b := mustAccount(t, s, c.ID, "NO0212345678901")
		wantErr(t, "AddTransactions", s.AddTransactions(ctx, a.ID, []Transaction{
			{Booked: true, Amount: 1, Currency: "NOK", BookingDate: "2025-01-02", Details: json.RawMessage(`{"tppTransactionId":"K1","creditorName":"Å"}`)},
			{Booked: false, Amount: 2, Currency: "NOK", Details: json.RawMessage(`{"tppTransactionId":"P1"}`)},
		}), nil)
		wantErr(t, "AddTransactions", s.AddTransactions(ctx, b.ID, []Transaction{
			{Booked: true, Amount: 3, Currency: "NOK", BookingDate: "2025-01-02", Details: json.RawMessage(`{"tppTransactionId":"B1"}`)},
		}), nil)
		got, err := s.BookedDetails(ctx, a.ID)
		wantErr(t, "BookedDetails", err, nil)
		if len(got) != 1 {
			t.Fatalf("BookedDetails = %s, want the one booked transaction", got)
		}
		var d map[string]string
		if json.Unmarshal(got[0], &d) != nil || d["tppTransactionId"] != "K1" || d["creditorName"] != "Å" {
			t.Fatalf("BookedDetails = %s, want its whole details", got[0])
		}
	})
}

// TestListViewIsTheStoredTransaction: the list view (ListTransactions,
// booked, pending, and pending paged by date) gives every transaction as
// GetTransaction does, less its CreatedAt, whatever its value date is:
// the booking date's (which the statements read only once), another, or
// none beside a booking date or without one.
func TestListViewIsTheStoredTransaction(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		c := mustCustomer(t, s, "01017012345", CustomerPrivate)
		a := mustAccount(t, s, c.ID, "NO9312345678903")
		txs := []Transaction{
			{Booked: true, Amount: -1, Currency: "NOK", BookingDate: "2025-01-10", ValueDate: "2025-01-10"},
			{Booked: true, Amount: -2, Currency: "NOK", BookingDate: "2025-01-10", ValueDate: "2025-01-11"},
			{Booked: true, Amount: -3, Currency: "EUR", BookingDate: "2025-01-09"},
			{Booked: true, Amount: -4, Currency: "NOK", BookingDate: "2025-01-08", ValueDate: "2025-01-07",
				Details: json.RawMessage(`{"creditorName":"Å"}`)},
			{Booked: false, Amount: -5, Currency: "NOK", BookingDate: "2025-01-12", ValueDate: "2025-01-12"},
			{Booked: false, Amount: -6, Currency: "NOK", ValueDate: "2025-01-13"},
			{Booked: false, Amount: -7, Currency: "NOK"},
		}
		wantErr(t, "AddTransactions", s.AddTransactions(ctx, a.ID, txs), nil)
		for _, f := range []TransactionFilter{
			{Booked: true, Pending: true},
			{Booked: true, Pending: true, PendingFiltered: true, Limit: 10},
		} {
			got, _, err := s.ListTransactions(ctx, a.ID, f)
			wantErr(t, "ListTransactions", err, nil)
			if len(got) != len(txs) {
				t.Fatalf("%+v: %d transactions, want %d", f, len(got), len(txs))
			}
			for _, l := range got {
				want, err := s.GetTransaction(ctx, a.ID, l.ID)
				wantErr(t, "GetTransaction", err, nil)
				want.CreatedAt = time.Time{}
				if !reflect.DeepEqual(l, *want) {
					t.Errorf("%+v: listed %+v, stored %+v", f, l, *want)
				}
			}
		}
	})
}
