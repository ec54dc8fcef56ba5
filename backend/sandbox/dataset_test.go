package sandbox

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/obgw/obgw/backend/bankaccount"
	"github.com/obgw/obgw/backend/store"
	"github.com/obgw/obgw/backend/store/storetest"
)

func TestSeedFixedDataSet(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "s.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Now()
	// A TPP's sandbox, seeded at its first call and never again.
	const owner = "PSDNO-FSA-987654321"
	if err := SeedFor(ctx, st, owner, now); err != nil {
		t.Fatal(err)
	}
	if err := SeedFor(ctx, st, owner, now); err != nil { // a second call changes nothing
		t.Fatal(err)
	}
	// The bank's own customers hold the same data set, apart.
	if err := Seed(ctx, st, now); err != nil {
		t.Fatal(err)
	}
	if err := Seed(ctx, st, now); err != nil { // a second start changes nothing
		t.Fatal(err)
	}
	if own, _ := st.ListCustomers(ctx, ""); len(own) != 4 {
		t.Fatalf("the bank's own customers: %d, want the data set's 4", len(own))
	}
	cs, _ := st.ListCustomers(ctx, owner)
	var private, corporate int
	for _, c := range cs {
		if c.Type == store.CustomerPrivate {
			private++
		} else {
			corporate++
		}
	}
	// Exactly the description's "two private customers (each with 2
	// accounts, and a card account) and two corporate customers (each
	// with 2 accounts)" (issue 16).
	if private != 2 || corporate != 2 {
		t.Fatalf("%d private, %d corporate customers", private, corporate)
	}
	for _, number := range []string{KariNumber, OlaNumber} {
		if number == "13039319955" {
			t.Errorf("customer %s is the contract example's, which the tooling creates", number)
		}
		c, err := st.GetCustomerByNumber(ctx, owner, number)
		if err != nil {
			t.Fatal(err)
		}
		accs, _ := st.ListCustomerAccounts(ctx, c.ID)
		var accounts, cards int
		for _, a := range accs {
			if a.Kind == store.KindCardAccount {
				cards++
				continue
			}
			accounts++
			if !bankaccount.ValidBBAN(a.BBAN) || !bankaccount.ValidIBAN(a.IBAN) {
				t.Errorf("%s: invalid BBAN %s or IBAN %s", a.Name, a.BBAN, a.IBAN)
			}
		}
		if accounts != 2 || cards != 1 {
			t.Errorf("%s: %d accounts, %d card accounts", number, accounts, cards)
		}
		// The booked balance matches the booked transaction list.
		for _, a := range accs {
			txs, _, err := st.ListTransactions(ctx, a.ID, store.TransactionFilter{Booked: true})
			if err != nil {
				t.Fatal(err)
			}
			var sum int64
			for _, tx := range txs {
				sum += tx.Amount
				var d map[string]any
				if err := json.Unmarshal(tx.Details, &d); err != nil {
					t.Fatal(err)
				}
			}
			bs, _ := st.ListBalances(ctx, a.ID)
			for _, b := range bs {
				if b.Type == "closingBooked" && b.Amount != sum {
					t.Errorf("%s: closingBooked %d, booked transactions sum to %d", a.Name, b.Amount, sum)
				}
			}
		}
	}
	for _, number := range []string{FjordfiskNumber, BakeriNumber} {
		c, _ := st.GetCustomerByNumber(ctx, owner, number)
		accs, _ := st.ListCustomerAccounts(ctx, c.ID)
		if len(accs) != 2 {
			t.Errorf("%s: %d accounts", number, len(accs))
		}
	}
}

func TestKIDsHaveMOD10CheckDigits(t *testing.T) {
	for _, n := range []int{0, 5, 9, 120} {
		kid := kidFor(n)
		sum := 0
		for i := len(kid) - 1; i >= 0; i-- {
			d := int(kid[i] - '0')
			if (len(kid)-1-i)%2 == 1 {
				d *= 2
				if d > 9 {
					d -= 9
				}
			}
			sum += d
		}
		if sum%10 != 0 {
			t.Errorf("KID %s fails MOD10", kid)
		}
	}
}

// TestSeedForRace: two instances on one PostgreSQL database take a TPP's
// first calls at once; its sandbox is seeded once, whole, and a later
// call on either seeds nothing more (issue 16: the cluster behaves as
// one).
func TestSeedForRace(t *testing.T) {
	ctx := context.Background()
	url, _ := storetest.Schema(t, "t_sandbox_race")
	var stores [2]store.Store
	for i := range stores {
		st, err := store.Open(ctx, url, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		stores[i] = st
	}
	const owner = "PSDNO-FSA-987654321"
	for round := range 3 {
		errs := make(chan error, len(stores))
		for _, st := range stores {
			go func() { errs <- SeedFor(ctx, st, owner, time.Now()) }()
		}
		for range stores {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		for i, st := range stores {
			if cs, err := st.ListCustomers(ctx, owner); err != nil || len(cs) != 4 {
				t.Fatalf("round %d, instance %d: %d customers, %v; want the data set's 4 once", round, i, len(cs), err)
			}
		}
	}
}
