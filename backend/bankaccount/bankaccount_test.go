package bankaccount

import "testing"

func TestBBAN(t *testing.T) {
	for s, ok := range map[string]bool{
		"09232911044": false, // the contract's example: 133 mod 11 = 1, no check digit exists
		"12345678903": true,
		"12345678904": false,
		"1234567890":  false,
		"1234567890a": false,
	} {
		if ValidBBAN(s) != ok {
			t.Errorf("ValidBBAN(%s) != %v", s, ok)
		}
	}
	b, err := CompleteBBAN("1234567890")
	if err != nil || b != "12345678903" {
		t.Fatal(b, err)
	}
}

func TestIBAN(t *testing.T) {
	// The contract's example has the right MOD 97 digits, but its BBAN
	// fails MOD11, so it is not a valid Norwegian IBAN.
	if got := IBAN("NO", "09232911044"); got != "NO7809232911044" {
		t.Fatalf("IBAN = %s", got)
	}
	for s, ok := range map[string]bool{
		"NO7809232911044":        false,
		"NO7112345678903":        true,
		"NO7909232911044":        false,
		"NO9386011117947":        true,
		"DE89370400440532013000": true,
		"DE89370400440532013001": false,
		"no9386011117947":        false,
	} {
		if ValidIBAN(s) != ok {
			t.Errorf("ValidIBAN(%s) != %v", s, ok)
		}
	}
}

// TestValidIBANCheckDigits: MOD 97 and structure only; a Norwegian IBAN
// whose account number fails MOD11 passes, one of the wrong length or
// with letters in the account number does not.
func TestValidIBANCheckDigits(t *testing.T) {
	for s, ok := range map[string]bool{
		"NO7809232911044":        true,
		"NO7909232911044":        false,
		"NO9386011117947":        true,
		"NO938601111794":         false,
		"NO93860111179A7":        false,
		"DE89370400440532013000": true,
		"no7809232911044":        false,
	} {
		if ValidIBANCheckDigits(s) != ok {
			t.Errorf("ValidIBANCheckDigits(%s) != %v", s, ok)
		}
	}
}
