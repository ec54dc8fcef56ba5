package fixes

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

// FuzzRewrite checks that Rewrite never panics, returns valid JSON for
// valid JSON and the body itself otherwise, passes everything through when
// every fix is in effect, and agrees with the reference model. legacy picks
// the fixes not in effect (its low four bits).
func FuzzRewrite(f *testing.F) {
	f.Add([]byte(`{"currency":"NOK","amount":"-12.50"}`), uint8(allFixes))
	f.Add([]byte(`{"cardTransactionId":"c","transactionAmount":{"currency":"NOK","amount":"1"},"originalAmount":{"currency":"SEK","amount":"2"}}`), uint8(bitCardAccountSwitchAmounts))
	f.Add([]byte(`{"resourceId":"a","name":"`+strings.Repeat(`\u00f8`, 40)+`","cashAccountType":"CACC"}`), uint8(bitLongerNames|bitCashAccountTypeISO))
	f.Add([]byte(`[{"account":{"name":"\ud83d\udcb3\ud83d"}}, 1e9, "x"]`), uint8(allFixes))
	r := defaultRegistry(f)
	f.Fuzz(func(t *testing.T, body []byte, legacy uint8) {
		in := bytes.Clone(body)
		notInEffect := Set(legacy) & allFixes
		out, err := r.Rewrite(body, allFixes&^notInEffect)
		if !bytes.Equal(body, in) {
			t.Fatalf("Rewrite modified its input")
		}
		if all, err := r.Rewrite(body, allFixes); err != nil || !bytes.Equal(all, in) {
			t.Fatalf("every fix in effect: %q, %v; want the input", all, err)
		}
		valid := json.Valid(in)
		if err != nil {
			if !bytes.Equal(out, in) {
				t.Fatalf("error %v but the body changed to %q", err, out)
			}
			if len(err.Error()) > 200 {
				t.Fatalf("error text of %d characters", len(err.Error()))
			}
			if valid {
				_, depth, _ := jsonShape(in)
				if !errors.Is(err, ErrTooDeep) || depth <= MaxDepth {
					t.Fatalf("valid JSON of depth %d refused: %v", depth, err)
				}
			} else if !errors.Is(err, ErrInvalidJSON) && !errors.Is(err, ErrTooDeep) {
				// Too deep is found first when the error lies deeper.
				t.Fatalf("invalid JSON: err = %v, want ErrInvalidJSON", err)
			}
			return
		}
		if notInEffect.Empty() {
			if !bytes.Equal(out, in) {
				t.Fatalf("nothing to rewrite but the body changed")
			}
			return
		}
		if !valid {
			t.Fatalf("invalid JSON %q accepted", in)
		}
		if !json.Valid(out) {
			t.Fatalf("output is not valid JSON: %q from %q", out, in)
		}
		dup, _, inKeys := jsonShape(in)
		_, _, outKeys := jsonShape(out)
		if notInEffect&bitCardAccountSwitchAmounts != 0 {
			// Swapped values carry their members along.
			slices.Sort(inKeys)
			slices.Sort(outKeys)
		}
		if !slices.Equal(inKeys, outKeys) {
			t.Fatalf("member names changed: %q to %q", inKeys, outKeys)
		}
		if !dup {
			checkAgainstReference(t, in, out, notInEffect)
		}
		// Applying the legacy rewrite to its own output changes nothing
		// more, except for the amount swap, which is its own inverse.
		if notInEffect&bitCardAccountSwitchAmounts == 0 {
			again, err := r.Rewrite(out, allFixes&^notInEffect)
			if err != nil || !bytes.Equal(again, out) {
				t.Fatalf("rewrite is not idempotent: %q then %q (%v)", out, again, err)
			}
		}
	})
}

// FuzzParseHeader checks that ParseHeader never panics and returns sorted,
// distinct, canonical names, each present in the header.
func FuzzParseHeader(f *testing.F) {
	f.Add("longer-names, amount-as-string")
	f.Add(" LONGER-NAMES ,,\tcash-account-type-iso,longer-names")
	f.Add("cardaccount-switch-originalamount-and-transactionamount;q=1, x")
	f.Fuzz(func(t *testing.T, header string) {
		for _, values := range [][]string{{header}, strings.SplitAfter(header, "\n")} {
			got := ParseHeader(values)
			if len(got) > len(known) {
				t.Fatalf("ParseHeader(%q) = %q: too many", values, got)
			}
			if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
				t.Fatalf("ParseHeader(%q) = %q: not sorted and distinct", values, got)
			}
			lower := strings.ToLower(header)
			for _, name := range got {
				if lookup(name) == 0 || name != strings.ToLower(name) {
					t.Fatalf("ParseHeader(%q) returned non-canonical %q", values, name)
				}
				if !strings.Contains(lower, name) {
					t.Fatalf("ParseHeader(%q) returned %q, which is not in the header", values, name)
				}
			}
			if again := ParseHeader([]string{strings.Join(got, ",")}); !slices.Equal(again, got) {
				t.Fatalf("ParseHeader of its own result %q = %q", got, again)
			}
		}
	})
}
