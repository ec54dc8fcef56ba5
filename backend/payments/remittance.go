package payments

import (
	"strings"

	"github.com/obgw/obgw/backend/strictjson"
)

// StructuredRemittance is a structured payment reference (Berlin Group
// RemittanceInformationStructured).
type StructuredRemittance struct {
	// Reference is the reference itself: a KID when ReferenceType is
	// SCOR or KID in a domestic product.
	Reference string `json:"Reference"`
	// ReferenceType is the reference's type; SCOR and KID are returned in
	// upper case whatever case was sent.
	ReferenceType string `json:"ReferenceType"`
	// ReferenceIssuer is who issued the reference.
	ReferenceIssuer string `json:"ReferenceIssuer"`
}

// The three remittance fields, of which a payment holds at most one.
const (
	fieldUnstructured       = "remittanceInformationUnstructured"
	fieldStructured         = "remittanceInformationStructured"
	fieldStructuredArray    = "remittanceInformationStructuredArray"
	ruleKID                 = "must be a valid KID: 2 to 25 digits whose last digit is a MOD10 or MOD11 check digit (see your giro)"
	ruleKIDOrRF             = "must be a valid KID (2 to 25 digits ending in a MOD10 or MOD11 check digit) or ISO 11649 RF creditor reference"
	ruleDomesticReference   = "must be SCOR or KID: the structured reference of a Norwegian payment is a KID"
	ruleExclusiveRemittance = "cannot be sent together with "
)

var remittanceFields = fieldSet([]string{"reference", "referenceType", "referenceIssuer"}, nil)

// remittance holds the remittance information of a payment.
type remittance struct {
	unstructured string
	structured   *StructuredRemittance
	array        []StructuredRemittance
}

// remittance checks the remittance fields of a payment: at most one of
// unstructured, structured and structured array may be present; each one
// after the first in the body is refused, naming the first.
func (o object) remittance(product string) (remittance, bool) {
	var r remittance
	first, ok := "", true
	for _, m := range o.Members() {
		switch m.Key {
		case fieldUnstructured, fieldStructured, fieldStructuredArray:
		default:
			continue
		}
		if n := o.c.Node(m.Value); n.Kind == strictjson.KindNull || n.Kind == strictjson.KindString && n.Text == "" || m.Key == first {
			continue // absent, or a duplicate already refused
		}
		if first != "" {
			o.Report(m.Key, ruleExclusiveRemittance+first+"; send either unstructured or structured remittance information")
			ok = false
			continue
		}
		first = m.Key
	}
	switch first {
	case fieldUnstructured:
		var good bool
		r.unstructured, good = o.Text(fieldUnstructured, false, maxRemitRunes)
		ok = ok && good
	case fieldStructured:
		s, p := o.child(fieldStructured, false, remittanceFields)
		if p == strictjson.Valid {
			sr, good := s.structuredRemittance(product)
			r.structured = &sr
			ok = ok && good
		} else {
			ok = false
		}
	case fieldStructuredArray:
		// No path is built: o is the root or a bulk's anchored payment.
		refs, p := o.List(fieldStructuredArray, false, "structured references", 1, MaxStructuredRemittances)
		if p != strictjson.Valid {
			ok = false
			break
		}
		r.array = make([]StructuredRemittance, refs.Len())
		for i := range refs.Len() {
			s, isObj := o.c.element(refs, i, remittanceFields)
			if !isObj {
				ok = false
				continue
			}
			var good bool
			r.array[i], good = s.structuredRemittance(product)
			ok = ok && good
		}
	}
	if !ok {
		return remittance{}, false
	}
	return r, true
}

// structuredRemittance checks one structured reference. A reference of
// type SCOR or KID (in any case) must be a valid KID; for SEPA and
// cross-border payments a SCOR reference may instead be an ISO 11649 RF
// reference. For the domestic products every structured reference is a
// KID: an absent type counts as KID, another type is refused.
func (o object) structuredRemittance(product string) (StructuredRemittance, bool) {
	var s StructuredRemittance
	var ok [3]bool
	s.Reference, ok[0] = o.Text("reference", true, maxIDRunes)
	s.ReferenceType, ok[1] = o.Text("referenceType", false, maxIDRunes)
	s.ReferenceIssuer, ok[2] = o.Text("referenceIssuer", false, maxIDRunes)
	if ok != [3]bool{true, true, true} {
		return StructuredRemittance{}, false
	}
	switch {
	case strings.EqualFold(s.ReferenceType, "KID"):
		s.ReferenceType = "KID"
	case strings.EqualFold(s.ReferenceType, "SCOR"):
		s.ReferenceType = "SCOR"
	case domestic(product) && s.ReferenceType != "":
		o.Report("referenceType", ruleDomesticReference)
		return StructuredRemittance{}, false
	case !domestic(product):
		return s, true // another kind of reference: free text
	}
	switch {
	case ValidKID(s.Reference):
	case s.ReferenceType == "SCOR" && !domestic(product):
		if !validCreditorReference(s.Reference) {
			o.Report("reference", ruleKIDOrRF)
			return StructuredRemittance{}, false
		}
	default:
		o.Report("reference", ruleKID)
		return StructuredRemittance{}, false
	}
	return s, true
}
