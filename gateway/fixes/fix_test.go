package fixes

import (
	"strings"
	"testing"
	"time"
)

func date(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func defaultRegistry(t testing.TB) *Registry {
	t.Helper()
	r, err := NewRegistry(DefaultFixes())
	if err != nil {
		t.Fatalf("NewRegistry(DefaultFixes()): %v", err)
	}
	return r
}

// allFixes is every known fix in effect.
const allFixes = bitAmountAsString | bitCardAccountSwitchAmounts | bitCashAccountTypeISO | bitLongerNames

func TestDefaultFixesDates(t *testing.T) {
	// The dates of the interface description, written out independently of
	// DefaultFixes.
	want := map[string][2]string{
		"amount-as-string": {"2019-11-01T00:00:00Z", "2020-08-01T00:00:00Z"},
		"cardaccount-switch-originalamount-and-transactionamount": {"2020-05-01T00:00:00Z", "2024-11-13T00:00:00Z"},
		"longer-names":          {"2020-06-01T00:00:00Z", "2024-10-01T00:00:00Z"},
		"cash-account-type-iso": {"2023-06-01T00:00:00Z", "2024-11-13T00:00:00Z"},
	}
	got := DefaultFixes()
	if len(got) != len(want) {
		t.Fatalf("DefaultFixes has %d fixes, want %d", len(got), len(want))
	}
	for _, f := range got {
		w, ok := want[f.Name]
		if !ok {
			t.Errorf("unexpected fix %q", f.Name)
			continue
		}
		if !f.Introduced.Equal(date(w[0])) || !f.DefaultSince.Equal(date(w[1])) {
			t.Errorf("%s: introduced %v default since %v, want %s %s", f.Name, f.Introduced, f.DefaultSince, w[0], w[1])
		}
	}
}

func TestNewRegistry(t *testing.T) {
	jan, feb := date("2020-01-01T00:00:00Z"), date("2020-02-01T00:00:00Z")
	tests := []struct {
		name    string
		fixes   []Fix
		wantErr string // substring; "" for success
		wantAll Set
	}{
		{name: "defaults", fixes: DefaultFixes(), wantAll: allFixes},
		{name: "empty", fixes: nil, wantAll: 0},
		{name: "subset", fixes: []Fix{{Name: LongerNames, Introduced: jan, DefaultSince: feb}}, wantAll: bitLongerNames},
		{name: "name case is canonicalized", fixes: []Fix{{Name: "Longer-Names", Introduced: jan, DefaultSince: feb}}, wantAll: bitLongerNames},
		{name: "same dates", fixes: []Fix{{Name: LongerNames, Introduced: jan, DefaultSince: jan}}, wantAll: bitLongerNames},
		{name: "unknown", fixes: []Fix{{Name: "shorter-names", Introduced: jan, DefaultSince: feb}}, wantErr: `no legacy rewrite is implemented for "shorter-names"`},
		{name: "empty name", fixes: []Fix{{Name: "", Introduced: jan, DefaultSince: feb}}, wantErr: "no legacy rewrite"},
		{name: "duplicate", fixes: []Fix{{Name: LongerNames, Introduced: jan, DefaultSince: feb}, {Name: "LONGER-NAMES", Introduced: jan, DefaultSince: feb}}, wantErr: "configured twice"},
		{name: "default before introduced", fixes: []Fix{{Name: LongerNames, Introduced: feb, DefaultSince: jan}}, wantErr: "default_since 2020-01-01 before introduced 2020-02-01"},
		{name: "no introduced", fixes: []Fix{{Name: LongerNames, DefaultSince: feb}}, wantErr: "needs both"},
		{name: "no default since", fixes: []Fix{{Name: LongerNames, Introduced: jan}}, wantErr: "needs both"},
		{name: "long unknown name is cut in the error", fixes: []Fix{{Name: strings.Repeat("x", 500), Introduced: jan, DefaultSince: feb}}, wantErr: "..."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewRegistry(tt.fixes)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				if len(err.Error()) > 200 {
					t.Errorf("error text of %d characters", len(err.Error()))
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if got := r.Legacy(0); got != tt.wantAll {
				t.Errorf("Legacy(none) = %q, want %q", got, tt.wantAll)
			}
			for _, f := range r.Fixes() {
				if lookup(f.Name) == 0 || f.Name != strings.ToLower(f.Name) {
					t.Errorf("Fixes() holds non-canonical name %q", f.Name)
				}
			}
		})
	}
}

// TestInEffect pins the clock around each fix's dates.
func TestInEffect(t *testing.T) {
	r := defaultRegistry(t)
	all := "amount-as-string,cardaccount-switch-originalamount-and-transactionamount,cash-account-type-iso,longer-names"
	tests := []struct {
		name      string
		now       string
		requested []string
		want      string
	}{
		{name: "2019 before everything", now: "2019-06-01T00:00:00Z", want: ""},
		{name: "2019 amount requested before introduced", now: "2019-10-31T23:59:59Z", requested: []string{AmountAsString}, want: ""},
		{name: "amount requested on its introduction", now: "2019-11-01T00:00:00Z", requested: []string{AmountAsString}, want: "amount-as-string"},
		{name: "amount requested, others too early", now: "2020-03-01T00:00:00Z", requested: []string{AmountAsString, LongerNames, CashAccountTypeISO, CardAccountSwitchAmounts}, want: "amount-as-string"},
		{name: "amount not requested just before default", now: "2020-07-31T23:59:59Z", want: ""},
		{name: "amount default at midnight UTC", now: "2020-08-01T00:00:00Z", want: "amount-as-string"},
		{name: "amount default, other zone same instant", now: "2020-08-01T02:00:00+02:00", want: "amount-as-string"},
		{name: "card switch requested before introduced", now: "2020-04-30T12:00:00Z", requested: []string{CardAccountSwitchAmounts}, want: ""},
		{name: "card switch requested after introduced", now: "2020-05-01T00:00:00Z", requested: []string{CardAccountSwitchAmounts}, want: "cardaccount-switch-originalamount-and-transactionamount"},
		{name: "longer names requested before introduced", now: "2020-05-31T23:59:59Z", requested: []string{LongerNames}, want: ""},
		{name: "longer names requested", now: "2020-06-01T00:00:00Z", requested: []string{LongerNames}, want: "longer-names"},
		{name: "cash type requested before introduced", now: "2023-05-31T00:00:00Z", requested: []string{CashAccountTypeISO}, want: "amount-as-string"},
		{name: "cash type requested", now: "2023-06-01T00:00:00Z", requested: []string{CashAccountTypeISO}, want: "amount-as-string,cash-account-type-iso"},
		{name: "all requested 2024-09", now: "2024-09-30T23:59:59Z", requested: []string{AmountAsString, CardAccountSwitchAmounts, CashAccountTypeISO, LongerNames}, want: all},
		{name: "none requested 2024-09", now: "2024-09-30T23:59:59Z", want: "amount-as-string"},
		{name: "longer names default", now: "2024-10-01T00:00:00Z", want: "amount-as-string,longer-names"},
		{name: "requested names compare case-insensitively", now: "2024-10-01T00:00:00Z", requested: []string{"Cash-Account-Type-ISO"}, want: "amount-as-string,cash-account-type-iso,longer-names"},
		{name: "unknown requested ignored", now: "2024-10-01T00:00:00Z", requested: []string{"shorter-names", ""}, want: "amount-as-string,longer-names"},
		{name: "just before the last defaults", now: "2024-11-12T23:59:59Z", want: "amount-as-string,longer-names"},
		{name: "all default", now: "2024-11-13T00:00:00Z", want: all},
		{name: "all default and requested", now: "2026-11-21T10:00:00Z", requested: []string{LongerNames}, want: all},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.InEffect(tt.requested, date(tt.now))
			if got.String() != tt.want {
				t.Fatalf("InEffect(%q, %s) = %q, want %q", tt.requested, tt.now, got, tt.want)
			}
			if legacy := r.Legacy(got); legacy&got != 0 || legacy|got != allFixes {
				t.Errorf("Legacy(%q) = %q: not the complement", got, legacy)
			}
		})
	}
}

func TestInEffectOnlyRegistered(t *testing.T) {
	r, err := NewRegistry([]Fix{{Name: LongerNames, Introduced: date("2020-06-01T00:00:00Z"), DefaultSince: date("2030-01-01T00:00:00Z")}})
	if err != nil {
		t.Fatal(err)
	}
	now := date("2026-01-01T00:00:00Z")
	if got := r.InEffect([]string{AmountAsString, LongerNames}, now); got != bitLongerNames {
		t.Errorf("InEffect = %q, want only longer-names", got)
	}
	if got := r.InEffect(nil, now); got != 0 {
		t.Errorf("InEffect(nil) = %q, want none", got)
	}
	if got := r.Legacy(0); got != bitLongerNames {
		t.Errorf("Legacy(none) = %q, want only longer-names: unregistered fixes are never rewritten", got)
	}
}

func TestSet(t *testing.T) {
	tests := []struct {
		set       Set
		wantStr   string
		wantNames []string
	}{
		{0, "", nil},
		{bitLongerNames, "longer-names", []string{LongerNames}},
		{bitLongerNames | bitAmountAsString, "amount-as-string,longer-names", []string{AmountAsString, LongerNames}},
		{allFixes, "amount-as-string,cardaccount-switch-originalamount-and-transactionamount,cash-account-type-iso,longer-names",
			[]string{AmountAsString, CardAccountSwitchAmounts, CashAccountTypeISO, LongerNames}},
		{0xF0, "", nil}, // bits without a fix are ignored
	}
	for _, tt := range tests {
		if got := tt.set.String(); got != tt.wantStr {
			t.Errorf("Set(%#x).String() = %q, want %q", uint8(tt.set), got, tt.wantStr)
		}
		if got := tt.set.Names(); strings.Join(got, "|") != strings.Join(tt.wantNames, "|") || (got == nil) != (tt.wantNames == nil) {
			t.Errorf("Set(%#x).Names() = %q, want %q", uint8(tt.set), got, tt.wantNames)
		}
		if got := tt.set.Empty(); got != (tt.wantNames == nil) {
			t.Errorf("Set(%#x).Empty() = %v", uint8(tt.set), got)
		}
		for _, k := range known {
			want := strings.Contains(","+tt.wantStr+",", ","+k+",")
			if tt.set.Has(k) != want || tt.set.Has(strings.ToUpper(k)) != want {
				t.Errorf("Set(%#x).Has(%q) = %v, want %v", uint8(tt.set), k, !want, want)
			}
		}
		if tt.set.Has("") || tt.set.Has("unknown") {
			t.Errorf("Set(%#x) has an unknown fix", uint8(tt.set))
		}
	}
}
