package fixes

import (
	"fmt"
	"math/bits"
	"time"
)

// The fixes this package has a legacy rewrite for.
const (
	// AmountAsString serializes amounts as decimal strings.
	AmountAsString = "amount-as-string"
	// CardAccountSwitchAmounts corrects the mapping of card transaction
	// amounts (transactionAmount and originalAmount were swapped).
	CardAccountSwitchAmounts = "cardaccount-switch-originalamount-and-transactionamount"
	// CashAccountTypeISO maps cashAccountType to ISO 20022 codes.
	CashAccountTypeISO = "cash-account-type-iso"
	// LongerNames allows account and card account names up to 70 characters.
	LongerNames = "longer-names"
)

// known lists the fixes with a rewrite, sorted: bit i of a Set is known[i],
// so iterating the bits yields sorted names.
var known = [...]string{AmountAsString, CardAccountSwitchAmounts, CashAccountTypeISO, LongerNames}

const (
	bitAmountAsString Set = 1 << iota
	bitCardAccountSwitchAmounts
	bitCashAccountTypeISO
	bitLongerNames
)

// lookup returns the bit of the known fix named name, compared ASCII
// case-insensitively, or 0.
func lookup(name string) Set {
	for i, k := range known {
		if equalFoldASCII(name, k) {
			return 1 << i
		}
	}
	return 0
}

// equalFoldASCII reports whether a and b are equal under ASCII case
// folding only: unlike strings.EqualFold, the Kelvin sign is not a 'k'.
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		// Only letters fold: '\r'|0x20 is '-'.
		if x |= 0x20; x != y|0x20 || x < 'a' || x > 'z' {
			return false
		}
	}
	return true
}

// Fix is one x-accept-fix value with its dates.
type Fix struct {
	// Name is the x-accept-fix value, e.g. "longer-names".
	Name string
	// Introduced is when a request may opt in.
	Introduced time.Time
	// DefaultSince is when the fix applies to every request.
	DefaultSince time.Time
}

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// DefaultFixes returns the four fixes of the interface description with its
// dates (midnight UTC; the first of the month where only a month is given).
func DefaultFixes() []Fix {
	return []Fix{
		{Name: AmountAsString, Introduced: day(2019, time.November, 1), DefaultSince: day(2020, time.August, 1)},
		{Name: CardAccountSwitchAmounts, Introduced: day(2020, time.May, 1), DefaultSince: day(2024, time.November, 13)},
		{Name: LongerNames, Introduced: day(2020, time.June, 1), DefaultSince: day(2024, time.October, 1)},
		{Name: CashAccountTypeISO, Introduced: day(2023, time.June, 1), DefaultSince: day(2024, time.November, 13)},
	}
}

// Registry is the set of fixes a gateway knows, from policy configuration.
// It is immutable and safe for concurrent use.
type Registry struct {
	fixes []registered
	all   Set
}

type registered struct {
	Fix
	bit Set
}

// NewRegistry checks fixes and returns their registry. Each fix must have a
// rewrite in this package (see the constants), appear once, and have both
// dates with DefaultSince not before Introduced. An empty list is allowed:
// nothing is ever rewritten.
func NewRegistry(fixes []Fix) (*Registry, error) {
	r := &Registry{fixes: make([]registered, 0, len(fixes))}
	for _, f := range fixes {
		bit := lookup(f.Name)
		switch {
		case bit == 0:
			return nil, fmt.Errorf("fixes: no legacy rewrite is implemented for %q; a fix needs its rewrite in package fixes before it can be configured", truncate(f.Name))
		case r.all&bit != 0:
			return nil, fmt.Errorf("fixes: %q is configured twice; keep one entry", f.Name)
		case f.Introduced.IsZero() || f.DefaultSince.IsZero():
			return nil, fmt.Errorf("fixes: %q needs both introduced and default_since dates (a far-future default_since if not yet decided)", f.Name)
		case f.DefaultSince.Before(f.Introduced):
			return nil, fmt.Errorf("fixes: %q has default_since %s before introduced %s", f.Name, f.DefaultSince.Format(time.DateOnly), f.Introduced.Format(time.DateOnly))
		}
		f.Name = known[bits.TrailingZeros8(uint8(bit))]
		r.fixes = append(r.fixes, registered{Fix: f, bit: bit})
		r.all |= bit
	}
	return r, nil
}

// truncate shortens a configured name for an error text.
func truncate(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

// Fixes returns the registered fixes with canonical names, in
// configuration order.
func (r *Registry) Fixes() []Fix {
	out := make([]Fix, len(r.fixes))
	for i := range r.fixes {
		out[i] = r.fixes[i].Fix
	}
	return out
}

// InEffect returns the fixes in effect at now: those whose DefaultSince has
// passed (now is not before it), plus those in requested (names as
// ParseHeader returns them; compared case-insensitively) whose Introduced
// has passed. Fixes outside the registry are never in the result.
func (r *Registry) InEffect(requested []string, now time.Time) Set {
	var s Set
	for i := range r.fixes {
		f := &r.fixes[i]
		if !now.Before(f.DefaultSince) {
			s |= f.bit
			continue
		}
		if now.Before(f.Introduced) {
			continue
		}
		for _, name := range requested {
			if equalFoldASCII(name, f.Name) {
				s |= f.bit
				break
			}
		}
	}
	return s
}

// Legacy returns the registered fixes not in inEffect: the legacy rewrites
// Rewrite applies. Empty means the body passes through untouched.
func (r *Registry) Legacy(inEffect Set) Set { return r.all &^ inEffect }
