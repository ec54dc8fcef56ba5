package mockdata

import (
	"strings"
	"time"
)

// Agreement is a validated sandbox agreement body (contract section 10):
// a corporate owner lets PSUs act on its accounts.
type Agreement struct {
	// Owner is the corporate customer's number.
	Owner string
	// Name is at most 70 characters.
	Name string
	// Engagements are the PSUs' rights, 1 to MaxEngagements.
	Engagements []Engagement
}

// Engagement gives the PSU Customer roles on Account.
type Engagement struct {
	// Customer is the PSU's customer number.
	Customer string
	// Account names one of the owner's accounts.
	Account AccountReference
	// Roles are VIEW and/or REGISTER (upper case, each once).
	Roles []string
}

var (
	agreementFields  = []string{"owner", "name", "engagements"}
	engagementFields = []string{"customer", "account", "roles"}
	agreementRoles   = []string{"VIEW", "REGISTER"}
)

// ParseAgreement parses and validates the body of "create sandbox
// agreement". Roles are VIEW or REGISTER in any case.
func ParseAgreement(body []byte, now time.Time) (Agreement, []FieldError) {
	c, errs := decodeBody(body, now)
	if errs != nil {
		return Agreement{}, errs
	}
	var a Agreement
	if o, ok := c.object(root, "$", agreementFields); ok {
		a.Owner, _ = o.code("owner", true, validCustomerNumber, ruleCustomerNumber)
		a.Name, _ = o.text("name", true, maxNameRunes)
		if items, p := o.list("engagements", true, "engagements", 1, MaxEngagements); p == valid {
			a.Engagements = make([]Engagement, len(items))
			for i, idx := range items {
				if e, ok := c.object(idx, indexPath(o.at("engagements"), i), engagementFields); ok {
					e.engagement(&a.Engagements[i])
				}
			}
		}
	}
	if len(c.errs) > 0 {
		return Agreement{}, c.errs
	}
	return a, nil
}

func (o object) engagement(e *Engagement) {
	e.Customer, _ = o.code("customer", true, validCustomerNumber, ruleCustomerNumber)
	if r, p := o.child("account", true, accountReferenceFields); p == valid {
		e.Account = r.accountReference()
	}
	items, p := o.list("roles", true, "roles", 1, len(agreementRoles))
	if p != valid {
		return
	}
	path := o.at("roles")
	rule := "must be one of " + strings.Join(agreementRoles, ", ") + " (in any case)"
	for i, idx := range items {
		n := o.c.node(idx)
		at := indexPath(path, i)
		role := ""
		if n.kind == kindString {
			role = canonical(n.text, agreementRoles)
		}
		switch {
		case n.kind != kindString:
			o.c.add(at, "must be a string, got "+n.kind.String())
		case role == "":
			o.c.add(at, rule)
		case contains(e.Roles, role):
			o.c.add(at, "appears more than once; send each role once")
		default:
			e.Roles = append(e.Roles, role)
		}
	}
}
