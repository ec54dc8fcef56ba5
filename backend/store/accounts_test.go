package store

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"
)

// bigMoney is 2^53+1: a float64 would store it as 2^53.
const bigMoney = 9_007_199_254_740_993

func TestAccounts(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		owner := mustCustomer(t, s, "01017012345", CustomerPrivate)
		other := mustCustomer(t, s, "02027012345", CustomerPrivate)
		acct := &Account{CustomerID: owner.ID, Kind: KindAccount, Name: "Brukskonto", Product: "Gold",
			CashAccountType: "CACC", Currency: "NOK", BBAN: "12345678903", IBAN: "NO9312345678903",
			CreditLimit: bigMoney, Extra: json.RawMessage(`{"ownerName":"Ola","nested":{"a":[1,2]}}`)}
		wantErr(t, "CreateAccount", s.CreateAccount(ctx, acct), nil)
		if acct.Status != "enabled" {
			t.Fatalf("Status = %q, want enabled by default", acct.Status)
		}
		card := &Account{CustomerID: owner.ID, Kind: KindCardAccount, Name: "Visa", Product: "Visa Gold",
			CashAccountType: "CARD", Currency: "NOK", MaskedPAN: "525412******3241", CreditLimit: math.MaxInt64,
			Status: "blocked"}
		wantErr(t, "CreateAccount card", s.CreateAccount(ctx, card), nil)
		foreign := mustAccount(t, s, other.ID, "NO0212345678901")

		for _, want := range []*Account{acct, card} {
			got, err := s.GetAccount(ctx, want.ID)
			wantErr(t, "GetAccount", err, nil)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("GetAccount = %+v, want %+v", got, want)
			}
		}

		many := make([]string, 0, 2*listAccountsChunk)
		for i := 0; i < 2*listAccountsChunk-1; i++ {
			many = append(many, fmt.Sprintf("enc!!unknown%d", i))
		}
		many = append(many, acct.ID)
		lists := []struct {
			name string
			kind AccountKind
			ids  []string
			want []*Account
		}{
			{"accounts in id order, unknown and repeats skipped", KindAccount,
				[]string{foreign.ID, card.ID, "enc!!nope", acct.ID, acct.ID}, []*Account{foreign, acct}},
			{"cards only", KindCardAccount, []string{acct.ID, card.ID}, []*Account{card}},
			{"either kind", "", []string{card.ID, acct.ID}, []*Account{card, acct}},
			{"no ids", KindAccount, nil, nil},
			{"more ids than one query binds", KindAccount, many, []*Account{acct}},
		}
		for _, tt := range lists {
			got, err := s.ListAccounts(ctx, tt.kind, tt.ids)
			wantErr(t, tt.name, err, nil)
			if len(got) != len(tt.want) {
				t.Fatalf("%s: got %d accounts, want %d", tt.name, len(got), len(tt.want))
			}
			for i := range got {
				if !reflect.DeepEqual(&got[i], tt.want[i]) {
					t.Fatalf("%s: [%d] = %+v, want %+v", tt.name, i, got[i], *tt.want[i])
				}
			}
		}

		mine, err := s.ListCustomerAccounts(ctx, owner.ID)
		wantErr(t, "ListCustomerAccounts", err, nil)
		if len(mine) != 2 || mine[0].ID != acct.ID || mine[1].ID != card.ID {
			t.Fatalf("ListCustomerAccounts = %+v, want acct, card", mine)
		}
		none, err := s.ListCustomerAccounts(ctx, "enc!!nope")
		wantErr(t, "ListCustomerAccounts unknown", err, nil)
		if len(none) != 0 {
			t.Fatalf("ListCustomerAccounts(unknown) = %+v, want none", none)
		}

		errs := []struct {
			name string
			a    Account
			want error
		}{
			{"duplicate IBAN", Account{CustomerID: other.ID, Kind: KindAccount, IBAN: acct.IBAN}, ErrConflict},
			{"duplicate BBAN", Account{CustomerID: other.ID, Kind: KindAccount, BBAN: acct.BBAN}, ErrConflict},
			{"unknown customer", Account{CustomerID: "enc!!nope", Kind: KindAccount}, ErrNotFound},
			{"unknown kind", Account{CustomerID: owner.ID, Kind: "loan"}, ErrInvalid},
			{"extra not JSON", Account{CustomerID: owner.ID, Kind: KindAccount, Extra: json.RawMessage(`{"a":`)}, ErrInvalid},
		}
		for _, tt := range errs {
			wantErr(t, tt.name, s.CreateAccount(ctx, &tt.a), tt.want)
			if tt.a.ID != "" {
				t.Fatalf("%s: failed create assigned ID %q", tt.name, tt.a.ID)
			}
		}
		_, err = s.GetAccount(ctx, "enc!!nope")
		wantErr(t, "GetAccount unknown", err, ErrNotFound)
	})
}

func TestBalances(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		c := mustCustomer(t, s, "01017012345", CustomerPrivate)
		a := mustAccount(t, s, c.ID, "NO9312345678903")
		empty := mustAccount(t, s, c.ID, "NO0212345678901")
		changed := time.Date(2025, 2, 28, 23, 59, 59, 999999000, time.UTC)
		want := []Balance{
			{Type: "closingBooked", Amount: bigMoney, Currency: "NOK", ReferenceDate: "2025-02-28", LastChange: changed},
			{Type: "expected", Amount: -bigMoney, Currency: "NOK"},
			{Type: "interimAvailable", Amount: math.MinInt64, Currency: "EUR", ReferenceDate: "2025-03-01"},
		}
		wantErr(t, "SetBalances", s.SetBalances(ctx, a.ID, want), nil)
		got, err := s.ListBalances(ctx, a.ID)
		wantErr(t, "ListBalances", err, nil)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("ListBalances = %+v, want %+v", got, want)
		}

		wantErr(t, "SetBalances replace", s.SetBalances(ctx, a.ID, want[1:2]), nil)
		got, err = s.ListBalances(ctx, a.ID)
		wantErr(t, "ListBalances", err, nil)
		if !reflect.DeepEqual(got, want[1:2]) {
			t.Fatalf("ListBalances after replace = %+v, want %+v", got, want[1:2])
		}

		got, err = s.ListBalances(ctx, empty.ID)
		wantErr(t, "ListBalances of an account without balances", err, nil)
		if len(got) != 0 {
			t.Fatalf("ListBalances(empty) = %+v", got)
		}
		_, err = s.ListBalances(ctx, "enc!!nope")
		wantErr(t, "ListBalances unknown", err, ErrNotFound)
		wantErr(t, "SetBalances unknown", s.SetBalances(ctx, "enc!!nope", nil), ErrNotFound)
		wantErr(t, "SetBalances bad date", s.SetBalances(ctx, a.ID, []Balance{{Type: "expected", ReferenceDate: "2025-2-1"}}), ErrInvalid)
		got, _ = s.ListBalances(ctx, a.ID)
		if !reflect.DeepEqual(got, want[1:2]) {
			t.Fatalf("a refused SetBalances changed the balances: %+v", got)
		}
	})
}
