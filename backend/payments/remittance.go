package payments

import "strings"

// StructuredRemittance is a structured payment reference (Berlin Group
// RemittanceInformationStructured).
type StructuredRemittance struct {
	// Reference is the reference itself: a KID when ReferenceType is
	// SCOR or KID in a domestic product.
	Reference string
	// ReferenceType is the reference's type; SCOR and KID are returned in
	// upper case whatever case was sent.
	ReferenceType string
	// ReferenceIssuer is who issued the reference.
	ReferenceIssuer string
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

var remittanceFields = &fieldSet{names: []string{"reference", "referenceType", "referenceIssuer"}}

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
	for _, m := range o.members {
		switch m.key {
		case fieldUnstructured, fieldStructured, fieldStructuredArray:
		default:
			continue
		}
		if n := o.c.node(m.val); n.kind == kindNull || n.kind == kindString && n.text == "" || m.key == first {
			continue // absent, or a duplicate already refused
		}
		if first != "" {
			o.c.add(o.at(m.key), ruleExclusiveRemittance+first+"; send either unstructured or structured remittance information")
			ok = false
			continue
		}
		first = m.key
	}
	switch first {
	case fieldUnstructured:
		var good bool
		r.unstructured, good = o.text(fieldUnstructured, false, maxRemitRunes)
		ok = ok && good
	case fieldStructured:
		s, p := o.child(fieldStructured, false, remittanceFields)
		if p == valid {
			sr, good := s.structuredRemittance(product)
			r.structured = &sr
			ok = ok && good
		} else {
			ok = false
		}
	case fieldStructuredArray:
		elems, p := o.list(fieldStructuredArray, false, "structured references", 1, MaxStructuredRemittances)
		if p != valid {
			ok = false
			break
		}
		base := o.path() // no allocation: o is the root or a bulk's payment, whose path is built
		r.array = make([]StructuredRemittance, len(elems))
		for i, e := range elems {
			s, isObj := o.c.object(e, object{base: base, key: fieldStructuredArray, index: i}, remittanceFields)
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
	s.Reference, ok[0] = o.text("reference", true, maxIDRunes)
	s.ReferenceType, ok[1] = o.text("referenceType", false, maxIDRunes)
	s.ReferenceIssuer, ok[2] = o.text("referenceIssuer", false, maxIDRunes)
	if ok != [3]bool{true, true, true} {
		return StructuredRemittance{}, false
	}
	switch {
	case strings.EqualFold(s.ReferenceType, "KID"):
		s.ReferenceType = "KID"
	case strings.EqualFold(s.ReferenceType, "SCOR"):
		s.ReferenceType = "SCOR"
	case domestic(product) && s.ReferenceType != "":
		o.c.add(o.at("referenceType"), ruleDomesticReference)
		return StructuredRemittance{}, false
	case !domestic(product):
		return s, true // another kind of reference: free text
	}
	switch {
	case ValidKID(s.Reference):
	case s.ReferenceType == "SCOR" && !domestic(product):
		if !validCreditorReference(s.Reference) {
			o.c.add(o.at("reference"), ruleKIDOrRF)
			return StructuredRemittance{}, false
		}
	default:
		o.c.add(o.at("reference"), ruleKID)
		return StructuredRemittance{}, false
	}
	return s, true
}
