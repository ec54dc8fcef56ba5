package fixes

import "github.com/obgw/obgw/jsonscan"

// keyKind is a member name some legacy rewrite looks at.
type keyKind uint8

const (
	keyOther keyKind = iota
	keyAccount
	keyAmount
	keyCardAccount
	keyCardTransactionID
	keyCashAccountType
	keyCurrency
	keyName
	keyOriginalAmount
	keyResourceID
	keyTransactionAmount
	numKeyKinds
)

// maxEscapedKey bounds the escaped member names classifyKey decodes: the
// longest name of interest, all \u escapes, is 6*17 bytes.
const maxEscapedKey = 128

// classifyKey returns the kind of the member name raw (between the quotes;
// escaped says whether it has backslash escapes).
func classifyKey(raw []byte, escaped bool) keyKind {
	if escaped {
		if len(raw) > maxEscapedKey {
			return keyOther
		}
		var buf [maxEscapedKey]byte
		raw, _ = jsonscan.Unescape(buf[:0], raw)
	}
	switch string(raw) {
	case "account":
		return keyAccount
	case "amount":
		return keyAmount
	case "cardAccount":
		return keyCardAccount
	case "cardTransactionId":
		return keyCardTransactionID
	case "cashAccountType":
		return keyCashAccountType
	case "currency":
		return keyCurrency
	case "name":
		return keyName
	case "originalAmount":
		return keyOriginalAmount
	case "resourceId":
		return keyResourceID
	case "transactionAmount":
		return keyTransactionAmount
	}
	return keyOther
}

// member is where the value of a member of interest lies in the output,
// and how often the object names it.
type member struct {
	start, end int
	n          uint8
}

// members holds an object's members of interest, by kind.
type members [numKeyKinds]member

func (m *members) add(k keyKind, start, end int) {
	if k == keyOther {
		return
	}
	p := &m[k]
	if p.n < 2 {
		p.n++
	}
	p.start, p.end = start, end
}

// one returns the member of kind k if the object names it exactly once.
func (m *members) one(k keyKind) (member, bool) {
	return m[k], m[k].n == 1
}
