package fixes

import (
	"bytes"

	"github.com/obgw/obgw/jsonscan"
)

// LegacyNameLength is the longest account or card account name, in
// characters, before the longer-names fix.
const LegacyNameLength = 35

// edit replaces the value at out[start:end] with lit, or else with the
// value's earlier bytes out[from:to] followed by a '"' when quote is set.
type edit struct {
	start, end int
	from, to   int
	lit        string
	quote      bool
}

// edit applies the legacy rewrites to the object that starts at output
// position start and ends at w.pos, given its members of interest and the
// kind of the member it is the value of.
func (w *rewriter) edit(start int, m *members, parent keyKind) {
	if !w.mayEdit(m, parent) {
		return
	}
	// The checks below read the values, so the object must be in out.
	w.flush()
	var edits [5]edit
	n := 0
	if w.legacy&bitAmountAsString != 0 {
		if e, ok := w.amountEdit(m); ok {
			edits[n] = e
			n++
		}
	}
	if w.legacy&bitCardAccountSwitchAmounts != 0 {
		_, card := m.one(keyCardTransactionID)
		t, okT := m.one(keyTransactionAmount)
		o, okO := m.one(keyOriginalAmount)
		if card && okT && okO {
			edits[n] = edit{start: t.start, end: t.end, from: o.start, to: o.end}
			edits[n+1] = edit{start: o.start, end: o.end, from: t.start, to: t.end}
			n += 2
		}
	}
	if w.legacy&bitLongerNames != 0 {
		if e, ok := w.nameEdit(m, parent); ok {
			edits[n] = e
			n++
		}
	}
	if w.legacy&bitCashAccountTypeISO != 0 {
		if c, ok := m.one(keyCashAccountType); ok && w.out[c.start] == '"' {
			raw := w.out[c.start+1 : c.end-1]
			if bytes.IndexByte(raw, '\\') >= 0 {
				raw, _ = jsonscan.Unescape(nil, raw)
			}
			if lit := legacyCashAccountType(raw); lit != "" {
				edits[n] = edit{start: c.start, end: c.end, lit: lit}
				n++
			}
		}
	}
	if n == 0 {
		return
	}
	// Members are distinct, so the edits do not overlap; write them in
	// order of position.
	for i := 1; i < n; i++ {
		for j := i; j > 0 && edits[j].start < edits[j-1].start; j-- {
			edits[j], edits[j-1] = edits[j-1], edits[j]
		}
	}
	w.edited = true
	w.scratch = append(w.scratch[:0], w.out[start:]...)
	old := w.scratch
	w.out = w.out[:start]
	at := start
	for _, e := range edits[:n] {
		w.out = append(w.out, old[at-start:e.start-start]...)
		if e.lit != "" {
			w.out = append(w.out, e.lit...)
		} else {
			w.out = append(w.out, old[e.from-start:e.to-start]...)
		}
		if e.quote {
			w.out = append(w.out, '"')
		}
		at = e.end
	}
	w.out = append(w.out, old[at-start:]...)
}

// mayEdit reports whether the members of interest of an object are those
// some legacy rewrite needs, before their values are looked at.
func (w *rewriter) mayEdit(m *members, parent keyKind) bool {
	l := w.legacy
	return l&bitAmountAsString != 0 && m[keyAmount].n == 1 && m[keyCurrency].n == 1 ||
		l&bitCardAccountSwitchAmounts != 0 && m[keyCardTransactionID].n == 1 && m[keyTransactionAmount].n == 1 && m[keyOriginalAmount].n == 1 ||
		l&bitLongerNames != 0 && m[keyName].n == 1 && (m[keyResourceID].n == 1 || parent == keyAccount || parent == keyCardAccount) ||
		l&bitCashAccountTypeISO != 0 && m[keyCashAccountType].n == 1
}

// amountEdit turns the amount of an amount object, a decimal string, into
// a number with the same digits.
func (w *rewriter) amountEdit(m *members) (edit, bool) {
	a, okA := m.one(keyAmount)
	c, okC := m.one(keyCurrency)
	if !okA || !okC || w.out[a.start] != '"' || w.out[c.start] != '"' {
		return edit{}, false
	}
	raw := w.out[a.start+1 : a.end-1]
	if bytes.IndexByte(raw, '\\') < 0 {
		if !isDecimal(raw) {
			return edit{}, false
		}
		return edit{start: a.start, end: a.end, from: a.start + 1, to: a.end - 1}, true
	}
	if d, _ := jsonscan.Unescape(nil, raw); isDecimal(d) {
		return edit{start: a.start, end: a.end, lit: string(d)}, true
	}
	return edit{}, false
}

// nameEdit cuts the name of an account or card account to
// LegacyNameLength characters.
func (w *rewriter) nameEdit(m *members, parent keyKind) (edit, bool) {
	nm, ok := m.one(keyName)
	if !ok || w.out[nm.start] != '"' {
		return edit{}, false
	}
	if _, account := m.one(keyResourceID); !account && parent != keyAccount && parent != keyCardAccount {
		return edit{}, false
	}
	raw := w.out[nm.start+1 : nm.end-1]
	cut := prefixLength(raw, LegacyNameLength)
	if cut == len(raw) {
		return edit{}, false
	}
	return edit{start: nm.start, end: nm.end, from: nm.start, to: nm.start + 1 + cut, quote: true}, true
}

// isDecimal reports whether b is a decimal the way amounts are written
// (-12.50, 0, 150): an optional minus, an integer part without leading
// zeros, and optionally '.' and digits. Such text is also a JSON number.
func isDecimal(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return false
	}
	if i == len(b) {
		return true
	}
	if b[i] != '.' || i+1 == len(b) {
		return false
	}
	return digits(b, i+1) == len(b)
}
