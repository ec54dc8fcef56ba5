package tppcontacts

import (
	"strconv"

	"github.com/obgw/obgw/backend/strictjson"
)

// Bounds of a registration body.
const (
	// MaxBodyBytes bounds the body: ten addresses of the longest kind,
	// pretty-printed, stay well under it.
	MaxBodyBytes = 16 << 10
	// MaxAddresses is the most addresses a TPP registers.
	MaxAddresses = 10
)

// FieldError is one broken rule of a body: strictjson's, shared with the
// other body parsers; the caller maps it to a tppMessage of a 400
// FORMAT_ERROR.
type FieldError = strictjson.FieldError

// Registration is a validated PUT /v1/tpp-contacts body.
type Registration struct {
	// TPPID is tppId as sent, "" when absent; it has the form of an
	// organizationIdentifier, with or without the PSD prefix, but whether
	// it names the verified TPP is the caller's question (Match).
	TPPID string
	// EmailAddresses are 1 to MaxAddresses distinct addresses, in the
	// order and spelling sent.
	EmailAddresses []string
}

var registrationFields = &strictjson.FieldSet{
	Names: []string{"tppId", "emailAddresses"},
	Hints: map[string]string{
		"emailAddress": "is not a known field; send emailAddresses, an array of 1 to 10 addresses",
		"email":        "is not a known field; send emailAddresses, an array of 1 to 10 addresses",
	},
}

// ParseRegistration parses and validates a registration body, returning
// either the registration or every rule broken (at most
// strictjson.MaxFieldErrors).
func ParseRegistration(body []byte) (Registration, []FieldError) {
	if len(body) > MaxBodyBytes {
		return Registration{}, []FieldError{{Path: "$", Rule: "body is larger than " + strconv.Itoa(MaxBodyBytes>>10) + " KiB; send at most " + strconv.Itoa(MaxAddresses) + " addresses"}}
	}
	var c strictjson.Checker
	if errs := c.Decode(string(body), strictjson.RefuseCharacters); errs != nil {
		return Registration{}, errs
	}
	var reg Registration
	if o, ok := c.RootObject(registrationFields); ok {
		reg.TPPID, _ = o.Code("tppId", false, ValidTPPID, RuleTPPID)
		reg.EmailAddresses = addresses(&c, o)
	}
	if errs := c.Errors(); len(errs) > 0 {
		return Registration{}, errs
	}
	return reg, nil
}

// addresses checks the emailAddresses array of o, returning the addresses
// when every one is valid and none repeats another.
func addresses(c *strictjson.Checker, o strictjson.Object) []string {
	l, p := o.List("emailAddresses", true, "e-mail addresses", 1, MaxAddresses)
	if p != strictjson.Valid {
		return nil
	}
	out := make([]string, 0, l.Len())
	seen := make([]seenAddress, 0, l.Len())
	ok := true
	for i := 0; i < l.Len(); i++ {
		n := l.Value(i)
		if n.Kind != strictjson.KindString {
			c.Add(l.Path(i), "must be a string (an e-mail address), got "+n.Kind.String())
			ok = false
			continue
		}
		if rule := addressProblem(n.Text); rule != "" {
			c.Add(l.Path(i), rule)
			ok = false
			continue
		}
		key := addressKey(n.Text)
		if j := firstIndex(seen, key); j >= 0 {
			c.Add(l.Path(i), "repeats the address at index "+strconv.Itoa(j)+" (domains compare in any case); send each address once")
			ok = false
			continue
		}
		out = append(out, n.Text)
		seen = append(seen, seenAddress{key: key, index: i})
	}
	if !ok {
		return nil
	}
	return out
}

// seenAddress is a valid address already met in the array: its
// comparison key and its index.
type seenAddress struct {
	key   string
	index int
}

// firstIndex returns the array index of the address with key, or -1.
func firstIndex(seen []seenAddress, key string) int {
	for _, a := range seen {
		if a.key == key {
			return a.index
		}
	}
	return -1
}
