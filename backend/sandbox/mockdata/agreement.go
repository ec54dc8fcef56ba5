package mockdata

import (
	"slices"
	"strings"
	"time"

	"github.com/obgw/obgw/backend/strictjson"
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
	agreementFields  = &strictjson.FieldSet{Names: []string{"owner", "name", "engagements"}}
	engagementFields = &strictjson.FieldSet{Names: []string{"customer", "account", "roles"}}
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
	if o, ok := c.rootObject(agreementFields); ok {
		a.Owner, _ = o.Code("owner", true, validCustomerNumber, ruleCustomerNumber)
		a.Name, _ = o.Text("name", true, maxNameRunes)
		if items, p := o.List("engagements", true, "engagements", 1, MaxEngagements); p == strictjson.Valid {
			a.Engagements = make([]Engagement, items.Len())
			for i := range items.Len() {
				if e, ok := c.element(items, i, engagementFields); ok {
					e.engagement(&a.Engagements[i])
				}
			}
		}
	}
	if len(c.Errors()) > 0 {
		return Agreement{}, c.Errors()
	}
	return a, nil
}

// engagement checks one engagement into e.
func (o object) engagement(e *Engagement) {
	e.Customer, _ = o.Code("customer", true, validCustomerNumber, ruleCustomerNumber)
	if r, p := o.child("account", true, accountReferenceFields); p == strictjson.Valid {
		e.Account = r.accountReference()
	}
	roles, p := o.List("roles", true, "roles", 1, len(agreementRoles))
	if p != strictjson.Valid {
		return
	}
	for i := range roles.Len() {
		n := roles.Value(i)
		role, rule := "", ""
		if n.Kind == strictjson.KindString {
			role = canonical(n.Text, agreementRoles)
		}
		switch {
		case n.Kind != strictjson.KindString:
			rule = "must be a string, got " + n.Kind.String()
		case role == "":
			rule = "must be one of " + strings.Join(agreementRoles, ", ") + " (in any case)"
		case slices.Contains(e.Roles, role):
			rule = "appears more than once; send each role once"
		default:
			e.Roles = append(e.Roles, role)
			continue
		}
		o.c.Add(roles.Path(i), rule)
	}
}
