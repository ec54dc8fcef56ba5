package mockdata

import (
	"strings"
	"time"

	"github.com/obgw/obgw/backend/strictjson"
)

// Customer types, spelled as store.CustomerType.
const (
	CustomerPrivate   = "PRIVATE"
	CustomerCorporate = "CORPORATE"
)

// Customer is a validated sandbox customer body:
// {"customerNumber":"13039319955","name":"Test Testperson 3","type":"private"}.
type Customer struct {
	// Number is the customer number (national identity or organisation
	// number): 1 to 35 ASCII letters and digits.
	Number string
	// Name is at most 70 characters.
	Name string
	// Type is CustomerPrivate or CustomerCorporate.
	Type string
}

var customerFields = &strictjson.FieldSet{Names: []string{"customerNumber", "name", "type"}}

// ParseCustomer parses and validates the body of "create sandbox customer".
// type is private or corporate in any case. now is not used; every ParseX
// takes it so that the handlers call them alike.
func ParseCustomer(body []byte, now time.Time) (Customer, []FieldError) {
	c, errs := decodeBody(body, now)
	if errs != nil {
		return Customer{}, errs
	}
	var cu Customer
	if o, ok := c.rootObject(customerFields); ok {
		cu.Number, _ = o.Code("customerNumber", true, validCustomerNumber, ruleCustomerNumber)
		cu.Name, _ = o.Text("name", true, maxNameRunes)
		cu.Type, _ = o.Code("type", true, func(s string) bool {
			return strings.EqualFold(s, "private") || strings.EqualFold(s, "corporate")
		}, `must be "private" or "corporate" (in any case)`)
		cu.Type = strings.ToUpper(cu.Type)
	}
	if len(c.Errors()) > 0 {
		return Customer{}, c.Errors()
	}
	return cu, nil
}
