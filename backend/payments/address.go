package payments

import (
	"github.com/obgw/obgw/backend/codelists"
	"github.com/obgw/obgw/backend/strictjson"
)

// Address is a postal address (Berlin Group v1.3 Address).
type Address struct {
	// StreetName is at most 70 characters.
	StreetName string `json:"StreetName"`
	// BuildingNumber is at most 16 characters.
	BuildingNumber string `json:"BuildingNumber"`
	// PostCode is at most 16 characters.
	PostCode string `json:"PostCode"`
	// TownName is at most 35 characters.
	TownName string `json:"TownName"`
	// Country is an ISO 3166-1 alpha-2 code of the allowed list.
	Country string `json:"Country"`
}

var addressFields = fieldSet(
	[]string{"streetName", "buildingNumber", "postCode", "townName", "country"},
	map[string]string{
		"street":     "is not a field of a Berlin Group v1.3 address; send it as streetName",
		"city":       "is not a field of a Berlin Group v1.3 address; send it as townName",
		"postalCode": "is not a field of a Berlin Group v1.3 address; send it as postCode",
	},
)

// address checks the optional address object name.
func (o object) address(name string, required bool) (*Address, strictjson.Presence) {
	a, p := o.child(name, required, addressFields)
	if p != strictjson.Valid {
		return nil, p
	}
	var ad Address
	var ok [5]bool
	ad.StreetName, ok[0] = a.Text("streetName", false, maxStreetRunes)
	ad.BuildingNumber, ok[1] = a.Text("buildingNumber", false, maxShortRunes)
	ad.PostCode, ok[2] = a.Text("postCode", false, maxShortRunes)
	ad.TownName, ok[3] = a.Text("townName", false, maxTownRunes)
	ad.Country, ok[4] = a.Code("country", true, codelists.ValidCountry, codelists.RuleCountry)
	if ok != [5]bool{true, true, true, true, true} {
		return nil, strictjson.Invalid
	}
	return &ad, strictjson.Valid
}
